"""ast_canopy on what real device libraries declare beside their device API: host-only helpers
naming the host C++ standard library (CUB's ``operator<<(std::ostream &, ...)``). Each test
header shows one pattern."""

from __future__ import annotations

import functools
from pathlib import Path

from ast_canopy import Declarations, ExecutionSpace
from ast_canopy.host_only import (
    function_host_library_type,
    is_host_library_name,
    struct_host_library_type,
)

DATA = Path(__file__).parent / "data"


@functools.cache
def parse(relative: str) -> Declarations:
    from ast_canopy import parse_declarations_from_source

    header = DATA / relative
    return parse_declarations_from_source(str(header), [str(header)], "sm_90")


def test_host_library_names_are_told_from_libcudacxx():
    assert is_host_library_name("std::basic_ostream<char>")
    assert is_host_library_name("::std::string")
    assert is_host_library_name("cuda::std::pair<std::basic_string<char>, int>")
    assert not is_host_library_name("cuda::std::complex<float>")
    assert not is_host_library_name("mystd::thing")


def test_declarations_naming_the_host_library_are_host_only():
    decls = parse("binding/host_library_types.cuh")
    functions = {f.name: f for f in decls.functions}
    shift = functions["operator<<"]
    assert shift.exec_space is ExecutionSpace.UNDEFINED  # no __device__: host code
    # Device-callable by its attributes, but its signature is the host library's.
    length_of = functions["length_of"]
    assert length_of.exec_space is ExecutionSpace.HOST_DEVICE
    assert function_host_library_type(length_of).startswith("std::")
    assert function_host_library_type(functions["weight"]) is None
    structs = {s.name: s for s in decls.structs}
    assert struct_host_library_type(structs["Named"]).startswith("std::basic_string")
    assert struct_host_library_type(structs["Counter"]) is None
    # The host function's std::basic_ostream<char> is no instance of this header's (libstdc++
    # instantiates it explicitly, so it has a layout that would get it bound).
    named = [s.qual_name for s in decls.class_template_specializations]
    assert not [name for name in named if "ostream" in name], named

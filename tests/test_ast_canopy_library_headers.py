"""ast_canopy on what real device libraries declare beside their device API: host-only helpers
naming the host C++ standard library (CUB's ``operator<<(std::ostream &, ...)``), constants
written as object-like macros (math_constants.h's ``CUDART_PI_F``), and the toolkit's intrinsics
headers that clang's CUDA wrapper hides (``__ldg``). Each test header shows one pattern."""

from __future__ import annotations

import functools
import struct
from pathlib import Path

import pytest

from ast_canopy import Declarations, ExecutionSpace, TypeKind
from ast_canopy.host_only import (
    function_host_library_type,
    is_host_library_name,
    struct_host_library_type,
)
from ast_canopy.literals import read_literal

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


# -- object-like macros that expand to a literal --------------------------------------------


def float32(value: float) -> float:
    return struct.unpack("f", struct.pack("f", value))[0]


@pytest.mark.parametrize(
    "tokens, value, cxx_type",
    [
        (["42"], 42, "int"),
        (["2147483648"], 2147483648, "long"),  # decimal: int, long, long long
        (["0x80000000"], 2147483648, "unsigned int"),  # other bases try unsigned too
        (["0xFFFFFFFFFFFFFFFF"], 2**64 - 1, "unsigned long"),
        (["10ull"], 10, "unsigned long long"),
        (["017"], 15, "int"),  # octal
        (["0b101"], 5, "int"),
        (["1'000"], 1000, "int"),
        (["-", "1u"], 2**32 - 1, "unsigned int"),  # unary minus wraps an unsigned literal
        (["(", "-", "(", "2", ")", ")"], -2, "int"),
        (["0.1"], 0.1, "double"),
        (["0x1p-3f"], 0.125, "float"),
        (["1e39f"], float("inf"), "float"),
        (["'A'"], 65, "char"),
        (["true"], True, "bool"),
        (['"ab"'], "ab", "const char[3]"),
    ],
)
def test_literals_have_the_compilers_value_and_type(tokens, value, cxx_type):
    found = read_literal(tokens)
    assert (found.value, found.cxx_type) == (value, cxx_type)


def test_float_literals_round_once_to_float():
    # Just above the midpoint between 1 and the next float: a double in between rounds to the
    # midpoint, and then to 1.0 (ties to even); C++ rounds the digits once, upwards.
    assert float32(float("1.0000000596046447755")) == 1.0
    assert read_literal(["1.0000000596046447755f"]).value == 1.0000001192092896
    assert read_literal(["3.141592654f"]).value == float32(3.141592654)


@pytest.mark.parametrize("tokens", [["1", "<<", "3"], ["x"], ["1.0L"], ["(", "1", ")", ")"]])
def test_anything_but_a_literal_is_not_read(tokens):
    assert read_literal(tokens) is None


def test_macros_expanding_to_a_literal_are_constants():
    decls = parse("parser/macro_constants.cuh")
    found = {c.name: c for c in decls.macro_constants}
    assert list(found) == [
        "MC_PI_F",
        "MC_TIE_F",
        "MC_MASK",
        "MC_BIG",
        "MC_NEG",
        "MC_HALF_LO",
        "MC_FLAG",
        "MC_LETTER",
        "MC_NAME",
        "MC_ALIAS",
        "MC_WHERE",
        "MC_REDEFINED",
    ]
    pi = found["MC_PI_F"]
    assert (pi.type_.name, pi.type_.kind, pi.type_.sizeof_) == ("float", TypeKind.BUILTIN, 4)
    assert (pi.value, pi.value_serialized, pi.expansion) == (
        float32(3.141592654),
        "3.1415927",
        "3.141592654f",
    )
    assert pi.file.endswith("macro_constants.cuh") and pi.line == 6
    assert found["MC_TIE_F"].value == 1.0000001192092896
    typed = {name: (c.type_.name, c.value) for name, c in found.items()}
    assert typed["MC_MASK"] == ("unsigned int", 2147483648)
    assert typed["MC_BIG"] == ("long", 2147483648)
    assert typed["MC_NEG"] == ("int", -1) and found["MC_NEG"].expansion == "(-1)"
    assert typed["MC_HALF_LO"] == ("double", -4.8336466567264567e-17)
    assert typed["MC_FLAG"] == ("bool", True) and typed["MC_LETTER"] == ("char", 65)
    assert typed["MC_NAME"] == ("const char[8]", "numbast")
    assert found["MC_NAME"].type_.array_extents == (8,)
    assert typed["MC_ALIAS"] == ("float", pi.value) and found["MC_ALIAS"].expansion == "MC_PI_F"
    assert typed["MC_WHERE"] == ("int", 1)  # the device pass's branch
    assert typed["MC_REDEFINED"] == ("int", 2)  # the definition in force at the end


def test_headers_without_literal_macros_keep_no_preprocessing_record():
    from ast_canopy import macros

    assert macros.defines_literals([str(DATA / "parser" / "macro_constants.cuh")])
    assert not macros.defines_literals([str(DATA / "parser" / "template_defaults.cuh")])
    assert parse("parser/template_defaults.cuh").macro_constants == []


# -- intrinsics headers clang's CUDA wrapper hides -----------------------------------------


def test_intrinsics_headers_hidden_by_clangs_wrapper_are_read():
    from ast_canopy import parse_declarations_from_source
    from ast_canopy.toolkit import cudart_include_dir

    header = str(Path(cudart_include_dir()) / "sm_32_intrinsics.h")
    decls = parse_declarations_from_source(header, [header], "sm_90")
    ldg = [f for f in decls.functions if f.name == "__ldg"]
    assert len(ldg) >= 20  # one overload per scalar and vector type
    by_param = {f.params[0].type_.name: f for f in ldg}
    as_float = by_param["const float *"]
    assert as_float.return_type.name == "float"
    assert as_float.exec_space is ExecutionSpace.DEVICE
    assert as_float.file == header  # the toolkit's own declaration, not clang's stand-in
    assert {"__ldcg", "__stcs", "__funnelshift_l"} <= {f.name for f in decls.functions}
    assert header in decls.included_files

"""NVIDIA Numbast's dynamic API on ours: its signatures (the silent-misuse cases among them),
numbast.types, nested records and arrays, method intents, per-writer stubs, shim writers."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest
from numba import cuda
from numba.cuda import types
from numba.cuda.datamodel.models import StructModel
from support import link_kernel_to_cubin

DATA = Path(__file__).parent / "data" / "compat"
HEADER = str(DATA / "dynamic.cuh")


@pytest.fixture(scope="module")
def decls():
    from ast_canopy import parse_declarations_from_source

    return parse_declarations_from_source(HEADER, [HEADER], "sm_90")


def writer():
    from numbast import MemoryShimWriter

    return MemoryShimWriter(f'#include "{HEADER}"')


def function(decls, name):
    return next(f for f in decls.functions if f.name == name)


def struct(decls, name):
    return next(s for s in decls.structs if s.name == name)


# -- the silent-misuse cases: NVIDIA's positions mean NVIDIA's parameters --------------------


def test_aliases_given_fifth_are_aliases_not_structs_to_leave_out(decls):
    """NVIDIA's bf16 extension passes ``aliases`` 5th: the struct is bound, the alias maps."""
    from numbast import bind_cxx_structs
    from numbast.types import to_numba_type

    bound = bind_cxx_structs(
        writer(), [struct(decls, "Counter")], {}, {}, {"Counter": ["CounterAlias"]}
    )
    assert [s.__name__ for s in bound] == ["Counter"]
    assert to_numba_type("CounterAlias") is bound[0]._nbtype


def test_a_list_of_names_in_the_aliases_position_is_refused(decls):
    from numbast import bind_cxx_structs

    with pytest.raises(TypeError, match=r"aliases must be a mapping .*exclude=\.\.\. by keyword"):
        bind_cxx_structs(writer(), decls.structs, {}, {}, ["Counter"])
    left_out = bind_cxx_structs(writer(), decls.structs, exclude=["Counter"])
    assert "Counter" not in [s.__name__ for s in left_out]


def test_skip_non_device_is_fourth_and_exclude_fifth(decls):
    from numbast import bind_cxx_function, bind_cxx_functions

    with pytest.raises(TypeError, match="skip_non_device must be a bool.*exclude=..."):
        bind_cxx_function(writer(), function(decls, "twice"), None, {"twice"})
    with pytest.raises(TypeError, match="skip_non_device must be a bool"):
        bind_cxx_functions(writer(), decls.functions, None, ["twice"])
    wanted = [function(decls, n) for n in ("twice", "add", "host_only")]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        bound = bind_cxx_functions(writer(), wanted, None, True, {"twice"})
    assert [f.__name__ for f in bound] == ["add"]
    assert any("host_only" in str(w.message) for w in caught)  # a host function: left out


def test_arg_intent_is_keyed_by_function_name(decls):
    from numbast import bind_cxx_functions

    with pytest.raises(TypeError, match="arg_intent must be a mapping"):
        bind_cxx_functions(writer(), decls.functions, arg_intent=["add"])


# -- numbast.types ----------------------------------------------------------------------------


def test_types_reads_spellings_as_nvidia_does():
    from numbast.types import to_c_type_str, to_numba_type

    assert to_numba_type("float[2][12]") == types.UniTuple(types.UniTuple(types.float32, 12), 2)
    assert to_numba_type("const int *") == types.CPointer(types.int32)
    assert to_numba_type("void *") == types.voidptr
    assert isinstance(to_numba_type("lib::NeverMapped"), types.Opaque)
    assert to_c_type_str(types.CPointer(to_numba_type("float3"))) == "float3*"
    assert to_c_type_str(types.int32) == "int"
    with pytest.raises(ValueError, match="has no C\\+\\+ type"):
        to_c_type_str(types.Opaque("nothing"))


def test_register_cxx_type_records_one_alignment_per_numba_type():
    from numbast.types import CTYPE_MAPS, get_numba_type_alignof, register_cxx_type

    aligned = types.Opaque("compat::Aligned")
    register_cxx_type("compat::Aligned", aligned, alignof=32)
    assert CTYPE_MAPS["compat::Aligned"] is aligned and get_numba_type_alignof(aligned) == 32
    with pytest.raises(ValueError, match="already has alignof_=32"):
        register_cxx_type("compat::Other", aligned, alignof=16)
    with pytest.raises(ValueError, match="distinct Numba type object"):
        register_cxx_type("compat::AlignedInt", types.int32, alignof=16)
    with pytest.raises(ValueError, match="positive power of two"):
        register_cxx_type("compat::Odd", types.Opaque("odd"), alignof=12)
    register_cxx_type("compat::Aligned", aligned)  # again, without: the alignment goes
    assert get_numba_type_alignof(aligned) is None
    del CTYPE_MAPS["compat::Aligned"]
    assert "compat::Aligned" not in CTYPE_MAPS


# -- what binding makes ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def bound(decls):
    from numbast import bind_cxx_functions, bind_cxx_structs

    shim_writer = writer()
    structs = bind_cxx_structs(
        shim_writer,
        decls.structs,
        {"Pod": types.Type},
        {"Pod": StructModel},
        {"Pod": ["PodAlias"]},
        arg_intent={"Counter.add_into": {"out": "out_return"}},
    )
    functions = bind_cxx_functions(shim_writer, [function(decls, "make_pod")])
    return {s.__name__: s for s in structs} | {f.__name__: f for f in functions}


def test_nested_records_are_bound_and_nested_arrays_are_nested_tuples(bound):
    from numba.cuda.descriptor import cuda_target

    pod = bound["Pod"]._nbtype
    llvm = cuda_target.target_context.get_value_type(pod)
    assert len(llvm.elements[0].elements) == 2  # Inner as a struct of (int, float)
    assert str(llvm.elements[1]) == "[2 x [3 x float]]"


def nested_kernel(bound):
    make_pod, Counter = bound["make_pod"], bound["Counter"]

    def kernel(out):
        p = make_pod(np.int32(6))
        out[0] = p.inner.tag
        out[1] = p.inner.value
        out[2] = p.grid[1][2]
        out[3] = Counter().add_into(np.int32(2))  # out_return: the method returns it

    return kernel


def test_nested_fields_and_method_intents_link(bound):
    assert link_kernel_to_cubin(nested_kernel(bound), (types.float32[:],))[:4] == b"\x7fELF"


@pytest.mark.gpu
def test_nested_fields_and_method_intents_numbers(bound):
    out = np.zeros(4, np.float32)
    cuda.jit(nested_kernel(bound))[1, 1](out)
    np.testing.assert_array_equal(out, [6, 3, 12, 42])


def test_each_shim_writer_keeps_its_own_stubs(decls):
    """Rebinding a header with another writer (NVIDIA's fixtures do, per test) gives other
    stubs, so a kernel links only the writer whose bindings it calls: ``twice`` is defined
    non-inline in the header, and two shim units in one link would define it twice."""
    from numbast import bind_cxx_function

    first, second = writer(), writer()
    twice_1 = bind_cxx_function(first, function(decls, "twice"))
    twice_2 = bind_cxx_function(second, function(decls, "twice"))
    assert twice_1 is not twice_2
    assert bind_cxx_function(second, function(decls, "twice")) is twice_2

    def kernel(out):
        out[0] = twice_1(np.int32(3))

    def other(out):
        out[0] = twice_2(np.int32(4))

    for pyfunc in (kernel, other):
        assert link_kernel_to_cubin(pyfunc, (types.int32[:],))[:4] == b"\x7fELF"


def test_name_replaces_the_cxx_spelling(decls):
    from numbast import bind_cxx_struct
    from numbast.types import CTYPE_MAPS

    stub = bind_cxx_struct(writer(), struct(decls, "Counter"), name="::Counter")
    assert stub.__name__ == "::Counter" and stub._nbtype.name == "::Counter"
    assert CTYPE_MAPS["Counter"] is stub._nbtype


def test_shim_writers_take_preceding_text_and_ptx():
    from numba.cuda.cudadrv.linkable_code import PTXSource

    from numbast import FileShimWriter, MemoryShimWriter

    memory = MemoryShimWriter(preceding_text="#define X 1")
    memory.write_to_ptx_shim(".version 8.0\n.target sm_90\n.address_size 64\n", "empty")
    memory.write_to_ptx_shim("ignored: the id is known", "empty")
    links = memory.links()
    assert links[0] is memory.link_object() and len(links) == 2
    assert isinstance(links[1], PTXSource) and b".target sm_90" in links[1].data
    file_writer = FileShimWriter('#include "x.cuh"')
    file_writer.write_to_shim("// a shim", "a")
    text = file_writer.source()
    assert Path(file_writer.file_name).read_text() == text and "// a shim" in text

"""Overload sets as C++ resolves them (issue 20 point 4): a const getter beside a non-const
setter of the same name (``real() const`` / ``real(float)``), const and non-const overloads with
the same parameters (the non-const one for a non-const object), one name overloaded across the
retained headers of a module, and the toolkit's vector functions beside a header's own
overloads of them (``helper_math.h``'s ``make_float3(float2, float)`` and the toolkit's
``make_float3(float, float, float)``). Each: a kernel linked to an sm_90 cubin, and its numbers
on the GPU."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest
from numba import cuda
from numba.cuda import types
from support import link_kernel_to_cubin
from wrapper_imports import imported_header

DATA = Path(__file__).parent / "data" / "overloads"


@pytest.fixture(scope="module")
def const_lib():
    from numbast import bind_header

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # Slot's implicit members are left out, by design
        return bind_header(DATA / "const_overloads.cuh", arch="sm_90")


@pytest.fixture(scope="module")
def vec_module(tmp_path_factory):
    retain = [str(DATA / "vec_overloads.cuh"), str(DATA / "vec_overloads_more.cuh")]
    directory = tmp_path_factory.mktemp("vec_overloads")
    with imported_header("vec_overloads", DATA / "vec_overloads.cuh", directory, retain=retain):
        yield __import__("cuda_headers.vec_overloads", fromlist=["_"])


def const_kernel(lib):
    Cell, Slot = lib.Cell, lib.Slot[types.float32]

    def kernel(out):
        cell = Cell(np.float32(1.0))
        out[0] = cell.value()  # value() const
        cell.value(np.float32(5.0))  # value(float): updates cell
        out[1] = cell.value()
        out[2] = cell.pick(np.int32(1))  # non-const pick: v becomes 6, returns 6 + 200
        out[3] = cell.value()
        slot = Slot(np.float32(2.5))
        slot.value(slot.value() * np.float32(2.0))  # a class template instance's pair
        out[4] = slot.value()

    return kernel


CONST_EXPECTED = [1.0, 5.0, 206.0, 6.0, 5.0]


def vec_kernel(module):
    make_float3, make_int2, scaled = module.make_float3, module.make_int2, module.scaled

    def kernel(out):
        a = make_float3(np.float32(1.0), np.float32(2.0), np.float32(3.0))  # the toolkit's
        b = make_float3(np.float32(4.0))  # the header's make_float3(float)
        c = make_float3(cuda.float32x2(np.float32(5.0), np.float32(6.0)), np.float32(7.0))
        out[0], out[1], out[2] = a.x, a.y, a.z
        out[3], out[4] = b.z, c.z
        out[5] = make_int2(np.int32(8), np.int32(9)).y  # the toolkit's make_int2(int, int)
        out[6] = make_int2(np.int32(3)).x  # the header's make_int2(int)
        out[7] = scaled(np.float32(1.5))  # vec_overloads.cuh
        out[8] = scaled(np.float32(1.5), np.float32(4.0))  # vec_overloads_more.cuh
        out[9] = scaled(a, np.float32(2.0)).z  # vec_overloads_more.cuh, on a float3

    return kernel


VEC_EXPECTED = [1, 2, 3, 4, 7, 9, 3, 3, 6, 6]


def test_const_and_non_const_overloads_link_to_sm90_cubin(const_lib):
    link_kernel_to_cubin(const_kernel(const_lib), (types.float32[:],))


def called_shims(pyfunc, signature) -> set[str]:
    """The shims a kernel calls (from its LLVM IR, before linking)."""
    import re

    from numba.cuda.compiler import compile_cuda

    compiled = compile_cuda(pyfunc, None, signature, cc=(9, 0))
    return set(re.findall(r"nbi_shim_\w+", compiled.library.get_llvm_str()))


def test_the_non_const_overload_is_called_on_a_non_const_object(const_lib):
    Cell = const_lib.Cell

    def kernel(out):
        cell = Cell(np.float32(1.0))
        out[0] = cell.pick(np.int32(1))
        out[1] = cell.value()

    shims = called_shims(kernel, (types.float32[:],))
    assert "nbi_shim__ZN4Cell4pickEi" in shims  # pick(int), not pick(int) const
    assert "nbi_shim__ZNK4Cell4pickEi" not in shims
    assert "nbi_shim__ZNK4Cell5valueEv" in shims  # the const getter


def test_overloads_across_headers_and_toolkit_vector_functions_link(vec_module):
    link_kernel_to_cubin(vec_kernel(vec_module), (types.float32[:],))


def test_toolkit_vector_functions_join_only_their_own_name(vec_module):
    assert not hasattr(vec_module, "make_float2")  # not declared by the header: not bound
    from numbast.core.cxx_names import toolkit_vector_function

    assert toolkit_vector_function("make_float3") == "float3"
    assert toolkit_vector_function("make_double4_32a") == "double4_32a"
    assert toolkit_vector_function("ns::make_float3") is None
    assert toolkit_vector_function("make_float5") is None


@pytest.mark.gpu
def test_const_and_non_const_overloads_numbers(const_lib):
    out = cuda.to_device(np.zeros(len(CONST_EXPECTED), np.float32))
    cuda.jit(const_kernel(const_lib))[1, 1](out)
    np.testing.assert_array_equal(out.copy_to_host(), np.float32(CONST_EXPECTED))


@pytest.mark.gpu
def test_overloads_across_headers_numbers(vec_module):
    out = cuda.to_device(np.zeros(len(VEC_EXPECTED), np.float32))
    cuda.jit(vec_kernel(vec_module))[1, 1](out)
    np.testing.assert_array_equal(out.copy_to_host(), np.float32(VEC_EXPECTED))

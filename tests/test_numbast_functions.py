"""Free functions: overloads, namespaces, typedefs, void results, pointers; skips warn."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from numba import cuda
from numba.cuda import types
from support import bound_test_header, link_kernel_to_cubin


@pytest.fixture(scope="module")
def lib():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        bound = bound_test_header("functions.cuh")
    bound.skip_messages = [str(w.message) for w in caught]
    return bound


def make_kernel(lib):
    from numbast import element_pointer

    fn_fma, fn_add, scale, widen = lib.fn_fma, lib.fn_add, lib.scale, lib.widen
    fn_store, fn_halve, fn_is_positive = lib.fn_store, lib.fn_halve, lib.fn_is_positive

    def kernel(f32, f64, i32, i64, u16, flags):
        f32[0] = fn_fma(f32[1], f32[2], f32[3])
        i32[0] = fn_add(i32[1], i32[2])  # the int overload
        f64[0] = fn_add(f64[1], f64[2])  # the double overload (adds 0.5)
        f32[4] = scale(f32[1], np.float32(10.0))
        i64[0] = widen(i32[1])
        fn_store(element_pointer(f32, 5), f32[2])
        u16[0] = fn_halve(u16[1])
        flags[0] = fn_is_positive(f64[1])
        flags[1] = fn_is_positive(-f64[1])

    return kernel


SIGNATURE = (
    types.float32[:],
    types.float64[:],
    types.int32[:],
    types.int64[:],
    types.uint16[:],
    types.boolean[:],
)


def test_bound_names(lib):
    expected = {"fn_fma", "fn_add", "scale", "widen", "fn_store", "fn_halve", "fn_is_positive"}
    assert expected <= set(lib.functions)


def test_host_only_and_variadic_are_skipped_with_one_warning_each(lib):
    host = [m for m in lib.skip_messages if "fn_host_only" in m]
    variadic = [m for m in lib.skip_messages if "fn_variadic" in m]
    assert len(host) == 1 and "host function" in host[0]
    assert len(variadic) == 1 and "variadic" in variadic[0]
    assert "fn_host_only" not in lib.functions


def test_calling_a_stub_outside_a_kernel_explains(lib):
    with pytest.raises(TypeError, match="inside a @cuda.jit kernel"):
        lib.fn_fma(1.0, 2.0, 3.0)


def test_kernel_links_to_sm90_cubin(lib):
    cubin = link_kernel_to_cubin(make_kernel(lib), SIGNATURE)
    assert cubin[:4] == b"\x7fELF"
    shims = lib.shim_writer.shim_names()
    # One shim per overload used, named from the mangled names: both fn_add overloads.
    assert sum("fn_add" in name for name in shims) == 2


def test_only_used_shims_are_written(lib):
    assert not any("fn_host_only" in name for name in lib.shim_writer.shim_names())


@pytest.mark.gpu
def test_numbers(lib):
    kernel = cuda.jit(make_kernel(lib))
    f32 = cuda.to_device(np.array([0, 1.5, 2.0, 0.25, 0, 0], dtype=np.float32))
    f64 = cuda.to_device(np.array([0, 3.0, 4.0], dtype=np.float64))
    i32 = cuda.to_device(np.array([0, 7, 8], dtype=np.int32))
    i64 = cuda.to_device(np.zeros(1, dtype=np.int64))
    u16 = cuda.to_device(np.array([0, 41], dtype=np.uint16))
    flags = cuda.to_device(np.zeros(2, dtype=np.bool_))
    kernel[1, 1](f32, f64, i32, i64, u16, flags)
    f32h = f32.copy_to_host()
    assert f32h[0] == pytest.approx(1.5 * 2.0 + 0.25)
    assert f32h[4] == pytest.approx(15.0)
    assert f32h[5] == 2.0
    assert i32.copy_to_host()[0] == 15
    assert f64.copy_to_host()[0] == 7.5
    assert i64.copy_to_host()[0] == 7 * 1000000000
    assert u16.copy_to_host()[0] == 20
    assert list(flags.copy_to_host()) == [True, False]

"""Type mapping: integer widths, char, typedefs, __half, __nv_bfloat16, vector types, pointers,
fixed-size array fields."""

from __future__ import annotations

import numpy as np
import pytest
from numba import cuda
from numba.cuda import types
from support import bound_test_header, link_kernel_to_cubin


@pytest.fixture(scope="module")
def lib():
    return bound_test_header("types.cuh")


def make_kernel(lib):
    from numba.cuda.bf16 import bfloat16

    from numbast import element_pointer

    f = lib.functions
    t_i8, t_u8, t_i16, t_u32 = f["t_i8"], f["t_u8"], f["t_i16"], f["t_u32"]
    t_i64, t_ull, t_typedef, t_char = f["t_i64"], f["t_ull"], f["t_typedef"], f["t_char"]
    t_half, t_bf16, t_float2, t_int4 = f["t_half"], f["t_bf16"], f["t_float2"], f["t_int4"]
    t_sum_ptr, t_make_array, t_array_sum = f["t_sum_ptr"], f["t_make_array"], f["t_array_sum"]

    def kernel(ints, floats):
        ints[0] = t_i8(np.int8(-5))
        ints[1] = t_u8(np.uint8(254))
        ints[2] = t_i16(np.int16(-300))
        ints[3] = t_u32(np.uint32(4000000000))
        ints[4] = t_i64(np.int64(2**40))
        ints[5] = t_ull(np.uint64(7))
        ints[6] = t_typedef(np.int32(14))
        ints[7] = t_char(np.int8(64))
        floats[0] = t_half(np.float16(2.5))
        floats[1] = types.float32(t_bf16(bfloat16(np.float32(3.5))))
        v = t_float2(cuda.float32x2(np.float32(1.0), np.float32(2.0)))
        floats[2], floats[3] = v.x, v.y
        w = t_int4(np.int32(10))
        ints[8] = w.x + w.y + w.z + w.w
        floats[4] = t_sum_ptr(element_pointer(floats, 5), np.int32(3))
        arr = t_make_array(np.float32(2.0))
        floats[8] = arr.tag
        floats[9] = t_array_sum(arr)

    return kernel


SIGNATURE = (types.int64[:], types.float32[:])


def test_every_function_is_bound(lib):
    names = {"t_i8", "t_u8", "t_i16", "t_u32", "t_i64", "t_ull", "t_typedef", "t_char"}
    names |= {"t_half", "t_bf16", "t_float2", "t_int4", "t_sum_ptr", "t_make_array"}
    assert names <= set(lib.functions)


def test_half_and_bfloat16_map_to_numba_types():
    from numbast.dynamic.numba_types import registered_numba_type

    assert registered_numba_type("__half") == types.float16
    assert registered_numba_type("__nv_bfloat16") == types.bfloat16


def test_kernel_links_to_sm90_cubin(lib):
    assert link_kernel_to_cubin(make_kernel(lib), SIGNATURE)[:4] == b"\x7fELF"


@pytest.mark.gpu
def test_numbers(lib):
    kernel = cuda.jit(make_kernel(lib))
    ints = cuda.to_device(np.zeros(9, dtype=np.int64))
    floats = cuda.to_device(np.array([0, 0, 0, 0, 0, 1, 2, 3, 0, 0], dtype=np.float32))
    kernel[1, 1](ints, floats)
    np.testing.assert_array_equal(
        ints.copy_to_host(), [-4, 255, -299, 4000000001, 2**40 + 1, 8, 42, 65, 46]
    )
    fl = floats.copy_to_host()
    assert fl[0] == 3.5 and fl[1] == 4.5 and fl[2] == 2.0 and fl[3] == 1.0 and fl[4] == 6.0
    assert fl[8] == 9 and fl[9] == 2 + 4 + 6 + 9


def test_bound_half_and_bfloat16_convert_to_numba_cudas_own_types_both_ways():
    """A bound __half / __nv_bfloat16 (2 bytes) and numba-cuda's float16 / bfloat16 convert
    safely both ways (kernels storing bound results into float16 / bfloat16 arrays, in
    scripts/native_arrays.py); other structs, and a __half of another size, get nothing."""
    from numba.cuda.descriptor import cuda_target
    from numba.cuda.typeconv import Conversion

    from numbast.runtime.native_twins import link_native_twin
    from numbast.runtime.structs import make_struct_type

    typing = cuda_target.typing_context
    for cxx_name, native in (("__half", types.float16), ("__nv_bfloat16", types.bfloat16)):
        bound = make_struct_type(types.Type, cxx_name, 2, 2)
        assert typing.can_convert(native, bound) is None
        assert link_native_twin(cxx_name, bound)
        assert typing.can_convert(native, bound) == Conversion.safe
        assert typing.can_convert(bound, native) == Conversion.safe
        # float16 -> float32 stays the better (promoting) conversion for overload choice
        if native == types.float16:
            assert typing.can_convert(native, types.float32) < Conversion.safe
    other = make_struct_type(types.Type, "my_half", 2, 2)
    assert not link_native_twin("my_half", other)
    wide = make_struct_type(types.Type, "__half", 4, 4)
    assert not link_native_twin("__half", wide)
    assert typing.can_convert(types.float16, other) is None
    assert typing.can_convert(types.float16, wide) is None

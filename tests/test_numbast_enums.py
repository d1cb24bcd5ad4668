"""Enums: IntEnums with the C++ values, usable in kernels, as arguments and as results."""

from __future__ import annotations

import enum

import numpy as np
import pytest
from numba import cuda
from numba.cuda import types
from support import bound_test_header, link_kernel_to_cubin


@pytest.fixture(scope="module")
def lib():
    return bound_test_header("enums.cuh")


def test_enum_values(lib):
    assert issubclass(lib.Color, enum.IntEnum)
    assert [(m.name, m.value) for m in lib.Color] == [("RED", 0), ("GREEN", 5), ("BLUE", 6)]
    assert [(m.name, m.value) for m in lib.Mode] == [("Off", 0), ("Slow", 10), ("Fast", 20)]


def make_kernel(lib):
    Color, Mode, color_weight, next_mode = lib.Color, lib.Mode, lib.color_weight, lib.next_mode

    def kernel(out, chosen):
        out[0] = color_weight(Color.GREEN)
        out[1] = color_weight(Color.BLUE)
        out[2] = next_mode(Mode.Off)
        out[3] = next_mode(chosen)  # an enum passed in as a kernel argument
        out[4] = 1 if next_mode(Mode.Slow) == Mode.Fast else 0

    return kernel


def test_kernel_links_to_sm90_cubin(lib):
    from numba.cuda.typing.typeof import typeof

    mode_type = typeof(lib.Mode.Slow)
    assert link_kernel_to_cubin(make_kernel(lib), (types.int32[:], mode_type))[:4] == b"\x7fELF"


@pytest.mark.gpu
def test_numbers(lib):
    kernel = cuda.jit(make_kernel(lib))
    out = cuda.to_device(np.zeros(5, dtype=np.int32))
    kernel[1, 1](out, lib.Mode.Slow)
    np.testing.assert_array_equal(out.copy_to_host(), [100, 6, 10, 20, 1])


def converting_class_kernel(lib):
    Level, Meter, promote = lib.Level, lib.Meter, lib.promote

    def kernel(out):
        out[0] = 1 if promote(Level.Low) == Level.High else 0  # the built-in comparison
        out[1] = 1 if promote(Level.High) == Level.High else 0
        out[2] = 1 if Meter(3) == Meter(3) else 0  # the class's own operator==
        out[3] = 1 if Meter(3) == 4 else 0  # an int converts where the class is an operand

    return kernel


def test_an_enum_comparison_beside_a_converting_class_is_the_builtin_one():
    lib = bound_test_header("enum_beside_converting_class.cuh")
    cubin = link_kernel_to_cubin(converting_class_kernel(lib), (types.int32[:],))
    assert cubin[:4] == b"\x7fELF"


@pytest.mark.gpu
def test_an_enum_comparison_beside_a_converting_class_numbers():
    lib = bound_test_header("enum_beside_converting_class.cuh")
    out = cuda.to_device(np.zeros(4, dtype=np.int32))
    cuda.jit(converting_class_kernel(lib))[1, 1](out)
    np.testing.assert_array_equal(out.copy_to_host(), [1, 0, 1, 0])

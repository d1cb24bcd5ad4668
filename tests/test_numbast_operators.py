"""Operators: free and member operators bind to Python operators, compound assignment updates
the left operand in place."""

from __future__ import annotations

import numpy as np
import pytest
from numba import cuda
from numba.cuda import types
from support import bound_test_header, link_kernel_to_cubin


@pytest.fixture(scope="module")
def lib():
    return bound_test_header("operators.cuh")


def make_kernel(lib):
    OpVec = lib.OpVec

    def kernel(out, flags):
        a = OpVec(np.float32(1.0), np.float32(2.0))
        b = OpVec(np.float32(3.0), np.float32(5.0))
        s = a + b  # free operator+
        d = b - a  # member operator-
        n = -a  # member unary operator-
        m = a * np.float32(3.0)  # free operator*(OpVec, float)
        dot = a * b  # free operator*(OpVec, OpVec) -> float
        acc = OpVec(np.float32(10.0), np.float32(20.0))
        acc += a  # free operator+=(OpVec&, const OpVec&)
        acc *= np.float32(2.0)  # member operator*=(float)
        out[0], out[1] = s.x, s.y
        out[2], out[3] = d.x, d.y
        out[4], out[5] = n.x, n.y
        out[6], out[7] = m.x, m.y
        out[8] = dot
        out[9], out[10] = acc.x, acc.y
        flags[0] = a == a  # free operator==
        flags[1] = a == b
        flags[2] = a < b  # member operator<
        flags[3] = b < a

    return kernel


SIGNATURE = (types.float32[:], types.boolean[:])


def test_operators_are_bound_to_python_operators(lib):
    import operator

    for op in (operator.add, operator.mul, operator.eq, operator.iadd):
        assert op in lib.operators


def test_kernel_links_to_sm90_cubin(lib):
    assert link_kernel_to_cubin(make_kernel(lib), SIGNATURE)[:4] == b"\x7fELF"


@pytest.mark.gpu
def test_numbers(lib):
    kernel = cuda.jit(make_kernel(lib))
    out = cuda.to_device(np.zeros(11, dtype=np.float32))
    flags = cuda.to_device(np.zeros(4, dtype=np.bool_))
    kernel[1, 1](out, flags)
    np.testing.assert_array_equal(out.copy_to_host(), [4, 7, 2, 3, -1, -2, 3, 6, 13, 22, 44])
    assert list(flags.copy_to_host()) == [True, False, True, False]

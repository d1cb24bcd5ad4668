"""Smoke test of the GPU harness: a kernel launch whose result is checked."""

from __future__ import annotations

import pytest


@pytest.mark.gpu
def test_kernel_launch_computes_squares():
    import numpy as np
    from numba import cuda

    @cuda.jit
    def square(values):
        i = cuda.grid(1)
        if i < values.size:
            values[i] = values[i] * values[i]

    host = np.arange(1000, dtype=np.float32)
    device = cuda.to_device(host)
    square[8, 128](device)
    np.testing.assert_array_equal(device.copy_to_host(), host * host)

"""Patterns real CUDA C++ libraries write, through bindings: template defaults written inside a
namespace (CUB's ``detail::warp_threads``). Each kernel links to an sm_90 cubin here; the GPU
tests check its numbers."""

from __future__ import annotations

import numpy as np
import pytest
from numba import cuda
from numba.cuda import types
from support import bound_test_header, link_kernel_to_cubin


@pytest.fixture(scope="module")
def defaults_lib():
    return bound_test_header("namespace_defaults.cuh")


def defaults_kernel(lib):
    Reducer, scale = lib.Reducer[types.float32], lib.scale

    def kernel(out):
        r = Reducer(np.float32(2.0))  # Threads = detail::warp_threads, Lanes = detail::lanes
        out[0] = r.combine(np.float32(3.0))  # 2 * 3 + 32 + 4 / 8
        out[1] = scale(np.float32(1.5))  # N = detail::warp_threads: 48

    return kernel


def test_namespace_defaults_link_to_sm90_cubin(defaults_lib):
    cubin = link_kernel_to_cubin(defaults_kernel(defaults_lib), (types.float32[:],))
    assert cubin[:4] == b"\x7fELF"
    source = defaults_lib.shim_writer.source()
    assert "nd::Reducer<float, 32, 4>" in source and "nd::scale<float, 32>" in source


@pytest.mark.gpu
def test_namespace_defaults_numbers(defaults_lib):
    out = cuda.to_device(np.zeros(2, dtype=np.float32))
    cuda.jit(defaults_kernel(defaults_lib))[1, 1](out)
    np.testing.assert_allclose(out.copy_to_host(), [38.5, 48.0])

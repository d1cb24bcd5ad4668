"""A bound header (``numbast.bind_header(...)``) is a kernel global as an imported module is:
``geo.clamp(...)``, ``geo.Arr(..., T=..., N=...)`` inside a kernel, as docs/numbast.md shows."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest
from numba import cuda
from numba.cuda import types
from support import link_kernel_to_cubin

GEO = Path(__file__).parent / "data" / "templates" / "geo.cuh"


@pytest.fixture(scope="module")
def geo():
    from numbast import bind_header

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # geo.cuh binds whole; nothing to report here
        return bind_header(GEO)


def kernel_of(geo):
    def kernel(out):
        out[0] = geo.clamp(np.float32(5.0), np.float32(0.0), np.float32(2.0))  # a template
        out[1] = geo.Arr(np.float32(2.0), T=np.float32, N=3).sum()  # arguments by name
        out[2] = geo.times(np.float32(2.5), K=3)

    return kernel


def test_a_bound_header_is_a_kernel_global(geo):
    assert repr(geo).startswith("<bound header: ")
    cubin = link_kernel_to_cubin(kernel_of(geo), (types.float32[:],), arch="sm_90")
    assert cubin[:4] == b"\x7fELF"


@pytest.mark.gpu
def test_a_bound_header_global_computes_on_the_gpu(geo):
    out = np.zeros(3, np.float32)
    cuda.jit(kernel_of(geo))[1, 1](out)
    np.testing.assert_array_equal(out, [2.0, 6.0, 7.5])

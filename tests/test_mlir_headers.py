"""Header modules of the import system in numba-cuda-mlir kernels: the README's quick start
(``import cuda_headers.demo``, examples/demo.cuh) and ``numbast.headers.cufp16`` / ``cubf16``,
generated for the current GPU (else sm_90) in a private cache.

Without numba-cuda-mlir everything here skips (test_mlir_backend.py checks on CPU that the
demo's rows wait for it). With it, the kernels link to sm_90 cubins; on a GPU their numbers
match NumPy's, and the demo's the same kernel's on numba-cuda in the same process.
"""

from __future__ import annotations

import os
from pathlib import Path

import mlir_support
import numpy as np
import pytest
from mlir_support import compile_cubin, mlir_types, numba_cuda_mlir

ROOT = Path(__file__).parent.parent
header_arch = mlir_support.header_arch  # the fixture: generated modules in a private cache


def make_half_kernel(cufp16):
    half, hsqrt = cufp16.__half, cufp16.hsqrt

    def half_kernel(x, out):
        i = 0
        while i < x.size:
            h = half(x[i])
            out[i] = float(hsqrt(h * h + h))
            i += 1

    return half_kernel


def make_bfloat16_kernel(cubf16):
    bfloat16 = cubf16.__nv_bfloat16

    def bfloat16_kernel(x, out):
        i = 0
        while i < x.size:
            h = bfloat16(x[i])
            out[i] = float(h * h + h)
            i += 1

    return bfloat16_kernel


@pytest.fixture(scope="module")
def cufp16(header_arch):
    numba_cuda_mlir()
    from numbast.headers import cufp16

    return cufp16


@pytest.fixture(scope="module")
def cubf16(header_arch):
    numba_cuda_mlir()
    from numbast.headers import cubf16

    return cubf16


def test_cufp16_kernel_links_to_sm90_cubin(cufp16):
    types = mlir_types()
    compile_cubin(make_half_kernel(cufp16), (types.float32[:], types.float32[:]))


def test_cubf16_kernel_links_to_sm90_cubin(cubf16):
    types = mlir_types()
    compile_cubin(make_bfloat16_kernel(cubf16), (types.float32[:], types.float32[:]))


@pytest.fixture(scope="module")
def demo(header_arch):
    """The README's quick start module: ``import cuda_headers.demo`` (examples/demo.cuh, mapped
    in the repository's pyproject.toml)."""
    numba_cuda_mlir()
    saved = os.environ.get("NUMBAST_IMPORT_CONFIG")
    os.environ["NUMBAST_IMPORT_CONFIG"] = str(ROOT / "pyproject.toml")
    try:
        import cuda_headers.demo as demo
    finally:
        if saved is None:
            os.environ.pop("NUMBAST_IMPORT_CONFIG")
        else:
            os.environ["NUMBAST_IMPORT_CONFIG"] = saved
    return demo


DEMO_INPUT = np.array([0.1, 2.5], dtype=np.float64)


def make_demo_kernel(demo, types):
    """The quick start's kernel (examples/quickstart.py), then the same on inputs; ``types``
    is the compiler's (numba-cuda-mlir kernels name ``numba_cuda_mlir.types``)."""
    myfloat16, hsqrt = demo.__myfloat16, demo.hsqrt

    def demo_kernel(x, arr):
        one = myfloat16(1.0)
        two = myfloat16(2.0)
        three = one + two  # the header's operator+
        arr[0] = types.float64(three)
        arr[1] = types.float64(hsqrt(three))
        a = myfloat16(x[0])
        b = myfloat16(x[1])
        arr[2] = float(a + b)
        arr[3] = float(hsqrt(b))

    return demo_kernel


def expected_demo(x: np.ndarray) -> np.ndarray:
    """Every value rounds to half from double, as __double2half does (to nearest, ties even)."""

    def half(v):
        return np.float64(np.float16(v))

    return np.array(
        [3.0, half(np.sqrt(3.0)), half(half(x[0]) + half(x[1])), half(np.sqrt(half(x[1])))]
    )


def test_seed_demo_kernel_links_to_sm90_cubin(demo):
    """On numba-cuda-mlir, and on numba-cuda in the same process."""
    from numba.cuda import types as cuda_types
    from support import link_kernel_to_cubin

    types = mlir_types()
    compile_cubin(make_demo_kernel(demo, types), (types.float64[:], types.float64[:]))
    signature = (cuda_types.float64[:], cuda_types.float64[:])
    assert link_kernel_to_cubin(make_demo_kernel(demo, cuda_types), signature)[:4] == b"\x7fELF"


@pytest.mark.gpu
def test_seed_demo_numbers_match_numpy_and_numba_cuda(demo):
    numba_cuda_mlir()
    from numba import cuda as numba_cuda
    from numba.cuda import types as cuda_types
    from numba_cuda_mlir import cuda, types

    out = cuda.device_array(4, np.float64)
    cuda.jit(make_demo_kernel(demo, types))[1, 1](cuda.to_device(DEMO_INPUT), out)
    got = out.copy_to_host()
    np.testing.assert_array_equal(got, expected_demo(DEMO_INPUT))

    classic = numba_cuda.device_array(4, np.float64)
    kernel = numba_cuda.jit(make_demo_kernel(demo, cuda_types))
    kernel[1, 1](numba_cuda.to_device(DEMO_INPUT), classic)
    np.testing.assert_array_equal(classic.copy_to_host(), got)


@pytest.mark.gpu
def test_cufp16_kernel_numbers_match_numpy(cufp16):
    numba_cuda_mlir()
    from numba_cuda_mlir import cuda

    x = np.linspace(0.0, 4.0, 33, dtype=np.float32)
    out = cuda.device_array(x.size, np.float32)
    cuda.jit(make_half_kernel(cufp16))[1, 1](cuda.to_device(x), out)
    h = x.astype(np.float16)
    expected = np.sqrt((h * h + h).astype(np.float16)).astype(np.float32)
    np.testing.assert_allclose(out.copy_to_host(), expected, rtol=2e-3)


def round_to_bfloat16(values: np.ndarray) -> np.ndarray:
    """float32 -> the nearest bfloat16 (ties to even), as float32."""
    bits = values.astype(np.float32).view(np.uint32)
    rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000
    return rounded.astype(np.uint32).view(np.float32)


@pytest.mark.gpu
def test_cubf16_kernel_numbers_match_numpy(cubf16):
    numba_cuda_mlir()
    from numba_cuda_mlir import cuda

    x = np.linspace(-3.0, 3.0, 37, dtype=np.float32)
    out = cuda.device_array(x.size, np.float32)
    cuda.jit(make_bfloat16_kernel(cubf16))[1, 1](cuda.to_device(x), out)
    h = round_to_bfloat16(x)
    # __hmul and __hadd allow contraction (__hmul_rn would not): each element is h * h + h
    # rounded twice, or once when fused into an FMA; they differ by more than an ulp where the
    # sum cancels (h near -1), so each element must equal one of the two exactly
    unfused = round_to_bfloat16(round_to_bfloat16(h * h) + h)
    wide = h.astype(np.float64)
    fused = round_to_bfloat16((wide * wide + wide).astype(np.float32))
    got = out.copy_to_host()
    assert np.all((got == unfused) | (got == fused)), np.c_[x, got, unfused, fused]

"""PyCUDA's ``pycuda.curandom.rand``: uniformly distributed random numbers in [0, 1) made on
the device, each element from a counter-based hash (SplitMix64) of a fresh 64-bit seed and
the element's index. Not PyCUDA's generator: the same program gives other numbers."""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

__all__ = ["rand"]

_MIX = """
__device__ inline unsigned long long numbast_mix64(unsigned long long x)
{
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}
"""
# the top 24 (float) or 53 (double) bits as a fraction: exactly representable, below 1
_TO_UNIT = {
    np.dtype(np.float32): "(float)(numbast_mix64(seed + i) >> 40) * 0x1.0p-24f",
    np.dtype(np.float64): "(double)(numbast_mix64(seed + i) >> 11) * 0x1.0p-53",
}
_seeds = np.random.default_rng()


@functools.cache
def _kernel(dtype: np.dtype) -> Any:
    from numbast_import.elementwise import ElementwiseKernel
    from numbast_import.rtc.dtypes import dtype_to_ctype

    return ElementwiseKernel(
        f"{dtype_to_ctype(dtype)} *out, unsigned long long seed",
        f"out[i] = {_TO_UNIT[dtype]}",
        "numbast_rand",
        preamble=_MIX,
    )


def rand(shape: Any, dtype: Any = np.float32, stream: Any = None) -> Any:
    """A GPUArray of ``shape`` filled with uniform random numbers in [0, 1)."""
    from numbast_import.gpuarray import GPUArray

    dtype = np.dtype(dtype)
    if dtype not in _TO_UNIT:
        raise NotImplementedError(f"rand makes float32 and float64 numbers, not {dtype}")
    result = GPUArray(shape, dtype)
    if result.size:
        seed = np.uint64(_seeds.integers(0, 2**63)) * np.uint64(2)
        _kernel(dtype)(result, seed, stream=stream)
    return result

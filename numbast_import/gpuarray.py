"""PyCUDA's ``pycuda.gpuarray``: numpy-like arrays in device memory.

    from numbast_import import gpuarray
    a_gpu = gpuarray.to_gpu(np.arange(8, dtype=np.float32))
    (2 * a_gpu + 1).get()

A GPUArray passes to kernels (``Function.__call__``, ElementwiseKernel, ReductionKernel) as a
pointer, and to CuPy, Numba and PyTorch through ``__cuda_array_interface__``;
``as_gpuarray(x)`` views their arrays (or anything with that interface) as a GPUArray without
copying. Arithmetic and comparisons combine arrays of one shape, 0-d arrays and scalars,
with numpy's result types. See docs/rtc.md for what is provided.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from numbast_import.rtc import array_ops
from numbast_import.rtc.dtypes import vec
from numbast_import.rtc.gpu_array import GPUArray, as_gpuarray, operand
from numbast_import.rtc.launch_shapes import splay

__all__ = [
    "GPUArray",
    "arange",
    "as_gpuarray",
    "dot",
    "empty",
    "empty_like",
    "max",
    "min",
    "ones",
    "ones_like",
    "splay",
    "sum",
    "to_gpu",
    "to_gpu_async",
    "vec",
    "zeros",
    "zeros_like",
]


def to_gpu(ary: Any, allocator: Any = None) -> GPUArray:
    """A new GPUArray holding a copy of ``ary`` (a numpy array, or a device array)."""
    if hasattr(ary, "__cuda_array_interface__"):
        source = as_gpuarray(ary)
        return source.copy()
    ary = np.asarray(ary)
    if not (ary.flags.c_contiguous or ary.flags.f_contiguous):
        ary = np.ascontiguousarray(ary)
    order = "F" if ary.flags.f_contiguous and not ary.flags.c_contiguous else "C"
    result = GPUArray(ary.shape, ary.dtype, allocator, order=order)
    result.set(ary)
    return result


def to_gpu_async(ary: Any, allocator: Any = None, stream: Any = None) -> GPUArray:
    ary = np.asarray(ary)
    order = "F" if ary.flags.f_contiguous and not ary.flags.c_contiguous else "C"
    result = GPUArray(ary.shape, ary.dtype, allocator, order=order)
    result.set_async(ary, stream)
    return result


empty = GPUArray


def zeros(shape: Any, dtype: Any = np.float64, allocator: Any = None, order: str = "C"):
    return GPUArray(shape, dtype, allocator, order=order).fill(0)


def ones(shape: Any, dtype: Any = np.float64, allocator: Any = None, order: str = "C"):
    return GPUArray(shape, dtype, allocator, order=order).fill(1)


def _like(other: Any, dtype: Any, order: str) -> GPUArray:
    other = operand(other)
    if order == "K":
        order = "F" if other.flags.f_contiguous and not other.flags.c_contiguous else "C"
    allocator = getattr(other, "allocator", None)
    return GPUArray(other.shape, other.dtype if dtype is None else dtype, allocator, order=order)


def empty_like(other_ary: Any, dtype: Any = None, order: str = "K") -> GPUArray:
    return _like(other_ary, dtype, order)


def zeros_like(other_ary: Any, dtype: Any = None, order: str = "K") -> GPUArray:
    return _like(other_ary, dtype, order).fill(0)


def ones_like(other_ary: Any, dtype: Any = None, order: str = "K") -> GPUArray:
    return _like(other_ary, dtype, order).fill(1)


def arange(*args: Any, dtype: Any = None, allocator: Any = None, stream: Any = None) -> GPUArray:
    """numpy's ``arange(start, stop, step)`` computed on the device."""
    template = np.arange(*args[:3], dtype=dtype) if len(args) else None
    if template is None:
        raise TypeError("arange needs at least stop")
    start, step = (0, 1) if len(args) == 1 else (args[0], args[2] if len(args) > 2 else 1)
    result = GPUArray(template.shape, template.dtype, allocator)
    if result.size:
        array_ops.arange_into(result, start, step, stream)
    return result


def sum(a: GPUArray, dtype: Any = None, stream: Any = None, allocator: Any = None):  # noqa: A001
    from numbast_import.reduction import get_sum_kernel

    a = operand(a)
    dtype_out = np.dtype(dtype) if dtype is not None else np.zeros(1, a.dtype).sum().dtype
    return get_sum_kernel(dtype_out, a.dtype)(a, stream=stream, allocator=allocator)


def dot(a: GPUArray, b: GPUArray, dtype: Any = None, stream: Any = None, allocator: Any = None):
    from numbast_import.reduction import get_dot_kernel

    a, b = operand(a), operand(b)
    dtype_out = np.dtype(dtype) if dtype is not None else np.result_type(a.dtype, b.dtype)
    return get_dot_kernel(dtype_out, a.dtype, b.dtype)(a, b, stream=stream, allocator=allocator)


def _extreme(what: str, a: Any, stream: Any) -> GPUArray:
    from numbast_import.reduction import get_minmax_kernel

    a = operand(a)
    if a.size == 0:
        raise ValueError(f"{what} of an empty array")
    return get_minmax_kernel(what, a.dtype)(a, stream=stream)


def min(a: GPUArray, stream: Any = None) -> GPUArray:  # noqa: A001
    return _extreme("min", a, stream)


def max(a: GPUArray, stream: Any = None) -> GPUArray:  # noqa: A001
    return _extreme("max", a, stream)

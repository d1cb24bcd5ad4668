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

import math
from typing import Any

import numpy as np

from numbast_import.rtc import array_ops, memory
from numbast_import.rtc.array_layout import (
    byte_span,
    contiguous_strides,
    is_contiguous,
    normalize_shape,
)
from numbast_import.rtc.array_operators import ArrayOperators, operand
from numbast_import.rtc.array_views import ArrayViews
from numbast_import.rtc.dtypes import vec
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


class _Flags:
    __slots__ = ("c_contiguous", "f_contiguous", "forc")

    def __init__(self, c: bool, f: bool) -> None:
        self.c_contiguous, self.f_contiguous, self.forc = c, f, c or f


class GPUArray(ArrayOperators, ArrayViews):
    """An array in device memory: ``shape``, ``dtype``, ``size``, ``nbytes``, ``strides``,
    ``gpudata`` (the allocation, or an address for views), ``ptr`` (the first element's
    address), ``get()`` / ``set()``; ``allocator(nbytes)`` makes the memory (``mem_alloc``,
    or a DeviceMemoryPool's ``allocate``)."""

    __array_ufunc__ = None  # numpy scalar * GPUArray: numpy defers to GPUArray.__rmul__

    def __init__(
        self,
        shape: Any,
        dtype: Any,
        allocator: Any = None,
        base: Any = None,
        gpudata: Any = None,
        strides: Any = None,
        order: str = "C",
    ) -> None:
        self.shape = normalize_shape(shape)
        self.dtype = np.dtype(dtype)
        self.size = math.prod(self.shape)
        self.nbytes = self.size * self.dtype.itemsize
        self.mem_size = self.size  # PyCUDA's name for the element count
        if strides is None:
            strides = contiguous_strides(self.shape, self.dtype.itemsize, order)
        self.strides = tuple(int(s) for s in strides)
        itemsize = self.dtype.itemsize
        self.flags = _Flags(
            is_contiguous(self.shape, self.strides, itemsize, "C"),
            is_contiguous(self.shape, self.strides, itemsize, "F"),
        )
        self._contiguous = self.flags.forc
        self.base = base
        self.allocator = allocator or memory.mem_alloc
        if gpudata is None and self.size:
            gpudata = self.allocator(self.nbytes)
        self.gpudata = gpudata
        self._pointer = int(gpudata) if gpudata is not None else 0
        self._grid, self._block = splay(self.size)

    # -- description -------------------------------------------------------------------------

    @property
    def ptr(self) -> int:
        return self._pointer

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def itemsize(self) -> int:
        return self.dtype.itemsize

    @property
    def __cuda_array_interface__(self) -> dict[str, Any]:
        return {
            "shape": self.shape,
            "typestr": self.dtype.str,
            "descr": self.dtype.descr,
            "data": (self._pointer, False),
            "strides": self.strides,
            "stream": None,
            "version": 3,
        }

    def __len__(self) -> int:
        if not self.shape:
            raise TypeError("len() of a 0-d array")
        return self.shape[0]

    def __bool__(self) -> bool:
        if self.size != 1:
            raise ValueError("the truth value of an array with more than one element is ambiguous")
        return bool(self.get())

    __hash__ = None  # type: ignore[assignment]  # mutable, and == is elementwise

    def __repr__(self) -> str:
        return repr(self.get())

    def __str__(self) -> str:
        return str(self.get())

    def _new_like_me(self, dtype: Any = None, order: str = "C") -> GPUArray:
        return GPUArray(
            self.shape, self.dtype if dtype is None else dtype, self.allocator, order=order
        )

    def _view(self, shape: Any, strides: Any, offset: int = 0, dtype: Any = None) -> GPUArray:
        return GPUArray(
            shape,
            self.dtype if dtype is None else dtype,
            self.allocator,
            base=self,
            gpudata=self._pointer + offset,
            strides=strides,
        )

    # -- host transfers ----------------------------------------------------------------------

    def set(self, ary: Any, async_: bool = False, stream: Any = None) -> None:
        """Copy the host array ``ary`` (same size and dtype) into this contiguous array."""
        ary = np.asarray(ary)
        if ary.size != self.size or ary.dtype != self.dtype:
            raise ValueError(
                f"cannot set a {self.shape} {self.dtype} array from a {ary.shape} {ary.dtype} one"
            )
        if not self._contiguous:
            raise ValueError("set() needs a contiguous GPUArray")
        if self.size:
            order = "F" if self.flags.f_contiguous and not self.flags.c_contiguous else "C"
            host = np.require(ary.reshape(self.shape, order=order), requirements=order)
            if async_ or stream is not None:
                memory.memcpy_htod_async(self._pointer, host, stream)
            else:
                memory.memcpy_htod(self._pointer, host)

    def set_async(self, ary: Any, stream: Any = None) -> None:
        self.set(ary, async_=True, stream=stream)

    def get(
        self, ary: Any = None, pagelocked: bool = False, async_: bool = False, stream: Any = None
    ) -> np.ndarray:
        """The array's contents as a numpy array (into ``ary`` when given)."""
        if not self._contiguous:
            return self._get_strided(ary)
        order = "F" if self.flags.f_contiguous and not self.flags.c_contiguous else "C"
        if ary is None:
            if pagelocked:
                from numbast_import.rtc.host_memory import pagelocked_empty

                ary = pagelocked_empty(self.shape, self.dtype, order)
            else:
                ary = np.empty(self.shape, self.dtype, order=order)
        elif ary.size != self.size or ary.dtype != self.dtype:
            raise ValueError("get(ary): ary must have this array's size and dtype")
        if self.size:
            if async_ or stream is not None:
                memory.memcpy_dtoh_async(ary, self._pointer, stream)
            else:
                memory.memcpy_dtoh(ary, self._pointer)
        return ary

    def get_async(self, stream: Any = None, ary: Any = None) -> np.ndarray:
        return self.get(ary, async_=True, stream=stream)

    def _get_strided(self, ary: Any) -> np.ndarray:
        # copy the bytes the elements span, then pick the elements on the host
        low, high = byte_span(self.shape, self.strides, self.dtype.itemsize)
        span = np.empty(high - low, np.uint8)
        if high > low:
            memory.memcpy_dtoh(span, self._pointer + low)
        view = np.ndarray(self.shape, self.dtype, buffer=span, offset=-low, strides=self.strides)
        if ary is None:
            return np.array(view)
        ary[...] = view
        return ary

    def copy(self) -> GPUArray:
        new = self._new_like_me()
        if self._contiguous:
            if self.size:
                memory.memcpy_dtod(new._pointer, self._pointer, self.nbytes)
        else:
            new.set(self.get())
        return new

    # -- textures ----------------------------------------------------------------------------

    def bind_to_texref(self, texref: Any, allow_offset: bool = False) -> int:
        return texref.set_address(self._pointer, self.nbytes, allow_offset=allow_offset)

    def bind_to_texref_ext(
        self,
        texref: Any,
        channels: int = 1,
        allow_double_hack: bool = False,
        allow_complex_hack: bool = False,
        allow_offset: bool = False,
    ) -> int:
        """Let ``texref`` read this array; doubles are read as int2 (and complex numbers as
        float2 / int4) when the kernel declares the texture with those types."""
        from numbast_import.rtc.arrays import dtype_to_array_format

        dtype, element_channels = self.dtype, 1
        if dtype == np.float64 and allow_double_hack:
            dtype, element_channels = np.dtype(np.int32), 2
        elif dtype.kind == "c" and allow_complex_hack:
            part = np.float32 if dtype == np.complex64 else np.int32
            dtype, element_channels = np.dtype(part), 2 if dtype == np.complex64 else 4
        texref.set_format(dtype_to_array_format(dtype), channels * element_channels)
        return self.bind_to_texref(texref, allow_offset)


def as_gpuarray(obj: Any) -> GPUArray:
    """A GPUArray over the memory of ``obj`` (a GPUArray, or a CuPy, Numba or PyTorch array:
    anything with ``__cuda_array_interface__``), without copying; ``obj`` is kept alive."""
    if isinstance(obj, GPUArray):
        return obj
    interface = obj.__cuda_array_interface__
    stream = interface.get("stream")
    if stream not in (None, 1, 2):  # version 3: finish the producer's work before using it
        memory.check(memory.driver().cuStreamSynchronize(stream), "cuStreamSynchronize")
    descr = interface.get("descr")
    structured = descr and any(name for name, *_rest in descr)
    dtype = np.dtype(descr if structured else interface["typestr"])
    pointer = int(interface["data"][0])
    return GPUArray(
        interface["shape"],
        dtype,
        base=obj,
        gpudata=pointer or None,
        strides=interface.get("strides"),
    )


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

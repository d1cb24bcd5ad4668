"""The GPUArray class (PyCUDA's ``pycuda.gpuarray.GPUArray``): device memory with a shape,
dtype and strides, host transfers, textures; its arithmetic and views are mixins
(``array_operators``, ``array_views``). ``numbast_import.gpuarray`` is the public module:
it adds the constructors and the reductions (``sum``, ``dot``, ...), which make GPUArrays.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from numbast_import.rtc import memory
from numbast_import.rtc.array_layout import (
    byte_span,
    contiguous_strides,
    is_contiguous,
    normalize_shape,
)
from numbast_import.rtc.array_operators import ArrayOperators
from numbast_import.rtc.array_views import ArrayViews
from numbast_import.rtc.launch_shapes import splay


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
        return type(self)(
            self.shape, self.dtype if dtype is None else dtype, self.allocator, order=order
        )

    def _view(self, shape: Any, strides: Any, offset: int = 0, dtype: Any = None) -> GPUArray:
        return type(self)(
            shape,
            self.dtype if dtype is None else dtype,
            self.allocator,
            base=self,
            gpudata=self._pointer + offset,
            strides=strides,
        )

    @classmethod
    def _adopt(cls, obj: Any) -> GPUArray:
        """``as_gpuarray``: this class over the memory of ``obj``, without copying."""
        if isinstance(obj, cls):
            return obj
        interface = obj.__cuda_array_interface__
        memory.wait_for_producer(interface)
        descr = interface.get("descr")
        structured = descr and any(name for name, *_rest in descr)
        dtype = np.dtype(descr if structured else interface["typestr"])
        pointer = int(interface["data"][0])
        return cls(
            interface["shape"],
            dtype,
            base=obj,
            gpudata=pointer or None,
            strides=interface.get("strides"),
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
    return GPUArray._adopt(obj)


def operand(value: Any) -> Any:
    """A GPUArray for device arrays of other libraries (``__cuda_array_interface__``);
    numbers and GPUArrays stay as they are."""
    if isinstance(value, GPUArray) or not hasattr(value, "__cuda_array_interface__"):
        return value
    return as_gpuarray(value)

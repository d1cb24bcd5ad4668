"""Host memory for fast and asynchronous copies: page-locked (``pagelocked_empty``), page-locked
after the fact (``register_host_memory``), and page-aligned (``aligned_empty``), as numpy
arrays whose ``base`` is the object that owns the memory (PyCUDA's ``HostAllocation`` /
``RegisteredHostMemory``: ``ary.base.get_device_pointer()`` for mapped memory).
"""

from __future__ import annotations

import ctypes
import logging
from typing import Any

import numpy as np

from numbast_import.rtc.context import check, driver, ensure_context

logger = logging.getLogger(__name__)


class HostMemory:
    """Host memory seen by numpy through ``__array_interface__`` (so it is the array's base)."""

    address = 0
    _interface: dict[str, Any] | None = None

    def describe(self, shape: Any, dtype: np.dtype, order: str) -> None:
        shape = tuple(shape) if np.iterable(shape) else (int(shape),)
        strides = None
        if order == "F" and len(shape) > 1:
            step, strides_list = dtype.itemsize, []
            for extent in shape:
                strides_list.append(step)
                step *= extent
            strides = tuple(strides_list)
        self._interface = {
            "shape": shape,
            "typestr": dtype.str,
            "descr": dtype.descr,
            "data": (self.address, False),
            "strides": strides,
            "version": 3,
        }

    @property
    def __array_interface__(self) -> dict[str, Any]:
        if self._interface is None:
            raise TypeError("this host memory has no array description")
        return self._interface

    def get_device_pointer(self) -> int:
        """The device address of mapped memory (``host_alloc_flags.DEVICEMAP``)."""
        return int(check(driver().cuMemHostGetDevicePointer(self.address, 0), "device pointer"))


class PinnedHostMemory(HostMemory):
    """Page-locked host memory (``cuMemHostAlloc``), freed with its last array."""

    def __init__(self, nbytes: int, flags: int = 0) -> None:
        ensure_context()
        self.nbytes = int(nbytes)
        self.address = int(check(driver().cuMemHostAlloc(max(nbytes, 1), flags), "cuMemHostAlloc"))

    def release(self) -> None:
        if self.address:
            address, self.address = self.address, 0
            check(driver().cuMemFreeHost(address), "cuMemFreeHost")

    free = release

    def __del__(self) -> None:
        try:
            self.release()
        except Exception as exc:  # interpreter shutdown or a dead context
            logger.debug("freeing pinned memory failed: %s", exc)


def pinned_array(holder: HostMemory, shape: Any, dtype: Any, order: str = "C") -> np.ndarray:
    """A numpy array over ``holder``'s memory (``holder.address``); ``holder`` becomes the
    array's ``base`` (one array per holder)."""
    holder.describe(shape, np.dtype(dtype), order)
    return np.asarray(holder)


def pagelocked_empty(shape: Any, dtype: Any, order: str = "C", mem_flags: int = 0) -> np.ndarray:
    """A numpy array in page-locked host memory (for asynchronous copies)."""
    dtype = np.dtype(dtype)
    count = int(np.prod(shape))
    return pinned_array(PinnedHostMemory(count * dtype.itemsize, mem_flags), shape, dtype, order)


def pagelocked_zeros(shape: Any, dtype: Any, order: str = "C", mem_flags: int = 0) -> np.ndarray:
    array = pagelocked_empty(shape, dtype, order, mem_flags)
    array.fill(0)
    return array


def _order_of(array: Any) -> str:
    return "F" if array.flags.f_contiguous and not array.flags.c_contiguous else "C"


def pagelocked_empty_like(array: Any, mem_flags: int = 0) -> np.ndarray:
    return pagelocked_empty(array.shape, array.dtype, _order_of(array), mem_flags)


def pagelocked_zeros_like(array: Any, mem_flags: int = 0) -> np.ndarray:
    return pagelocked_zeros(array.shape, array.dtype, _order_of(array), mem_flags)


class _AlignedHostMemory(HostMemory):
    def __init__(self, nbytes: int, alignment: int) -> None:
        self._buffer = ctypes.create_string_buffer(max(nbytes, 1) + alignment)
        start = ctypes.addressof(self._buffer)
        self.address = (start + alignment - 1) // alignment * alignment


def aligned_empty(shape: Any, dtype: Any, order: str = "C", alignment: int = 4096) -> np.ndarray:
    """A numpy array whose data starts on an ``alignment``-byte boundary (for
    ``register_host_memory``)."""
    dtype = np.dtype(dtype)
    nbytes = int(np.prod(shape)) * dtype.itemsize
    return pinned_array(_AlignedHostMemory(nbytes, alignment), shape, dtype, order)


def aligned_zeros(shape: Any, dtype: Any, order: str = "C", alignment: int = 4096) -> np.ndarray:
    array = aligned_empty(shape, dtype, order, alignment)
    array.fill(0)
    return array


def aligned_empty_like(array: Any, alignment: int = 4096) -> np.ndarray:
    return aligned_empty(array.shape, array.dtype, _order_of(array), alignment)


class RegisteredHostMemory(HostMemory):
    """Existing host memory page-locked with ``cuMemHostRegister`` until this goes away."""

    def __init__(self, array: np.ndarray, flags: int) -> None:
        ensure_context()
        self.base = array  # the memory's owner stays alive while registered
        self.address = int(array.ctypes.data)
        check(driver().cuMemHostRegister(self.address, max(array.nbytes, 1), flags), "register")

    def unregister(self) -> None:
        if self.address:
            address, self.address = self.address, 0
            check(driver().cuMemHostUnregister(address), "cuMemHostUnregister")

    def __del__(self) -> None:
        try:
            self.unregister()
        except Exception as exc:  # interpreter shutdown or a dead context
            logger.debug("unregistering host memory failed: %s", exc)


def register_host_memory(ary: np.ndarray, flags: int = 0) -> np.ndarray:
    """``ary``'s memory page-locked: an array over the same memory, whose ``base`` is the
    RegisteredHostMemory (unregistered when the array goes)."""
    if not ary.flags.c_contiguous and not ary.flags.f_contiguous:
        raise ValueError("register_host_memory needs a contiguous array")
    return pinned_array(RegisteredHostMemory(ary, flags), ary.shape, ary.dtype, _order_of(ary))

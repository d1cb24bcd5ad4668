"""The part of PyCUDA's driver API (``pycuda.driver``) that its programs use, on cuda.core
and cuda.bindings: ``import numbast_import.driver as drv``.

Memory from Numba, CuPy and PyTorch arrays (``__cuda_array_interface__``) works wherever a
DeviceAllocation does. See docs/rtc.md.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from numbast_import.rtc.args import ArgumentHandler, In, InOut, Out
from numbast_import.rtc.arrays import (
    Array,
    ArrayDescriptor,
    ArrayDescriptor3D,
    Memcpy2D,
    Memcpy3D,
    dtype_to_array_format,
    make_multichannel_2d_array,
    matrix_to_array,
)
from numbast_import.rtc.context import (
    Context,
    Device,
    Error,
    LaunchError,
    LogicError,
    MemoryError,
    RuntimeError,
    init,
)
from numbast_import.rtc.enums import (
    TRSA_OVERRIDE_FORMAT,
    TRSF_NORMALIZED_COORDINATES,
    TRSF_READ_AS_INTEGER,
    TRSF_SRGB,
    address_mode,
    array_format,
    event_flags,
    filter_mode,
)
from numbast_import.rtc.function import Function
from numbast_import.rtc.memory import (
    DeviceAllocation,
    from_device,
    from_device_like,
    mem_alloc,
    mem_alloc_like,
    mem_get_info,
    memcpy_dtod,
    memcpy_dtod_async,
    memcpy_dtoh,
    memcpy_dtoh_async,
    memcpy_htod,
    memcpy_htod_async,
    memset_d8,
    memset_d16,
    memset_d32,
    pagelocked_empty,
    pagelocked_empty_like,
    pagelocked_zeros,
    to_device,
)
from numbast_import.rtc.module import Module
from numbast_import.rtc.streams import Event, Stream
from numbast_import.rtc.textures import TextureReference, matrix_to_texref

__all__ = [
    "TRSA_OVERRIDE_FORMAT", "TRSF_NORMALIZED_COORDINATES", "TRSF_READ_AS_INTEGER", "TRSF_SRGB",
    "Array", "ArgumentHandler", "ArrayDescriptor", "ArrayDescriptor3D", "Context",
    "Device", "DeviceAllocation", "Error", "Event", "Function", "In", "InOut", "LaunchError",
    "LogicError", "Memcpy2D", "Memcpy3D", "MemoryError", "Module", "Out", "RuntimeError",
    "Stream", "TextureReference", "address_mode", "array_format", "dtype_to_array_format",
    "event_flags", "filter_mode", "from_device", "from_device_like", "init",
    "make_multichannel_2d_array", "matrix_to_array", "matrix_to_texref", "mem_alloc",
    "mem_alloc_like", "mem_get_info", "memcpy_dtod", "memcpy_dtod_async", "memcpy_dtoh",
    "memcpy_dtoh_async", "memcpy_htod", "memcpy_htod_async", "memset_d8", "memset_d16",
    "memset_d32", "module_from_buffer", "module_from_file", "pagelocked_empty",
    "pagelocked_empty_like", "pagelocked_zeros", "to_device",
]  # fmt: skip


def module_from_buffer(buffer: Any, options: Any = None, message_handler: Any = None) -> Module:
    """A Module from a cubin, fatbin or PTX image."""
    return Module.from_buffer(buffer)


def module_from_file(filename: str) -> Module:
    return Module.from_buffer(Path(filename).read_bytes())


def get_version() -> tuple[int, int, int]:
    """The CUDA version this package's bindings were built for, as PyCUDA's get_version."""
    from cuda import bindings

    parts = [int(p) for p in bindings.__version__.split(".")[:3]]
    return (parts + [0, 0, 0])[:3]  # type: ignore[return-value]


def get_driver_version() -> int:
    from numbast_import.rtc.context import check, driver

    init()
    return int(check(driver().cuDriverGetVersion(), "cuDriverGetVersion"))


def __getattr__(name: str) -> Any:
    # device_attribute, function_attribute and func_cache are built from cuda.bindings
    if name in ("device_attribute", "function_attribute", "func_cache"):
        from numbast_import.rtc import enums

        return getattr(enums, name)
    raise AttributeError(f"module 'numbast_import.driver' has no attribute {name!r}")

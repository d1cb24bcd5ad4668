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
    PointerHolderBase,
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
    ctx_flags,
    event_flags,
    filter_mode,
    host_alloc_flags,
    jit_input_type,
    mem_host_register_flags,
)
from numbast_import.rtc.function import Function
from numbast_import.rtc.host_memory import (
    aligned_empty,
    aligned_empty_like,
    aligned_zeros,
    pagelocked_empty,
    pagelocked_empty_like,
    pagelocked_zeros,
    pagelocked_zeros_like,
    register_host_memory,
)
from numbast_import.rtc.memory import (
    DeviceAllocation,
    from_device,
    from_device_like,
    mem_alloc,
    mem_alloc_like,
    mem_alloc_pitch,
    mem_get_info,
    memcpy_dtod,
    memcpy_dtod_async,
    memcpy_dtoh,
    memcpy_dtoh_async,
    memcpy_htod,
    memcpy_htod_async,
    memset_d8,
    memset_d8_async,
    memset_d16,
    memset_d16_async,
    memset_d32,
    memset_d32_async,
    to_device,
)
from numbast_import.rtc.module import Module
from numbast_import.rtc.streams import Event, Stream
from numbast_import.rtc.textures import TextureReference, matrix_to_texref

__all__ = [
    "TRSA_OVERRIDE_FORMAT", "TRSF_NORMALIZED_COORDINATES", "TRSF_READ_AS_INTEGER", "TRSF_SRGB",
    "Array", "ArgumentHandler", "ArrayDescriptor", "ArrayDescriptor3D", "Context",
    "Device", "DeviceAllocation", "Error", "Event", "Function", "In", "InOut", "LaunchError",
    "LogicError", "Memcpy2D", "Memcpy3D", "MemoryError", "Module", "Out", "PointerHolderBase",
    "RuntimeError", "Stream", "TextureReference", "address_mode", "aligned_empty",
    "aligned_empty_like", "aligned_zeros", "array_format", "bind_array_to_texref", "ctx_flags",
    "dtype_to_array_format", "event_flags", "filter_mode", "from_device", "from_device_like",
    "get_driver_version", "get_version", "host_alloc_flags", "init", "jit_input_type",
    "make_multichannel_2d_array", "matrix_to_array", "matrix_to_texref", "mem_alloc",
    "mem_alloc_like", "mem_alloc_pitch", "mem_get_info", "mem_host_register_flags",
    "memcpy_dtod", "memcpy_dtod_async", "memcpy_dtoh", "memcpy_dtoh_async", "memcpy_htod",
    "memcpy_htod_async", "memset_d8", "memset_d8_async", "memset_d16", "memset_d16_async",
    "memset_d32", "memset_d32_async", "module_from_buffer", "module_from_file",
    "pagelocked_empty", "pagelocked_empty_like", "pagelocked_zeros", "pagelocked_zeros_like",
    "register_host_memory", "to_device",
]  # fmt: skip

_LAZY_ENUMS = ("device_attribute", "function_attribute", "func_cache", "limit", "compute_mode",
               "shared_config")  # fmt: skip


def module_from_buffer(buffer: Any, options: Any = None, message_handler: Any = None) -> Module:
    """A Module from a cubin, fatbin or PTX image."""
    return Module.from_buffer(buffer)


def module_from_file(filename: str) -> Module:
    return Module.from_buffer(Path(filename).read_bytes())


def bind_array_to_texref(ary: Array, texref: TextureReference) -> None:
    """``texref`` reads the CUDA array ``ary`` (PyCUDA's helper)."""
    texref.set_array(ary)


def get_version() -> tuple[int, int, int]:
    """The CUDA version this package's bindings were built for, as PyCUDA's get_version."""
    from cuda import bindings

    parts = [int(p) for p in bindings.__version__.split(".")[:3]]
    major, minor, patch = (parts + [0, 0, 0])[:3]
    return (major, minor, patch)


def get_driver_version() -> int:
    from numbast_import.rtc.context import check, driver

    init()
    return int(check(driver().cuDriverGetVersion(), "cuDriverGetVersion"))


def __getattr__(name: str) -> Any:
    # device_attribute, function_attribute, limit, ... are built from cuda.bindings
    if name in _LAZY_ENUMS:
        from numbast_import.rtc import enums

        return getattr(enums, name)
    raise AttributeError(f"module 'numbast_import.driver' has no attribute {name!r}")

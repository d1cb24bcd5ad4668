"""PyCUDA's enum spellings (``drv.array_format.FLOAT``, ``drv.address_mode.WRAP``, ...) as
IntEnums of the driver's values; the large ones are built from cuda.bindings on first use."""

from __future__ import annotations

import enum


class array_format(enum.IntEnum):
    UNSIGNED_INT8 = 0x01
    UNSIGNED_INT16 = 0x02
    UNSIGNED_INT32 = 0x03
    SIGNED_INT8 = 0x08
    SIGNED_INT16 = 0x09
    SIGNED_INT32 = 0x0A
    HALF = 0x10
    FLOAT = 0x20


class address_mode(enum.IntEnum):
    WRAP = 0
    CLAMP = 1
    MIRROR = 2
    BORDER = 3


class filter_mode(enum.IntEnum):
    POINT = 0
    LINEAR = 1


# Texture reference flags (CU_TRSF_*) and the set_array flag (CU_TRSA_OVERRIDE_FORMAT).
TRSF_READ_AS_INTEGER = 0x01
TRSF_NORMALIZED_COORDINATES = 0x02
TRSF_SRGB = 0x10
TRSA_OVERRIDE_FORMAT = 0x01


class jit_input_type(enum.IntEnum):
    """Kinds of device code for ``DynamicModule.add_data`` (the driver's CUjitInputType;
    NVVM is LTO-IR)."""

    CUBIN = 0
    PTX = 1
    FATBINARY = 2
    OBJECT = 3
    LIBRARY = 4
    NVVM = 5


# Event flags (CU_EVENT_*) and stream flags.
class event_flags(enum.IntFlag):
    DEFAULT = 0x0
    BLOCKING_SYNC = 0x1
    DISABLE_TIMING = 0x2
    INTERPROCESS = 0x4


def _from_driver(enum_name: str, prefix: str, name: str) -> type[enum.IntEnum]:
    from cuda.bindings import driver

    source = getattr(driver, enum_name)
    members = {m.name[len(prefix) :]: int(m.value) for m in source if m.name.startswith(prefix)}
    return enum.IntEnum(name, members)


class host_alloc_flags(enum.IntFlag):
    """``pagelocked_empty(..., mem_flags=)`` (CU_MEMHOSTALLOC_*)."""

    PORTABLE = 0x1
    DEVICEMAP = 0x2
    WRITECOMBINED = 0x4


class mem_host_register_flags(enum.IntFlag):
    """``register_host_memory(ary, flags=)`` (CU_MEMHOSTREGISTER_*)."""

    PORTABLE = 0x1
    DEVICEMAP = 0x2
    IOMEMORY = 0x4
    READ_ONLY = 0x8


class ctx_flags(enum.IntFlag):
    """``Device.make_context(flags)`` (CU_CTX_*); primary contexts keep their own flags."""

    SCHED_AUTO = 0x0
    SCHED_SPIN = 0x1
    SCHED_YIELD = 0x2
    SCHED_BLOCKING_SYNC = 0x4
    MAP_HOST = 0x8
    LMEM_RESIZE_TO_MAX = 0x10


_LAZY = {
    "device_attribute": ("CUdevice_attribute", "CU_DEVICE_ATTRIBUTE_"),
    "function_attribute": ("CUfunction_attribute", "CU_FUNC_ATTRIBUTE_"),
    "func_cache": ("CUfunc_cache", "CU_FUNC_CACHE_"),
    "limit": ("CUlimit", "CU_LIMIT_"),
    "compute_mode": ("CUcomputemode", "CU_COMPUTEMODE_"),
    "shared_config": ("CUsharedconfig", "CU_SHARED_MEM_CONFIG_"),
}


def __getattr__(name: str):
    if name in _LAZY:
        value = _from_driver(*_LAZY[name], name)
        globals()[name] = value
        return value
    raise AttributeError(name)

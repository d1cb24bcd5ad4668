"""PyCUDA's TextureReference on texture objects.

The source's ``texture<T, dim, mode> name;`` became a ``__constant__ cudaTextureObject_t``
(``textures_rewrite``). A TextureReference keeps PyCUDA's settings (resource, format, address
and filter modes, flags); when they changed, the next launch of a kernel of its module makes a
texture object (``cuTexObjectCreate``) and writes its handle into that constant, on the
launch's stream. Objects it replaced are destroyed with the reference, as a kernel still
running may read them.
"""

from __future__ import annotations

import logging
from typing import Any

import numpy as np

from numbast_import.rtc.context import check, driver
from numbast_import.rtc.enums import (
    TRSF_READ_AS_INTEGER,
    address_mode,
    array_format,
    filter_mode,
)
from numbast_import.rtc.memory import device_pointer
from numbast_import.rtc.textures_rewrite import TextureDeclaration

logger = logging.getLogger(__name__)

# Element types of texture<T, ...> -> (array format, channels) for linear memory.
_SCALARS = {
    "float": array_format.FLOAT, "int": array_format.SIGNED_INT32,
    "uint": array_format.UNSIGNED_INT32, "unsigned int": array_format.UNSIGNED_INT32,
    "short": array_format.SIGNED_INT16, "ushort": array_format.UNSIGNED_INT16,
    "unsigned short": array_format.UNSIGNED_INT16, "char": array_format.SIGNED_INT8,
    "signed char": array_format.SIGNED_INT8, "uchar": array_format.UNSIGNED_INT8,
    "unsigned char": array_format.UNSIGNED_INT8, "__half": array_format.HALF,
    "half": array_format.HALF,
}  # fmt: skip
_INTEGER_FORMATS = {
    array_format.UNSIGNED_INT8, array_format.UNSIGNED_INT16, array_format.UNSIGNED_INT32,
    array_format.SIGNED_INT8, array_format.SIGNED_INT16, array_format.SIGNED_INT32,
}  # fmt: skip


def element_format(element_type: str) -> tuple[array_format, int] | None:
    """(format, channels) of a texture element type such as ``float`` or ``uchar4``."""
    if element_type in _SCALARS:
        return _SCALARS[element_type], 1
    base, channels = element_type[:-1], element_type[-1:]
    if channels in ("1", "2", "4") and base in _SCALARS:
        return _SCALARS[base], int(channels)
    return None


class TextureReference:
    """A ``texture<...>`` of a module, as PyCUDA's ``mod.get_texref(name)``."""

    def __init__(self, declaration: TextureDeclaration, module: Any) -> None:
        self.declaration = declaration
        self.module = module
        self._resource: tuple[Any, ...] | None = None
        self._format = element_format(declaration.element_type)
        self._address_modes = [address_mode.CLAMP] * 3
        self._filter_mode = filter_mode.POINT
        self._flags = 0
        self._object = 0
        self._retired: list[int] = []
        self._dirty = True
        self._handle_on_host = np.zeros(1, dtype=np.uint64)

    # -- PyCUDA's setters -------------------------------------------------------------------

    def set_array(self, array: Any, flags: int = 0) -> None:
        self._resource = ("array", array)
        self._dirty = True

    def set_address(self, devptr: Any, nbytes: int, allow_offset: bool = False) -> int:
        """Bind linear memory (read with ``tex1Dfetch``); returns the offset, always 0."""
        resource = ("linear", device_pointer(devptr), int(nbytes))
        if resource != self._resource:  # programs rebind the same memory before each launch
            self._resource = resource
            self._dirty = True
        return 0

    def set_address_2d(self, devptr: Any, descriptor: Any, pitch: int) -> None:
        """Bind pitched 2D memory described by an ArrayDescriptor."""
        self._resource = ("pitch2d", device_pointer(devptr), descriptor, int(pitch))
        self._format = (array_format(int(descriptor.format)), int(descriptor.num_channels))
        self._dirty = True

    def set_format(self, fmt: int, num_channels: int) -> None:
        new = (array_format(int(fmt)), int(num_channels))
        if new != self._format:
            self._format = new
            self._dirty = True

    def set_address_mode(self, dim: int, mode: int) -> None:
        self._address_modes[int(dim)] = address_mode(int(mode))
        self._dirty = True

    def set_filter_mode(self, mode: int) -> None:
        self._filter_mode = filter_mode(int(mode))
        self._dirty = True

    def set_flags(self, flags: int) -> None:
        self._flags = int(flags)
        self._dirty = True

    def get_array(self) -> Any:
        return self._resource[1] if self._resource and self._resource[0] == "array" else None

    def get_address_mode(self, dim: int) -> address_mode:
        return self._address_modes[int(dim)]

    def get_filter_mode(self) -> filter_mode:
        return self._filter_mode

    def get_format(self) -> tuple[array_format, int] | None:
        return self._format

    def get_flags(self) -> int:
        return self._flags

    # -- texture objects --------------------------------------------------------------------

    def descriptors(self) -> tuple[Any, Any]:
        """The CUDA_RESOURCE_DESC and CUDA_TEXTURE_DESC for the current settings."""
        drv = driver()
        if self._resource is None:
            raise ValueError(
                f"texture {self.declaration.name!r} is not bound: call set_array, set_address "
                "or set_address_2d (or matrix_to_texref) before launching"
            )
        resource = drv.CUDA_RESOURCE_DESC()
        kind = self._resource[0]
        fmt = self._format
        if kind == "array":
            resource.resType = drv.CUresourcetype.CU_RESOURCE_TYPE_ARRAY
            resource.res.array.hArray = self._resource[1].handle
            array_descriptor = self._resource[1].descriptor
            fmt = (array_format(int(array_descriptor.format)), array_descriptor.num_channels)
        else:
            if fmt is None:
                raise ValueError(
                    f"texture {self.declaration.name!r}: call set_format(fmt, channels) for "
                    f"its element type {self.declaration.element_type}"
                )
            if kind == "linear":
                resource.resType = drv.CUresourcetype.CU_RESOURCE_TYPE_LINEAR
                linear = resource.res.linear
                linear.devPtr = self._resource[1]
                linear.format = drv.CUarray_format(int(fmt[0]))
                linear.numChannels = fmt[1]
                linear.sizeInBytes = self._resource[2]
            else:
                _kind, pointer, descriptor, pitch = self._resource
                resource.resType = drv.CUresourcetype.CU_RESOURCE_TYPE_PITCH2D
                pitched = resource.res.pitch2D
                pitched.devPtr = pointer
                pitched.format = drv.CUarray_format(int(fmt[0]))
                pitched.numChannels = fmt[1]
                pitched.width = int(descriptor.width)
                pitched.height = int(descriptor.height)
                pitched.pitchInBytes = pitch
        texture = drv.CUDA_TEXTURE_DESC()
        texture.addressMode = [drv.CUaddress_mode(int(m)) for m in self._address_modes]
        texture.filterMode = drv.CUfilter_mode(int(self._filter_mode))
        flags = self._flags
        if (
            self.declaration.read_mode == "cudaReadModeElementType"
            and fmt is not None
            and fmt[0] in _INTEGER_FORMATS
        ):
            # The reference returned integers; so must the object (the runtime set this flag
            # for texture references itself).
            flags |= TRSF_READ_AS_INTEGER
        texture.flags = flags
        return resource, texture

    def sync(self, stream: int) -> None:
        """Before a launch: make the texture object if settings changed, and write it."""
        if not self._dirty or self._resource is None:
            return
        drv = driver()
        resource, texture = self.descriptors()
        handle = int(check(drv.cuTexObjectCreate(resource, texture, None), "cuTexObjectCreate"))
        if self._object:
            self._retired.append(self._object)
        self._object = handle
        self._handle_on_host[0] = handle
        pointer, _size = self.module.get_global(self.declaration.object_name)
        check(
            drv.cuMemcpyHtoDAsync(pointer, int(self._handle_on_host.ctypes.data), 8, stream),
            "writing a texture object",
        )
        self._dirty = False

    def __del__(self) -> None:
        handles = [*getattr(self, "_retired", ()), getattr(self, "_object", 0)]
        for handle in handles:
            if handle:
                try:
                    check(driver().cuTexObjectDestroy(handle), "cuTexObjectDestroy")
                except Exception as exc:  # interpreter shutdown or a dead context
                    logger.debug("destroying texture object %#x failed: %s", handle, exc)


def matrix_to_texref(matrix: Any, texref: TextureReference, order: str = "C") -> None:
    from numbast_import.rtc.arrays import matrix_to_array

    texref.set_array(matrix_to_array(matrix, order))

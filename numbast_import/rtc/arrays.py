"""CUDA arrays (the memory textures read with filtering and 2D/3D caching) and PyCUDA's
helpers around them: ArrayDescriptor(3D), Array, Memcpy2D/3D, matrix_to_array,
make_multichannel_2d_array."""

from __future__ import annotations

import logging
from typing import Any

from numbast_import.rtc.context import check, driver, ensure_context
from numbast_import.rtc.enums import array_format
from numbast_import.rtc.memory import device_pointer, host_buffer

logger = logging.getLogger(__name__)

_FORMATS = {
    "uint8": array_format.UNSIGNED_INT8, "uint16": array_format.UNSIGNED_INT16,
    "uint32": array_format.UNSIGNED_INT32, "int8": array_format.SIGNED_INT8,
    "int16": array_format.SIGNED_INT16, "int32": array_format.SIGNED_INT32,
    "float16": array_format.HALF, "float32": array_format.FLOAT,
}  # fmt: skip
FORMAT_BYTES = {
    array_format.UNSIGNED_INT8: 1, array_format.SIGNED_INT8: 1, array_format.UNSIGNED_INT16: 2,
    array_format.SIGNED_INT16: 2, array_format.HALF: 2, array_format.UNSIGNED_INT32: 4,
    array_format.SIGNED_INT32: 4, array_format.FLOAT: 4,
}  # fmt: skip


def dtype_to_array_format(dtype: Any) -> array_format:
    import numpy as np

    name = np.dtype(dtype).name
    if name not in _FORMATS:
        raise TypeError(
            f"no CUDA array format for {name}; use one of {', '.join(_FORMATS)} (a float64 "
            "texture can be read as int2 pairs and rebuilt with __hiloint2double)"
        )
    return _FORMATS[name]


class ArrayDescriptor:
    def __init__(self) -> None:
        self.width = 0
        self.height = 0
        self.format = array_format.FLOAT
        self.num_channels = 1


class ArrayDescriptor3D(ArrayDescriptor):
    def __init__(self) -> None:
        super().__init__()
        self.depth = 0
        self.flags = 0


class Array:
    """A CUDA array made from an ArrayDescriptor or ArrayDescriptor3D."""

    def __init__(self, descriptor: ArrayDescriptor) -> None:
        ensure_context()
        drv = driver()
        self.descriptor = descriptor
        if isinstance(descriptor, ArrayDescriptor3D):
            native = drv.CUDA_ARRAY3D_DESCRIPTOR()
            native.Depth = int(descriptor.depth)
            native.Flags = int(descriptor.flags)
            create = drv.cuArray3DCreate
        else:
            native = drv.CUDA_ARRAY_DESCRIPTOR()
            create = drv.cuArrayCreate
        native.Width = int(descriptor.width)
        native.Height = int(descriptor.height)
        native.Format = drv.CUarray_format(int(descriptor.format))
        native.NumChannels = int(descriptor.num_channels)
        self.handle = int(check(create(native), "creating a CUDA array"))

    @property
    def dimensions(self) -> int:
        d = self.descriptor
        return 3 if getattr(d, "depth", 0) else (2 if d.height else 1)

    def get_descriptor(self) -> ArrayDescriptor:
        return self.descriptor

    def get_descriptor_3d(self) -> ArrayDescriptor:
        return self.descriptor

    def free(self) -> None:
        if self.handle:
            handle, self.handle = self.handle, 0
            check(driver().cuArrayDestroy(handle), "cuArrayDestroy")

    def __del__(self) -> None:
        if getattr(self, "handle", 0):
            try:
                self.free()
            except Exception as exc:  # interpreter shutdown or a dead context
                logger.debug("destroying a CUDA array at collection failed: %s", exc)


class _Memcpy:
    """The source/destination setters PyCUDA's Memcpy2D and Memcpy3D share."""

    def __init__(self) -> None:
        self._src: tuple[str, Any] | None = None
        self._dst: tuple[str, Any] | None = None
        self._keep: list[Any] = []
        self.src_x_in_bytes = self.src_y = self.dst_x_in_bytes = self.dst_y = 0
        self.src_pitch = self.dst_pitch = 0
        self.width_in_bytes = self.height = 0

    def set_src_host(self, buffer: Any) -> None:
        address, _n, keep = host_buffer(buffer, writable=False)
        self._src = ("host", address)
        self._keep.append(keep)

    def set_dst_host(self, buffer: Any) -> None:
        address, _n, keep = host_buffer(buffer, writable=True)
        self._dst = ("host", address)
        self._keep.append(keep)

    def set_src_device(self, pointer: Any) -> None:
        self._src = ("device", device_pointer(pointer))

    def set_dst_device(self, pointer: Any) -> None:
        self._dst = ("device", device_pointer(pointer))

    def set_src_array(self, array: Array) -> None:
        self._src = ("array", array.handle)

    def set_dst_array(self, array: Array) -> None:
        self._dst = ("array", array.handle)

    def _fill(self, native: Any) -> Any:
        drv = driver()
        if self._src is None or self._dst is None:
            raise ValueError("set a source and a destination before copying")
        for side, (kind, value) in (("src", self._src), ("dst", self._dst)):
            memory_type = {
                "host": drv.CUmemorytype.CU_MEMORYTYPE_HOST,
                "device": drv.CUmemorytype.CU_MEMORYTYPE_DEVICE,
                "array": drv.CUmemorytype.CU_MEMORYTYPE_ARRAY,
            }[kind]
            setattr(native, f"{side}MemoryType", memory_type)
            setattr(native, f"{side}{kind.capitalize()}", value)
            setattr(native, f"{side}XInBytes", int(getattr(self, f"{side}_x_in_bytes")))
            setattr(native, f"{side}Y", int(getattr(self, f"{side}_y")))
            setattr(native, f"{side}Pitch", int(getattr(self, f"{side}_pitch")))
        native.WidthInBytes = int(self.width_in_bytes)
        native.Height = int(self.height)
        return native


class Memcpy2D(_Memcpy):
    def native(self) -> Any:
        return self._fill(driver().CUDA_MEMCPY2D())

    def __call__(self, aligned_or_stream: Any = False) -> None:
        ensure_context()
        drv = driver()
        if isinstance(aligned_or_stream, bool):
            copy = drv.cuMemcpy2D if aligned_or_stream else drv.cuMemcpy2DUnaligned
            check(copy(self.native()), "cuMemcpy2D")
        else:
            from numbast_import.rtc.streams import stream_handle

            handle = stream_handle(aligned_or_stream)
            check(drv.cuMemcpy2DAsync(self.native(), handle), "cuMemcpy2DAsync")


class Memcpy3D(_Memcpy):
    def __init__(self) -> None:
        super().__init__()
        self.src_z = self.dst_z = 0
        self.src_height = self.dst_height = 0
        self.depth = 0

    def native(self) -> Any:
        native = self._fill(driver().CUDA_MEMCPY3D())
        native.srcZ, native.dstZ = int(self.src_z), int(self.dst_z)
        native.srcHeight, native.dstHeight = int(self.src_height), int(self.dst_height)
        native.Depth = int(self.depth)
        return native

    def __call__(self, stream: Any = None) -> None:
        ensure_context()
        drv = driver()
        if stream is None:
            check(drv.cuMemcpy3D(self.native()), "cuMemcpy3D")
        else:
            from numbast_import.rtc.streams import stream_handle

            check(drv.cuMemcpy3DAsync(self.native(), stream_handle(stream)), "cuMemcpy3DAsync")


def _host_to_array(host: Any, width: int, height: int, channels: int) -> Array:
    descriptor = ArrayDescriptor()
    descriptor.width, descriptor.height = width, height
    descriptor.format = dtype_to_array_format(host.dtype)
    descriptor.num_channels = channels
    array = Array(descriptor)
    copy = Memcpy2D()
    copy.set_src_host(host)
    copy.set_dst_array(array)
    copy.width_in_bytes = copy.src_pitch = copy.dst_pitch = width * channels * host.itemsize
    copy.height = height
    copy(False)  # cuMemcpy2DUnaligned: any pitch
    return array


def matrix_to_array(matrix: Any, order: str = "C", allow_double_hack: bool = False) -> Array:
    """A 2D CUDA array holding ``matrix``; with order "F" the first index is x (the width)."""
    import numpy as np

    if allow_double_hack:
        raise NotImplementedError("allow_double_hack: read float64 textures as int2 instead")
    if order.upper() == "C":
        height, width = matrix.shape
        host = np.ascontiguousarray(matrix)
    else:
        width, height = matrix.shape
        host = np.asfortranarray(matrix)
    return _host_to_array(host, width, height, 1)


def make_multichannel_2d_array(matrix: Any, order: str = "C") -> Array:
    """A 2D CUDA array of 1 to 4 channels: shape (h, w, channels) for "C",
    (channels, w, h) for "F"."""
    import numpy as np

    if order.upper() == "C":
        height, width, channels = matrix.shape
        host = np.ascontiguousarray(matrix)
    else:
        channels, width, height = matrix.shape
        host = np.asfortranarray(matrix)
    if channels not in (1, 2, 4):
        raise ValueError(f"CUDA arrays have 1, 2 or 4 channels, not {channels}")
    return _host_to_array(host, width, height, channels)

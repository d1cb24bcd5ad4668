"""Device memory: PyCUDA's ``mem_alloc`` / ``DeviceAllocation`` and the ``memcpy_*`` family,
with the driver's synchronous semantics (``cuMemAlloc``, ``cuMemcpyHtoD``, ...).

Every "device pointer" parameter takes a DeviceAllocation, an int, or any object with
``__cuda_array_interface__`` (Numba, CuPy, PyTorch arrays); every host parameter takes an
object with the buffer protocol (numpy arrays, bytes, bytearray).
"""

from __future__ import annotations

import logging
from typing import Any

from numbast_import.rtc.context import check, driver, ensure_context

logger = logging.getLogger(__name__)


class DeviceAllocation:
    """Device memory from ``mem_alloc``: usable as an int (its address) and freed by
    ``free()`` or when garbage collected."""

    __slots__ = ("_ptr", "size", "__weakref__")

    def __init__(self, ptr: int, size: int) -> None:
        self._ptr = int(ptr)
        self.size = int(size)

    def __int__(self) -> int:
        return self._ptr

    __index__ = __int__

    def __eq__(self, other: object) -> bool:
        return isinstance(other, DeviceAllocation) and other._ptr == self._ptr

    def __hash__(self) -> int:
        return hash(self._ptr)

    def free(self) -> None:
        """Release the memory now (later calls do nothing)."""
        if self._ptr:
            ptr, self._ptr = self._ptr, 0
            check(driver().cuMemFree(ptr), "cuMemFree")

    def __del__(self) -> None:
        if getattr(self, "_ptr", 0):
            try:
                self.free()
            except Exception as exc:  # interpreter shutdown or a dead context
                logger.debug("freeing %#x at collection failed: %s", self._ptr, exc)

    def as_buffer(self, size: int) -> memoryview:
        raise NotImplementedError("device memory cannot be viewed as a host buffer")

    def __repr__(self) -> str:
        return f"<DeviceAllocation {self._ptr:#x}, {self.size} bytes>"


def mem_alloc(nbytes: int) -> DeviceAllocation:
    ensure_context()
    nbytes = int(nbytes)
    ptr = check(driver().cuMemAlloc(max(nbytes, 1)), f"cuMemAlloc({nbytes})")
    return DeviceAllocation(int(ptr), nbytes)


def mem_alloc_like(array: Any) -> DeviceAllocation:
    return mem_alloc(array.nbytes)


def mem_get_info() -> tuple[int, int]:
    """(free, total) bytes of the current device."""
    ensure_context()
    free, total = check(driver().cuMemGetInfo(), "cuMemGetInfo")
    return int(free), int(total)


def wait_for_producer(interface: dict[str, Any]) -> None:
    """CUDA array interface version 3: finish the work of the stream that produced an array
    (``interface["stream"]``) before using its memory."""
    stream = interface.get("stream")
    if stream not in (None, 1, 2):  # 1, 2: the legacy and per-thread default streams
        check(driver().cuStreamSynchronize(stream), "cuStreamSynchronize")


def device_pointer(obj: Any) -> int:
    """The device address ``obj`` stands for: DeviceAllocation, int, an object with
    ``__cuda_array_interface__`` or ``gpudata`` (PyCUDA GPUArray-likes), or a cuda.core
    Buffer."""
    if isinstance(obj, (int, DeviceAllocation)):
        return int(obj)
    interface = getattr(obj, "__cuda_array_interface__", None)
    if interface is not None:
        return int(interface["data"][0])
    gpudata = getattr(obj, "gpudata", None)
    if gpudata is not None:
        return int(gpudata)
    handle = getattr(obj, "handle", None)
    if handle is not None and type(obj).__name__ == "Buffer":
        return int(handle)
    try:
        return int(obj)  # cuda.bindings CUdeviceptr, numpy integers
    except TypeError:
        raise TypeError(
            f"{type(obj).__name__} is not device memory: pass a DeviceAllocation, an int "
            "address, or an array with __cuda_array_interface__"
        ) from None


def host_buffer(obj: Any, writable: bool) -> tuple[int, int, Any]:
    """(address, nbytes, keep-alive) of a C-contiguous host buffer."""
    import numpy as np

    array = obj if isinstance(obj, np.ndarray) else np.frombuffer(obj, dtype=np.uint8)
    if not (array.flags.c_contiguous or array.flags.f_contiguous):
        raise ValueError("host buffer must be contiguous; pass np.ascontiguousarray(array)")
    if writable and not array.flags.writeable:
        raise ValueError("the host buffer to copy into is read-only")
    return int(array.ctypes.data), int(array.nbytes), array


def _stream_handle(stream: Any) -> int:
    from numbast_import.rtc.streams import stream_handle

    return stream_handle(stream)


def memcpy_htod(dest: Any, src: Any) -> None:
    ensure_context()
    address, nbytes, _keep = host_buffer(src, writable=False)
    check(driver().cuMemcpyHtoD(device_pointer(dest), address, nbytes), "cuMemcpyHtoD")


def memcpy_dtoh(dest: Any, src: Any) -> None:
    ensure_context()
    address, nbytes, _keep = host_buffer(dest, writable=True)
    check(driver().cuMemcpyDtoH(address, device_pointer(src), nbytes), "cuMemcpyDtoH")


def memcpy_dtod(dest: Any, src: Any, size: int) -> None:
    ensure_context()
    check(
        driver().cuMemcpyDtoD(device_pointer(dest), device_pointer(src), int(size)),
        "cuMemcpyDtoD",
    )


def memcpy_htod_async(dest: Any, src: Any, stream: Any = None) -> None:
    """As memcpy_htod, ordered on ``stream``; ``src`` should be page-locked to overlap."""
    ensure_context()
    address, nbytes, _keep = host_buffer(src, writable=False)
    check(
        driver().cuMemcpyHtoDAsync(device_pointer(dest), address, nbytes, _stream_handle(stream)),
        "cuMemcpyHtoDAsync",
    )


def memcpy_dtoh_async(dest: Any, src: Any, stream: Any = None) -> None:
    ensure_context()
    address, nbytes, _keep = host_buffer(dest, writable=True)
    check(
        driver().cuMemcpyDtoHAsync(address, device_pointer(src), nbytes, _stream_handle(stream)),
        "cuMemcpyDtoHAsync",
    )


def memcpy_dtod_async(dest: Any, src: Any, size: int, stream: Any = None) -> None:
    ensure_context()
    check(
        driver().cuMemcpyDtoDAsync(
            device_pointer(dest), device_pointer(src), int(size), _stream_handle(stream)
        ),
        "cuMemcpyDtoDAsync",
    )


def memset_d8(dest: Any, data: int, count: int) -> None:
    ensure_context()
    check(driver().cuMemsetD8(device_pointer(dest), int(data), int(count)), "cuMemsetD8")


def memset_d16(dest: Any, data: int, count: int) -> None:
    ensure_context()
    check(driver().cuMemsetD16(device_pointer(dest), int(data), int(count)), "cuMemsetD16")


def memset_d32(dest: Any, data: int, count: int) -> None:
    ensure_context()
    check(driver().cuMemsetD32(device_pointer(dest), int(data), int(count)), "cuMemsetD32")


def memset_d8_async(dest: Any, data: int, count: int, stream: Any = None) -> None:
    ensure_context()
    call = driver().cuMemsetD8Async
    check(call(device_pointer(dest), int(data), int(count), _stream_handle(stream)), "memset")


def memset_d16_async(dest: Any, data: int, count: int, stream: Any = None) -> None:
    ensure_context()
    call = driver().cuMemsetD16Async
    check(call(device_pointer(dest), int(data), int(count), _stream_handle(stream)), "memset")


def memset_d32_async(dest: Any, data: int, count: int, stream: Any = None) -> None:
    ensure_context()
    call = driver().cuMemsetD32Async
    check(call(device_pointer(dest), int(data), int(count), _stream_handle(stream)), "memset")


def mem_alloc_pitch(width: int, height: int, access_size: int) -> tuple[DeviceAllocation, int]:
    """(allocation, pitch in bytes) for ``height`` rows of ``width`` bytes, each row aligned
    for elements of ``access_size`` (4, 8 or 16) bytes."""
    ensure_context()
    ptr, pitch = check(
        driver().cuMemAllocPitch(int(width), int(height), int(access_size)), "cuMemAllocPitch"
    )
    return DeviceAllocation(int(ptr), int(pitch) * int(height)), int(pitch)


def to_device(host: Any) -> DeviceAllocation:
    """A new allocation holding a copy of ``host`` (a numpy array or buffer)."""
    _address, nbytes, _keep = host_buffer(host, writable=False)
    allocation = mem_alloc(nbytes)
    memcpy_htod(allocation, host)
    return allocation


def from_device(src: Any, shape: Any, dtype: Any, order: str = "C") -> Any:
    import numpy as np

    result = np.empty(shape, dtype, order=order)
    memcpy_dtoh(result, src)
    return result


def from_device_like(src: Any, like: Any) -> Any:
    return from_device(src, like.shape, like.dtype, "F" if like.flags.f_contiguous else "C")

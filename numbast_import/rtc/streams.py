"""PyCUDA's Stream and Event. Streams are cuda.core streams; PyCUDA's ``Stream()`` is a
blocking stream (it waits for the legacy default stream, which synchronous copies use), so
ours is created blocking too unless ``flags`` asks for ``CU_STREAM_NON_BLOCKING`` (1)."""

from __future__ import annotations

import logging
from typing import Any

from numbast_import.rtc.context import check, current_device, driver, ensure_context

logger = logging.getLogger(__name__)

STREAM_NON_BLOCKING = 0x1


class Stream:
    """A CUDA stream (``pycuda.driver.Stream``); ``stream.core`` is the cuda.core Stream."""

    def __init__(self, flags: int = 0) -> None:
        from cuda.core import StreamOptions

        ensure_context()
        options = StreamOptions(nonblocking=bool(flags & STREAM_NON_BLOCKING))
        self.core = current_device().create_stream(options=options)
        self.handle = int(self.core.handle)

    def synchronize(self) -> None:
        self.core.sync()

    def is_done(self) -> bool:
        drv = driver()
        (err,) = drv.cuStreamQuery(self.handle)
        if err == drv.CUresult.CUDA_ERROR_NOT_READY:
            return False
        check((err,), "cuStreamQuery")
        return True

    def wait_for_event(self, event: Event) -> None:
        check(driver().cuStreamWaitEvent(self.handle, event.handle, 0), "cuStreamWaitEvent")

    def __cuda_stream__(self) -> tuple[int, int]:
        return (0, self.handle)

    def __int__(self) -> int:
        return self.handle

    def __repr__(self) -> str:
        return f"<numbast_import.driver.Stream {self.handle:#x}>"


def stream_handle(stream: Any) -> int:
    """The CUstream address of ``stream``: None (the legacy default stream, 0), our Stream,
    an int, an object with ``__cuda_stream__`` (cuda.core), or CuPy / Numba stream objects."""
    if stream is None:
        return 0
    if type(stream) is Stream:
        return stream.handle
    if isinstance(stream, int):
        return stream
    protocol = getattr(stream, "__cuda_stream__", None)
    if protocol is not None:
        return int(protocol()[1])
    pointer = getattr(stream, "ptr", None)  # CuPy
    if pointer is not None:
        return int(pointer)
    handle = getattr(stream, "handle", None)  # Numba: a ctypes c_void_p
    if handle is not None:
        value = getattr(handle, "value", handle)
        return int(value or 0)
    raise TypeError(f"{type(stream).__name__} is not a CUDA stream")


class Event:
    """A CUDA event (``pycuda.driver.Event``); times are in milliseconds."""

    def __init__(self, flags: int = 0) -> None:
        ensure_context()
        self.handle = int(check(driver().cuEventCreate(int(flags)), "cuEventCreate"))

    def record(self, stream: Any = None) -> Event:
        check(driver().cuEventRecord(self.handle, stream_handle(stream)), "cuEventRecord")
        return self

    def synchronize(self) -> Event:
        check(driver().cuEventSynchronize(self.handle), "cuEventSynchronize")
        return self

    def query(self) -> bool:
        drv = driver()
        (err,) = drv.cuEventQuery(self.handle)
        if err == drv.CUresult.CUDA_ERROR_NOT_READY:
            return False
        check((err,), "cuEventQuery")
        return True

    def time_since(self, earlier: Event) -> float:
        """Milliseconds from ``earlier`` to this event."""
        return float(check(driver().cuEventElapsedTime(earlier.handle, self.handle), "time"))

    def time_till(self, later: Event) -> float:
        """Milliseconds from this event to ``later``."""
        return later.time_since(self)

    def __del__(self) -> None:
        handle = getattr(self, "handle", 0)
        if handle:
            self.handle = 0
            try:
                check(driver().cuEventDestroy(handle), "cuEventDestroy")
            except Exception as exc:  # interpreter shutdown or a dead context
                logger.debug("destroying event %#x failed: %s", handle, exc)

"""Driver calls, errors, devices and contexts.

Contexts are the devices' primary contexts (through cuda.core's ``Device.set_current``), the
ones the CUDA runtime, Numba, CuPy and PyTorch use, so memory and streams pass freely between
them and this package. PyCUDA's ``make_context`` / ``pop`` / ``detach`` keep their signatures
and make a primary context current; nothing is destroyed while other libraries may use it.
"""

from __future__ import annotations

import atexit
import logging
import threading
from typing import Any


class Error(Exception):
    """A CUDA driver call failed (PyCUDA's ``pycuda.driver.Error``)."""


class LogicError(Error):
    """A call that was not valid: bad handle, value or context."""


class LaunchError(Error):
    """A kernel launch, or the kernel, failed."""


class MemoryError(Error):
    """Out of device memory."""


class RuntimeError(Error):
    """Any other driver failure."""


def _error_class(name: str) -> type[Error]:
    if "OUT_OF_MEMORY" in name:
        return MemoryError
    if "LAUNCH" in name or name.endswith(("ILLEGAL_ADDRESS", "ASSERT", "HARDWARE_STACK_ERROR")):
        return LaunchError
    if "INVALID" in name or "NOT_FOUND" in name or "NOT_INITIALIZED" in name:
        return LogicError
    return RuntimeError


def check(result: tuple, what: str) -> Any:
    """The value(s) of a cuda.bindings call's ``(CUresult, *values)``; raises Error on a
    failure, naming the call."""
    err = result[0]
    if err:
        from cuda.bindings import driver

        name = getattr(err, "name", str(err))
        _e, text = driver.cuGetErrorString(err)
        detail = text.decode() if isinstance(text, bytes) else str(text)
        raise _error_class(name)(f"{what} failed: {name}: {detail}")
    if len(result) == 1:
        return None
    return result[1] if len(result) == 2 else result[1:]


def driver():
    """``cuda.bindings.driver``, imported on first use (``import numbast_import`` stays light)."""
    from cuda.bindings import driver as cuda_driver

    return cuda_driver


_thread = threading.local()
_exit_sync_registered = False


def _synchronize_at_exit() -> None:
    """Wait for the device before the process ends, so that the output of device ``printf``
    appears (PyCUDA's autoinit destroys its context at exit, which flushes it too)."""
    try:
        check(driver().cuCtxSynchronize(), "cuCtxSynchronize at exit")
    except Error as exc:  # a failed kernel's error was reported where it happened
        logging.getLogger(__name__).debug("%s", exc)


def _made_current() -> None:
    global _exit_sync_registered
    _thread.has_context = True
    if not _exit_sync_registered:
        _exit_sync_registered = True
        atexit.register(_synchronize_at_exit)


def ensure_context() -> None:
    """Make device 0's primary context current in this thread when none is (as PyCUDA's
    autoinit would have); cheap after the first call in a thread."""
    if getattr(_thread, "has_context", False):
        return
    drv = driver()
    check(drv.cuInit(0), "cuInit")
    if int(check(drv.cuCtxGetCurrent(), "cuCtxGetCurrent")) == 0:
        from cuda.core import Device as CoreDevice

        CoreDevice(0).set_current()
    _made_current()


def current_device():
    """cuda.core's Device for this thread (device 0 unless another was made current)."""
    from cuda.core import Device as CoreDevice

    return CoreDevice()


def init(flags: int = 0) -> None:
    """``cuInit``; optional, as every call here initializes the driver itself."""
    check(driver().cuInit(flags), "cuInit")


class Device:
    """A CUDA device, as PyCUDA's ``Device(ordinal)``."""

    def __init__(self, ordinal: int = 0) -> None:
        self.ordinal = int(ordinal)

    @staticmethod
    def count() -> int:
        init()
        return int(check(driver().cuDeviceGetCount(), "cuDeviceGetCount"))

    def _core(self):
        from cuda.core import Device as CoreDevice

        return CoreDevice(self.ordinal)

    def name(self) -> str:
        return self._core().name

    def compute_capability(self) -> tuple[int, int]:
        major, minor = self._core().compute_capability
        return int(major), int(minor)

    def total_memory(self) -> int:
        init()
        return int(check(driver().cuDeviceTotalMem(self.ordinal), "cuDeviceTotalMem"))

    def pci_bus_id(self) -> str:
        return self._core().pci_bus_id

    def get_attribute(self, attribute: int) -> int:
        init()
        drv = driver()
        attr = drv.CUdevice_attribute(int(attribute))
        return int(check(drv.cuDeviceGetAttribute(attr, self.ordinal), "cuDeviceGetAttribute"))

    def get_attributes(self) -> dict[Any, int]:
        from numbast_import.rtc.enums import device_attribute

        values = {}
        for attribute in device_attribute:
            try:
                values[attribute] = self.get_attribute(attribute)
            except Error:
                continue  # attributes this driver does not know
        return values

    def __getattr__(self, name: str) -> int:
        # PyCUDA's dev.MAX_THREADS_PER_BLOCK (and dev.compute_mode) spelling
        if name.startswith("_"):
            raise AttributeError(name)
        from numbast_import.rtc.enums import device_attribute

        if name.upper() in device_attribute.__members__:
            return self.get_attribute(device_attribute[name.upper()])
        raise AttributeError(name)

    def make_context(self, flags: int = 0) -> Context:
        """Make this device's primary context current and return it."""
        self._core().set_current()
        _made_current()
        return Context(self)

    def retain_primary_context(self) -> Context:
        return Context(self)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Device) and other.ordinal == self.ordinal

    def __hash__(self) -> int:
        return hash(("Device", self.ordinal))

    def __repr__(self) -> str:
        return f"<numbast_import.driver.Device {self.ordinal}>"


class Context:
    """A device's primary context (see the module docstring)."""

    def __init__(self, device: Device) -> None:
        self.device = device

    def push(self) -> None:
        self.device.make_context()

    @staticmethod
    def pop() -> None:
        """Kept for PyCUDA programs (``ctx.pop()`` and ``Context.pop()``); the primary
        context stays current and alive for other libraries."""

    def detach(self) -> None:
        """Kept for PyCUDA programs; see pop."""

    @staticmethod
    def get_current() -> Context | None:
        """The context current in this thread (None when there is none)."""
        drv = driver()
        check(drv.cuInit(0), "cuInit")
        if int(check(drv.cuCtxGetCurrent(), "cuCtxGetCurrent")) == 0:
            return None
        return Context(Device(int(check(drv.cuCtxGetDevice(), "cuCtxGetDevice"))))

    @staticmethod
    def set_limit(limit: int, value: int) -> None:
        """``drv.limit.X``: stack size, printf FIFO size, malloc heap size, ..."""
        ensure_context()
        drv = driver()
        check(drv.cuCtxSetLimit(drv.CUlimit(int(limit)), int(value)), "cuCtxSetLimit")

    @staticmethod
    def get_limit(limit: int) -> int:
        ensure_context()
        drv = driver()
        return int(check(drv.cuCtxGetLimit(drv.CUlimit(int(limit))), "cuCtxGetLimit"))

    @staticmethod
    def set_cache_config(config: int) -> None:
        ensure_context()
        drv = driver()
        check(drv.cuCtxSetCacheConfig(drv.CUfunc_cache(int(config))), "cuCtxSetCacheConfig")

    @staticmethod
    def get_cache_config() -> int:
        ensure_context()
        return int(check(driver().cuCtxGetCacheConfig(), "cuCtxGetCacheConfig"))

    def get_api_version(self) -> int:
        ensure_context()
        drv = driver()
        current = check(drv.cuCtxGetCurrent(), "cuCtxGetCurrent")
        return int(check(drv.cuCtxGetApiVersion(current), "cuCtxGetApiVersion"))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Context) and other.device == self.device

    def __hash__(self) -> int:
        return hash(("Context", self.device.ordinal))

    @staticmethod
    def synchronize() -> None:
        ensure_context()
        check(driver().cuCtxSynchronize(), "cuCtxSynchronize")

    @staticmethod
    def get_device() -> Device:
        ensure_context()
        return Device(int(check(driver().cuCtxGetDevice(), "cuCtxGetDevice")))

    def __repr__(self) -> str:
        return f"<numbast_import.driver.Context of device {self.device.ordinal}>"


class PointerHolderBase:
    """Base for objects that stand for device memory owned elsewhere (PyCUDA's): subclasses
    define ``get_pointer()``; the object then works wherever a DeviceAllocation does."""

    def get_pointer(self) -> int:
        raise NotImplementedError("subclasses of PointerHolderBase define get_pointer()")

    def __int__(self) -> int:
        return int(self.get_pointer())

    def __index__(self) -> int:
        return int(self.get_pointer())

    def as_buffer(self, size: int, offset: int = 0) -> memoryview:
        raise NotImplementedError("device memory cannot be viewed as a host buffer")

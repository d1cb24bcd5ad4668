"""PyCUDA's ``pycuda.tools``: the helpers programs import, on this package's driver layer.

``context_dependent_memoize``, ``clear_context_caches``, ``dtype_to_ctype`` (and
``register_dtype``, ``get_or_register_dtype``, ``VectorArg``, ``ScalarArg``, ``parse_c_arg``,
``get_arg_type``), ``DeviceMemoryPool``, ``PageLockedMemoryPool``, ``PageLockedAllocator``,
``bitlog2``, ``make_default_context``, ``get_default_device``, ``DeviceData``,
``mark_cuda_test``. See docs/rtc.md.
"""

from __future__ import annotations

import functools
import gc
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from numbast_import.rtc.context import Context, Device, Error, init
from numbast_import.rtc.dtypes import (
    ScalarArg,
    VectorArg,
    dtype_to_ctype,
    get_arg_type,
    get_or_register_dtype,
    parse_c_arg,
    register_dtype,
)
from numbast_import.rtc.memoize import clear_context_caches, context_dependent_memoize
from numbast_import.rtc.mempool import (
    DeviceMemoryPool,
    PageLockedAllocator,
    PageLockedMemoryPool,
    PooledDeviceAllocation,
    bitlog2,
)

__all__ = [
    "DeviceData",
    "DeviceMemoryPool",
    "PageLockedAllocator",
    "PageLockedMemoryPool",
    "PooledDeviceAllocation",
    "ScalarArg",
    "VectorArg",
    "bitlog2",
    "clear_context_caches",
    "context_dependent_memoize",
    "dtype_to_ctype",
    "get_arg_type",
    "get_default_device",
    "get_or_register_dtype",
    "make_default_context",
    "mark_cuda_test",
    "parse_c_arg",
    "register_dtype",
]


def _chosen_device() -> int | None:
    """$CUDA_DEVICE, else the number in ~/.cuda_device, else None (PyCUDA's convention)."""
    chosen = os.environ.get("CUDA_DEVICE")
    if chosen is None:
        rc = Path.home() / ".cuda_device"
        if rc.is_file():
            chosen = rc.read_text().strip()
    if chosen is None:
        return None
    try:
        return int(chosen)
    except ValueError:
        raise TypeError(
            f"CUDA device number (CUDA_DEVICE or ~/.cuda_device) {chosen!r} must be an integer"
        ) from None


def get_default_device(default: int = 0) -> Device:
    chosen = _chosen_device()
    return Device(default if chosen is None else chosen)


def make_default_context(ctx_maker: Callable[[Device], Context] | None = None) -> Context:
    """A context on the chosen device ($CUDA_DEVICE or ~/.cuda_device), else on the first
    device that makes one."""
    maker = ctx_maker or (lambda device: device.make_context())
    init()
    count = Device.count()
    if count == 0:
        raise RuntimeError("no CUDA device found; check the driver installation")
    chosen = _chosen_device()
    if chosen is not None:
        return maker(Device(chosen))
    failures = []
    for ordinal in range(count):
        try:
            return maker(Device(ordinal))
        except Error as exc:
            failures.append(f"device {ordinal}: {exc}")
    raise RuntimeError("no device would make a context: " + "; ".join(failures))


class DeviceData:
    """Limits of a device that kernel writers size blocks by (PyCUDA's DeviceData)."""

    def __init__(self, dev: Device | None = None) -> None:
        dev = dev or Context.get_device()
        self.max_threads = dev.get_attribute(_attribute("MAX_THREADS_PER_BLOCK"))
        self.warp_size = dev.get_attribute(_attribute("WARP_SIZE"))
        self.thread_blocks_per_mp = dev.get_attribute(_attribute("MAX_BLOCKS_PER_MULTIPROCESSOR"))
        self.warps_per_mp = (
            dev.get_attribute(_attribute("MAX_THREADS_PER_MULTIPROCESSOR")) // self.warp_size
        )
        self.registers = dev.get_attribute(_attribute("MAX_REGISTERS_PER_BLOCK"))
        self.shared_memory = dev.get_attribute(_attribute("MAX_SHARED_MEMORY_PER_BLOCK"))
        self.multiprocessor_count = dev.get_attribute(_attribute("MULTIPROCESSOR_COUNT"))
        self.smem_granularity = 32  # shared memory banks
        self.smem_alloc_granularity = 128

    def align(self, nbytes: int, word_size: int = 4) -> int:
        return _round_up(nbytes, self.align_bytes(word_size))

    def align_dtype(self, elements: int, dtype_size: int) -> int:
        return _round_up(elements, self.align_words(dtype_size))

    def align_words(self, word_size: int) -> int:
        return self.align_bytes(word_size) // word_size

    def align_bytes(self, word_size: int = 4) -> int:
        return self.smem_granularity * word_size

    def coalesce(self, thread_count: int) -> int:
        return _round_up(thread_count, 16)

    @staticmethod
    def make_valid_tex_channel_count(size: int) -> int:
        for valid in (1, 2, 4):
            if size <= valid:
                return valid
        raise ValueError(f"textures hold at most 4 channels, not {size}")


def _attribute(name: str) -> int:
    from numbast_import.rtc.enums import device_attribute

    return device_attribute[name]


def _round_up(value: int, multiple: int) -> int:
    return -(-value // multiple) * multiple


def mark_cuda_test(inner_f: Callable[..., Any]) -> Callable[..., Any]:
    """A test that runs with a CUDA context (PyCUDA's decorator): makes the default context,
    runs, then forgets context-dependent results and collects garbage (freeing memory)."""

    @functools.wraps(inner_f)
    def run(*args: Any, **kwargs: Any) -> Any:
        context = make_default_context()
        try:
            return inner_f(*args, **kwargs)
        finally:
            context.pop()
            clear_context_caches()
            gc.collect()

    return run

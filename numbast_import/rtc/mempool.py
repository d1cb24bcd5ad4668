"""Memory pools (PyCUDA's ``tools.DeviceMemoryPool`` and ``PageLockedMemoryPool``): freed
blocks are kept by size class and handed out again, so programs that allocate many temporary
arrays (GPUArray arithmetic) do not pay ``cuMemAlloc`` / ``cuMemFree`` each time.

Size classes ("bins") are powers of two split into four steps (4, 5, 6, 7, 8, 10, 12, 14,
16, 20, ... bytes): an allocation gets the smallest class that holds it, so at most a quarter
is wasted. On an out-of-memory error the pool frees what it holds and tries once more.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from typing import Any

from numbast_import.rtc.context import MemoryError, check, driver, ensure_context
from numbast_import.rtc.host_memory import HostMemory
from numbast_import.rtc.memory import DeviceAllocation

logger = logging.getLogger(__name__)

_MANTISSA_BITS = 2
_MANTISSA_MASK = (1 << _MANTISSA_BITS) - 1
_SMALLEST_SPLIT = 1 << _MANTISSA_BITS


def bitlog2(value: int) -> int:
    """floor(log2(value)) for value >= 1; 0 for 0."""
    return max(int(value).bit_length() - 1, 0)


def alloc_size(bin_nr: int) -> int:
    """The bytes a block of size class ``bin_nr`` has."""
    if bin_nr <= _SMALLEST_SPLIT:
        return bin_nr
    exponent, mantissa = bin_nr >> _MANTISSA_BITS, bin_nr & _MANTISSA_MASK
    return (_SMALLEST_SPLIT | mantissa) << (exponent - _MANTISSA_BITS)


def bin_number(size: int) -> int:
    """The smallest size class whose blocks hold ``size`` bytes."""
    size = int(size)
    if size <= _SMALLEST_SPLIT:
        # A zero-byte request gets a one-byte block: cuMemAlloc refuses zero bytes, and
        # PyCUDA's pools also hand out a nonzero block for it.
        return max(size, 1)
    exponent = bitlog2(size)
    mantissa = (size >> (exponent - _MANTISSA_BITS)) & _MANTISSA_MASK
    found = (exponent << _MANTISSA_BITS) | mantissa
    return found if alloc_size(found) >= size else found + 1


class _Pool:
    """Held blocks by size class; subclasses allocate and release the real memory."""

    def __init__(self) -> None:
        self._held: dict[int, list[Any]] = defaultdict(list)
        self._holding = True
        self.active_blocks = 0
        self.active_bytes = 0
        self.managed_bytes = 0

    @property
    def held_blocks(self) -> int:
        return sum(len(blocks) for blocks in self._held.values())

    bin_number = staticmethod(bin_number)
    alloc_size = staticmethod(alloc_size)

    def _take(self, size: int) -> tuple[Any, int]:
        bin_nr = bin_number(size)
        held = self._held.get(bin_nr)
        if held:
            block = held.pop()
        else:
            nbytes = alloc_size(bin_nr)
            try:
                block = self._allocate_raw(nbytes)
            except MemoryError:
                logger.info("out of memory: freeing %d held blocks and retrying", self.held_blocks)
                self.free_held()
                block = self._allocate_raw(nbytes)
            self.managed_bytes += nbytes
        self.active_blocks += 1
        self.active_bytes += size
        return block, bin_nr

    def _give_back(self, block: Any, bin_nr: int, size: int) -> None:
        self.active_blocks -= 1
        self.active_bytes -= size
        if self._holding:
            self._held[bin_nr].append(block)
        else:
            self._release_raw(block)
            self.managed_bytes -= alloc_size(bin_nr)

    def free_held(self) -> None:
        """Release every block the pool holds."""
        for bin_nr, blocks in self._held.items():
            for block in blocks:
                self._release_raw(block)
                self.managed_bytes -= alloc_size(bin_nr)
        self._held.clear()

    def stop_holding(self) -> None:
        """Release the held blocks, and from now on release blocks as they are freed."""
        self._holding = False
        self.free_held()

    def _allocate_raw(self, nbytes: int) -> Any:
        raise NotImplementedError

    def _release_raw(self, block: Any) -> None:
        raise NotImplementedError


class PooledDeviceAllocation(DeviceAllocation):
    """A block of a DeviceMemoryPool: an int (its address); ``free()`` or garbage collection
    gives it back to the pool."""

    __slots__ = ("_pool", "_bin")

    def __init__(self, pool: DeviceMemoryPool, ptr: int, size: int, bin_nr: int) -> None:
        super().__init__(ptr, size)
        self._pool = pool
        self._bin = bin_nr

    def free(self) -> None:
        if self._ptr:
            ptr, self._ptr = self._ptr, 0
            self._pool._give_back(ptr, self._bin, self.size)

    def __len__(self) -> int:
        return self.size


class DeviceMemoryPool(_Pool):
    """A pool of device memory: ``allocate(nbytes)`` can be a GPUArray's ``allocator``."""

    def allocate(self, size: int) -> PooledDeviceAllocation:
        ptr, bin_nr = self._take(size)
        return PooledDeviceAllocation(self, ptr, size, bin_nr)

    __call__ = allocate

    def _allocate_raw(self, nbytes: int) -> int:
        ensure_context()
        return int(check(driver().cuMemAlloc(max(nbytes, 1)), f"cuMemAlloc({nbytes})"))

    def _release_raw(self, block: int) -> None:
        check(driver().cuMemFree(block), "cuMemFree")

    def __del__(self) -> None:
        try:
            self.free_held()
        except Exception as exc:  # interpreter shutdown or a dead context
            logger.debug("freeing a memory pool at collection failed: %s", exc)


class PageLockedAllocator:
    """Page-locked host blocks with ``flags`` (``drv.host_alloc_flags``)."""

    def __init__(self, flags: int = 0) -> None:
        self.flags = int(flags)


class PageLockedMemoryPool(_Pool):
    """A pool of page-locked host memory: ``allocate(shape, dtype, order)`` gives a numpy
    array whose block returns to the pool when the array is gone."""

    def __init__(self, allocator: PageLockedAllocator | None = None) -> None:
        super().__init__()
        self.allocator = allocator or PageLockedAllocator()

    def allocate(self, shape: Any, dtype: Any, order: str = "C") -> Any:
        import numpy as np

        from numbast_import.rtc.host_memory import pinned_array

        dtype = np.dtype(dtype)
        nbytes = int(np.prod(shape)) * dtype.itemsize
        block, bin_nr = self._take(nbytes)
        return pinned_array(_PooledHostBlock(self, block, bin_nr, nbytes), shape, dtype, order)

    def _allocate_raw(self, nbytes: int) -> Any:
        from numbast_import.rtc.host_memory import PinnedHostMemory

        return PinnedHostMemory(nbytes, self.allocator.flags)

    def _release_raw(self, block: Any) -> None:
        block.release()


class _PooledHostBlock(HostMemory):
    """A pooled pinned block seen as one array; given back to the pool after it."""

    def __init__(self, pool: PageLockedMemoryPool, block: Any, bin_nr: int, size: int) -> None:
        self.pool, self.block, self.bin, self.size = pool, block, bin_nr, size
        self.address = block.address

    def free(self) -> None:
        """PyCUDA's PooledHostAllocation.free: give the block back now (the array must not
        be used after)."""
        if self.block is not None:
            block, self.block = self.block, None
            self.pool._give_back(block, self.bin, self.size)

    def __len__(self) -> int:
        return self.size

    def __del__(self) -> None:
        try:
            self.free()
        except Exception as exc:  # interpreter shutdown
            logger.debug("returning pinned memory to its pool failed: %s", exc)

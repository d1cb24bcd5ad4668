"""numbast_import.tools and the driver surface PyCUDA programs touch, without a GPU: names and
argument orders, memory pool size classes and bookkeeping, the dtype table, memoization."""

from __future__ import annotations

import inspect
from random import Random

import numpy as np
import pytest

import numbast_import.driver as drv
from numbast_import import tools
from numbast_import.rtc import memoize, mempool

# (name, PyCUDA's leading parameters): the orders PyCUDA's docs give
SIGNATURES = [
    (drv.memcpy_htod_async, ["dest", "src", "stream"]),
    (drv.memcpy_dtoh_async, ["dest", "src", "stream"]),
    (drv.memcpy_dtod_async, ["dest", "src", "size", "stream"]),
    (drv.memset_d32, ["dest", "data", "count"]),
    (drv.memset_d32_async, ["dest", "data", "count", "stream"]),
    (drv.pagelocked_empty, ["shape", "dtype", "order", "mem_flags"]),
    (drv.pagelocked_zeros, ["shape", "dtype", "order", "mem_flags"]),
    (drv.aligned_empty, ["shape", "dtype", "order", "alignment"]),
    (drv.register_host_memory, ["ary", "flags"]),
    (drv.mem_alloc_pitch, ["width", "height", "access_size"]),
    (drv.from_device, ["src", "shape", "dtype", "order"]),
    (drv.module_from_buffer, ["buffer", "options", "message_handler"]),
    (drv.module_from_file, ["filename"]),
    (tools.make_default_context, ["ctx_maker"]),
    (tools.dtype_to_ctype, ["dtype", "with_fp_tex_hack"]),
]


@pytest.mark.parametrize("function, leading", SIGNATURES, ids=lambda v: getattr(v, "__name__", ""))
def test_argument_orders_are_pycudas(function, leading):
    assert list(inspect.signature(function).parameters)[: len(leading)] == leading


def test_driver_names_programs_use_exist():
    for name in [
        "get_version", "get_driver_version", "PointerHolderBase", "Context", "Device", "Event",
        "Stream", "mem_get_info", "pagelocked_empty", "register_host_memory", "memset_d32",
        "module_from_buffer", "module_from_file", "jit_input_type", "host_alloc_flags",
        "limit", "compute_mode", "device_attribute", "function_attribute", "bind_array_to_texref",
    ]:  # fmt: skip
        assert hasattr(drv, name), name
    for name in ["push", "pop", "synchronize", "get_device", "get_current", "detach"]:
        assert callable(getattr(drv.Context, name)), name
    for name in ["get_attributes", "name", "compute_capability", "total_memory", "make_context"]:
        assert callable(getattr(drv.Device(0), name)), name
    assert callable(drv.Event.time_till) and callable(drv.Event.time_since)
    version = drv.get_version()
    assert isinstance(version, tuple) and len(version) == 3 and version >= (12,)


def test_pointer_holder_base_is_an_address():
    class Wrapped(drv.PointerHolderBase):
        def get_pointer(self):
            return 0x1234

    holder = Wrapped()
    from numbast_import.rtc.memory import device_pointer

    assert int(holder) == 0x1234 and device_pointer(holder) == 0x1234
    with pytest.raises(NotImplementedError):
        int(drv.PointerHolderBase())


def test_pool_size_classes_hold_their_sizes():
    rng = Random(7)
    pool = tools.DeviceMemoryPool
    for _ in range(3000):
        size = rng.randrange(1 << 31) >> rng.randrange(32)
        bin_nr = pool.bin_number(size)
        allocated = pool.alloc_size(bin_nr)
        assert size <= allocated <= size * 1.25 + 4, size
        assert pool.bin_number(allocated) == bin_nr, size
    # Zero bytes: a one-byte block (PyCUDA's test_mempool_2 asserts 0 < alloc_size).
    assert pool.alloc_size(pool.bin_number(0)) == 1
    assert tools.bitlog2(17) == 4 and tools.bitlog2(0xCC3AFFE) == 27 and tools.bitlog2(1) == 0


class CountingPool(mempool.DeviceMemoryPool):
    """The pool's bookkeeping over made-up addresses (the raw calls are the driver's)."""

    def __init__(self):
        super().__init__()
        self.raw_allocations, self.raw_frees = [], []

    def _allocate_raw(self, nbytes):
        self.raw_allocations.append(nbytes)
        return 0x1000 * len(self.raw_allocations)

    def _release_raw(self, block):
        self.raw_frees.append(block)


def test_pool_reuses_freed_blocks_of_the_same_class():
    pool = CountingPool()
    first = pool.allocate(1000)
    assert len(first) == 1000 and int(first) == 0x1000
    assert pool.active_blocks == 1 and pool.managed_bytes == pool.alloc_size(pool.bin_number(1000))
    first.free()
    assert pool.held_blocks == 1 and pool.active_blocks == 0
    again = pool.allocate(990)  # same size class: the held block
    assert int(again) == 0x1000 and pool.raw_allocations == [1024]
    other = pool.allocate(5000)
    assert int(other) == 0x2000
    del again  # collected: back to the pool
    assert pool.held_blocks == 1
    pool.stop_holding()
    assert pool.raw_frees == [0x1000] and pool.held_blocks == 0
    other.free()  # after stop_holding: released at once
    assert pool.raw_frees == [0x1000, 0x2000] and pool.managed_bytes == 0


def test_pool_frees_held_blocks_when_memory_runs_out():
    class Tight(CountingPool):
        def _allocate_raw(self, nbytes):
            if self.held_blocks:
                raise drv.MemoryError("out of memory")
            return super()._allocate_raw(nbytes)

    pool = Tight()
    pool.allocate(100).free()
    block = pool.allocate(100000)
    assert pool.raw_frees == [0x1000] and int(block) == 0x2000


def test_dtype_table():
    assert tools.dtype_to_ctype(np.float32) == "float"
    assert tools.dtype_to_ctype(np.uint32) == "unsigned int"
    assert tools.dtype_to_ctype(np.int64) == "long long"
    assert tools.dtype_to_ctype(np.complex64) == "cuda::std::complex<float>"
    assert tools.dtype_to_ctype(np.float64, with_fp_tex_hack=True) == "int2"
    from numbast_import.gpuarray import vec

    assert tools.dtype_to_ctype(vec.float3) == "float3" and vec.float3.itemsize == 12
    made = vec.make_float3(1, 2, 3)
    assert made.dtype == vec.float3 and made["z"] == 3
    assert tools.parse_c_arg("const float *__restrict__ x").struct_char == "P"
    assert tools.parse_c_arg("unsigned int n").dtype == np.uint32
    assert tools.get_arg_type("double a") == "d"
    with pytest.raises(TypeError, match="unknown C type"):
        tools.parse_c_arg("my_struct s")
    tools.register_dtype(np.dtype([("a", np.int32), ("b", np.float32)]), "pair_t")
    assert tools.parse_c_arg("pair_t p").struct_char == "8s"


def test_context_dependent_memoize_keys_on_the_context(monkeypatch):
    context = [1]
    monkeypatch.setattr(memoize, "current_context_key", lambda: context[0])
    calls = []

    @tools.context_dependent_memoize
    def make(x, y=0):
        calls.append((x, y))
        return object()

    first = make(1, y=2)
    assert make(1, y=2) is first and calls == [(1, 2)]
    context[0] = 2
    assert make(1, y=2) is not first and len(calls) == 2
    tools.clear_context_caches()
    make(1, y=2)
    assert len(calls) == 3

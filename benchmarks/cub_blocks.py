"""CUB's block primitives through ``import cuda_headers.cub_blocks`` against the same primitives
in CUDA C++ compiled by ``numbast_import.compiler.SourceModule`` (GPU).

Two kernels, the same in both languages, block size and data:
- ``reduce``: each block loads ITEMS int32 per thread with BlockLoad (warp-transpose) and sums
  its tile with BlockReduce; one int per block out.
- ``scan``: each block loads its tile the same way, BlockScan's InclusiveSum over the items of
  every thread, and BlockStore (warp-transpose) writes it back.

Each is timed with CUDA events (the median of --runs launches after warm-up, interleaved, the
second of two back-to-back launches timed so that the events bracket the kernel and not the
Python launch). Prints the medians and the ratio import / CUDA C++ (target <= 1.05); the
outputs are checked against each other and against NumPy first.

    python benchmarks/cub_blocks.py [--runs 50] [--elements 67108864]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
from pathlib import Path

import numpy as np
from numba import cuda
from numba.cuda import types

THREADS = 256
ITEMS = 4
TILE = THREADS * ITEMS

WRAPPER = """\
#include <cub/block/block_load.cuh>
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/block/block_store.cuh>
"""
RETAINED = ("block_load.cuh", "block_reduce.cuh", "block_scan.cuh", "block_store.cuh")

CXX = f"""
#include <cub/block/block_load.cuh>
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/block/block_store.cuh>

using Load = cub::BlockLoad<int, {THREADS}, {ITEMS}, cub::BLOCK_LOAD_WARP_TRANSPOSE>;
using Store = cub::BlockStore<int, {THREADS}, {ITEMS}, cub::BLOCK_STORE_WARP_TRANSPOSE>;
using Reduce = cub::BlockReduce<int, {THREADS}>;
using Scan = cub::BlockScan<int, {THREADS}>;

extern "C" __global__ void block_sums(const int *values, int *sums) {{
  __shared__ typename Load::TempStorage load_storage;
  __shared__ typename Reduce::TempStorage reduce_storage;
  int items[{ITEMS}];
  Load(load_storage).Load(values + blockIdx.x * {TILE}, items);
  int total = Reduce(reduce_storage).Sum(items);
  if (threadIdx.x == 0) sums[blockIdx.x] = total;
}}

extern "C" __global__ void block_scans(const int *values, int *out) {{
  __shared__ typename Load::TempStorage load_storage;
  __shared__ typename Scan::TempStorage scan_storage;
  __shared__ typename Store::TempStorage store_storage;
  int items[{ITEMS}];
  Load(load_storage).Load(values + blockIdx.x * {TILE}, items);
  Scan(scan_storage).InclusiveSum(items, items);
  Store(store_storage).Store(out + blockIdx.x * {TILE}, items);
}}
"""


def import_cub():
    """``cuda_headers.cub_blocks``, mapped to a wrapper of the CUB headers (in the temporary
    directory) with the headers retained."""
    import importlib

    from cuda import pathfinder

    import numbast_import

    cccl = pathfinder.find_nvidia_header_directory("cccl")
    directory = Path(tempfile.gettempdir()) / "numbast_cub_blocks"  # stable: a rerun hits
    directory.mkdir(exist_ok=True)
    wrapper = directory / "cub_blocks.cuh"
    wrapper.write_text(WRAPPER)
    retain = [os.path.join(cccl, "cub", "block", name) for name in RETAINED]
    numbast_import.register("cub_blocks", wrapper, retain=retain)
    return importlib.import_module("cuda_headers.cub_blocks")


def imported_kernels(cub):
    from numbast import element_pointer

    Load = cub.BlockLoad[types.int32, THREADS, ITEMS, cub.BLOCK_LOAD_WARP_TRANSPOSE]
    Store = cub.BlockStore[types.int32, THREADS, ITEMS, cub.BLOCK_STORE_WARP_TRANSPOSE]
    Reduce = cub.BlockReduce[types.int32, THREADS]
    Scan = cub.BlockScan[types.int32, THREADS]

    @cuda.jit
    def block_sums(values, sums):
        load_storage = cuda.shared.array(1, Load.TempStorage)
        reduce_storage = cuda.shared.array(1, Reduce.TempStorage)
        items = cuda.local.array(ITEMS, types.int32)
        Load(load_storage).Load(element_pointer(values, cuda.blockIdx.x * TILE), items)
        total = Reduce(reduce_storage).Sum(items, ITEMS_PER_THREAD=ITEMS)
        if cuda.threadIdx.x == 0:
            sums[cuda.blockIdx.x] = total

    @cuda.jit
    def block_scans(values, out):
        load_storage = cuda.shared.array(1, Load.TempStorage)
        scan_storage = cuda.shared.array(1, Scan.TempStorage)
        store_storage = cuda.shared.array(1, Store.TempStorage)
        items = cuda.local.array(ITEMS, types.int32)
        Load(load_storage).Load(element_pointer(values, cuda.blockIdx.x * TILE), items)
        Scan(scan_storage).InclusiveSum(items, items, ITEMS_PER_THREAD=ITEMS)
        Store(store_storage).Store(element_pointer(out, cuda.blockIdx.x * TILE), items)

    return block_sums, block_scans


def cxx_kernels():
    from numbast_import.compiler import SourceModule

    module = SourceModule(CXX, no_extern_c=True, options=["-std=c++17"])
    return module.get_function("block_sums"), module.get_function("block_scans")


def numba_timer(kernel, grid, args):
    start, stop = cuda.event(), cuda.event()

    def timed() -> float:
        kernel[grid, THREADS](*args)  # untimed: keeps the GPU busy while the next is queued
        start.record()
        kernel[grid, THREADS](*args)
        stop.record()
        stop.synchronize()
        return cuda.event_elapsed_time(start, stop)

    return timed


def cxx_timer(function, grid, args):
    pointers = [np.uintp(a.__cuda_array_interface__["data"][0]) for a in args]
    function.prepare("PP")
    start, stop = cuda.event(), cuda.event()

    def timed() -> float:
        function.prepared_call((grid, 1, 1), (THREADS, 1, 1), *pointers)
        start.record()  # the default stream, which prepared_call launches on too
        function.prepared_call((grid, 1, 1), (THREADS, 1, 1), *pointers)
        stop.record()
        stop.synchronize()
        return cuda.event_elapsed_time(start, stop)

    return timed


def medians(timers: dict, runs: int) -> dict[str, float]:
    for timed in timers.values():
        for _ in range(3):
            timed()
    samples: dict[str, list[float]] = {name: [] for name in timers}
    for _ in range(runs):
        for name, timed in timers.items():
            samples[name].append(timed())
    return {name: statistics.median(values) for name, values in samples.items()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--elements", type=int, default=2**26)
    args = parser.parse_args(argv)
    grid = args.elements // TILE
    count = grid * TILE
    host = np.random.default_rng(0).integers(-100, 100, count, dtype=np.int32)
    values = cuda.to_device(host)
    sums = {name: cuda.device_array(grid, np.int32) for name in ("import", "cxx")}
    scans = {name: cuda.device_array(count, np.int32) for name in ("import", "cxx")}

    sums_kernel, scans_kernel = imported_kernels(import_cub())
    cxx_sums, cxx_scans = cxx_kernels()
    timers = {
        "reduce import": numba_timer(sums_kernel, grid, (values, sums["import"])),
        "reduce cxx": cxx_timer(cxx_sums, grid, (values, sums["cxx"])),
        "scan import": numba_timer(scans_kernel, grid, (values, scans["import"])),
        "scan cxx": cxx_timer(cxx_scans, grid, (values, scans["cxx"])),
    }
    t = medians(timers, args.runs)
    tiles = host.reshape(grid, TILE)
    for name in ("import", "cxx"):
        np.testing.assert_array_equal(sums[name].copy_to_host(), tiles.sum(axis=1))
        np.testing.assert_array_equal(scans[name].copy_to_host(), np.cumsum(tiles, 1).ravel())

    device = cuda.get_current_device().name
    device = device.decode() if isinstance(device, bytes) else device
    print(f"device: {device}  elements: {count}  block: {THREADS} x {ITEMS} items")
    for kind in ("reduce", "scan"):
        ours, theirs = t[f"{kind} import"], t[f"{kind} cxx"]
        print(
            f"{kind}: median of {args.runs} (ms): import {ours:.4f}  CUDA C++ (SourceModule) "
            f"{theirs:.4f}  import / CUDA C++ = {ours / theirs:.3f}  (target <= 1.05)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())

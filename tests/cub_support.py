"""CUB's block and warp primitives through ``import cuda_headers.cub_blocks``: a wrapper header
including them, mapped with the CCCL headers that declare them retained (whichever CCCL the
toolkit wheels installed: the paths are looked up, not assumed), and the kernels the CPU tests
link and the GPU tests check against NumPy. Each primitive's TempStorage is in shared memory.
"""

from __future__ import annotations

import os

import numpy as np
from numba import cuda
from numba.cuda import types

THREADS = 128  # a block
ITEMS = 4  # items per thread for load, store and sort
WARPS = THREADS // 32

WRAPPER = """\
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/block/block_load.cuh>
#include <cub/block/block_store.cuh>
#include <cub/block/block_radix_sort.cuh>
#include <cub/warp/warp_reduce.cuh>
#include <cuda/functional>
"""

RETAINED = (
    "cub/block/block_reduce.cuh",
    "cub/block/block_scan.cuh",
    "cub/block/block_load.cuh",
    "cub/block/block_store.cuh",
    "cub/block/block_radix_sort.cuh",
    "cub/warp/warp_reduce.cuh",
)


def defining_header(cccl: str, directory: str, name: str) -> str:
    """The CCCL header under ``directory`` that defines the struct ``name``, or makes it an alias
    of one (CCCL 3.0, CUDA 13.0: ``using identity = __identity;``), found by its definition, as
    layouts move between versions; the umbrella header ``<directory>`` last."""
    import glob
    import re

    definition = re.compile(rf"struct\s+(?:\w+\s+)*{name}\b(?!\s*;)|using\s+{name}\s*=")
    candidates = sorted(glob.glob(os.path.join(cccl, directory, "__functional", "*.h")))
    for path in candidates + [os.path.join(cccl, directory, "functional")]:
        with open(path, encoding="utf-8", errors="replace") as file:
            if definition.search(file.read()):
                return path
    raise LookupError(f"no header under {cccl} defines {directory.replace('/', '::')}::{name}")


def maximum_header(cccl: str) -> str:
    """The CCCL header that defines ``cuda::maximum`` (``cuda/__functional/maximum.h`` in the
    CCCL this was written with)."""
    return defining_header(cccl, "cuda", "maximum")


def identity_header(cccl: str) -> str:
    """The CCCL header that defines ``cuda::std::identity``, a function object called with one
    argument (``cuda/std/__functional/identity.h`` in the CCCLs of CUDA 13.0 and 13.5)."""
    return defining_header(cccl, "cuda/std", "identity")


def cccl_dir() -> str:
    from cuda import pathfinder

    found = pathfinder.find_nvidia_header_directory("cccl")
    if found is None:
        raise LookupError("no CCCL headers: pip install 'numba-cuda[cu13]'")
    return found


def register_cub(directory) -> str:
    """Write the wrapper into ``directory`` and map ``cuda_headers.cub_blocks`` to it; returns
    the module name."""
    import numbast_import

    cccl = cccl_dir()
    wrapper = directory / "cub_blocks.cuh"
    wrapper.write_text(WRAPPER)
    retain = [os.path.join(cccl, path) for path in RETAINED]
    retain += [maximum_header(cccl), identity_header(cccl)]  # function objects to pass
    numbast_import.register(
        "cub_blocks",
        wrapper,
        retain=retain,
        # NVIDIA's nested form for a member template's parameter (the default reading of
        # ``T (&)[N]`` is the same: the kernel passes its array).
        function_argument_intents={"BlockLoad": {"Load": {"dst_items": "out_ptr"}}},
    )
    return "cuda_headers.cub_blocks"


# -- kernels -----------------------------------------------------------------------------------


def reduce_kernel(cub, algorithm: str | None = None):
    """BlockReduce's Sum and Reduce (cuda::maximum); ``algorithm`` names an enumerator of
    BlockReduceAlgorithm given as the third template argument (None: CUB's default)."""
    chosen = () if algorithm is None else (getattr(cub, algorithm),)
    Reduce = cub.BlockReduce[(types.int32, THREADS, *chosen)]
    Maximum = cub.maximum[types.int32]

    def kernel(values, out):
        storage = cuda.shared.array(1, Reduce.TempStorage)
        i = cuda.blockIdx.x * THREADS + cuda.threadIdx.x
        total = Reduce(storage).Sum(values[i])
        cuda.syncthreads()  # the storage is reused
        largest = Reduce(storage).Reduce(values[i], Maximum())
        if cuda.threadIdx.x == 0:
            out[2 * cuda.blockIdx.x] = total
            out[2 * cuda.blockIdx.x + 1] = largest

    return kernel


def reduce_expected(values: np.ndarray) -> np.ndarray:
    blocks = values.reshape(-1, THREADS)
    return np.stack([blocks.sum(axis=1), blocks.max(axis=1)], axis=1).ravel()


def scan_kernel(cub):
    Scan = cub.BlockScan[types.int32, THREADS]

    def kernel(values, inclusive, exclusive):
        storage = cuda.shared.array(1, Scan.TempStorage)
        i = cuda.blockIdx.x * THREADS + cuda.threadIdx.x
        inclusive[i] = Scan(storage).InclusiveSum(values[i])  # T& output: returned
        cuda.syncthreads()
        exclusive[i] = Scan(storage).ExclusiveSum(values[i])

    return kernel


def scan_expected(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    blocks = values.reshape(-1, THREADS)
    inclusive = np.cumsum(blocks, axis=1)
    return inclusive.ravel(), (inclusive - blocks).ravel()


def warp_kernel(cub):
    Warp = cub.WarpReduce[types.float32]

    def kernel(values, out):
        storage = cuda.shared.array(WARPS, Warp.TempStorage)  # one per warp
        warp = cuda.threadIdx.x // 32
        i = cuda.blockIdx.x * THREADS + cuda.threadIdx.x
        total = Warp(storage[warp:]).Sum(values[i])
        if cuda.threadIdx.x % 32 == 0:
            out[cuda.blockIdx.x * WARPS + warp] = total

    return kernel


def warp_expected(values: np.ndarray) -> np.ndarray:
    return values.reshape(-1, 32).sum(axis=1)


def load_store_kernel(cub, algorithm: str):
    """BlockLoad then BlockStore of ITEMS per thread, each item plus one; ``algorithm`` is
    ``DIRECT`` or ``WARP_TRANSPOSE``."""
    from numbast import element_pointer

    Load = cub.BlockLoad[types.int32, THREADS, ITEMS, getattr(cub, f"BLOCK_LOAD_{algorithm}")]
    Store = cub.BlockStore[types.int32, THREADS, ITEMS, getattr(cub, f"BLOCK_STORE_{algorithm}")]

    def kernel(source, out):
        load_storage = cuda.shared.array(1, Load.TempStorage)
        store_storage = cuda.shared.array(1, Store.TempStorage)
        items = cuda.local.array(ITEMS, types.int32)
        offset = cuda.blockIdx.x * THREADS * ITEMS
        Load(load_storage).Load(element_pointer(source, offset), items)
        for k in range(ITEMS):
            items[k] += 1
        Store(store_storage).Store(element_pointer(out, offset), items)

    return kernel


def direct_functions_kernel(cub):
    """CUB's free function templates LoadDirectBlocked and StoreDirectStriped (an iterator and
    an array reference ``T (&)[ITEMS]``): each item plus one, stored striped."""
    from numbast import element_pointer

    load = cub.LoadDirectBlocked[types.int32, ITEMS]  # <InputT, ITEMS_PER_THREAD>, iterator deduced
    store = cub.StoreDirectStriped[THREADS, types.int32, ITEMS]

    def kernel(source, out):
        items = cuda.local.array(ITEMS, types.int32)
        offset = cuda.blockIdx.x * THREADS * ITEMS
        load(cuda.threadIdx.x, element_pointer(source, offset), items)
        for k in range(ITEMS):
            items[k] += 1
        store(cuda.threadIdx.x, element_pointer(out, offset), items)

    return kernel


def direct_functions_expected(values: np.ndarray) -> np.ndarray:
    """Thread t holds items t * ITEMS .. of its block and stores item k at k * THREADS + t."""
    blocks = values.reshape(-1, THREADS, ITEMS) + 1
    return blocks.transpose(0, 2, 1).reshape(-1)


def transform_kernel(cub):
    """CUB's detail::load_transform_direct_striped with ``cuda::std::identity``, a function
    object made in the kernel and called with one argument: a striped load (thread t's item k
    is the block's item t + k * THREADS), each item plus one, stored blocked."""
    from numbast import element_pointer

    load = cub.load_transform_direct_striped[THREADS, types.int32, ITEMS]  # It, op deduced
    Identity = cub.identity  # cuda::std::identity

    def kernel(source, out):
        items = cuda.local.array(ITEMS, types.int32)
        offset = cuda.blockIdx.x * THREADS * ITEMS
        load(cuda.threadIdx.x, element_pointer(source, offset), items, Identity())
        for k in range(ITEMS):
            out[offset + cuda.threadIdx.x * ITEMS + k] = items[k] + 1

    return kernel


def transform_expected(values: np.ndarray) -> np.ndarray:
    """Thread t holds items t, t + THREADS, ... of its block and stores them at t * ITEMS .."""
    blocks = values.reshape(-1, ITEMS, THREADS) + 1
    return blocks.transpose(0, 2, 1).reshape(-1)


def sort_kernel(cub, key_type):
    """BlockRadixSort of THREADS * ITEMS keys per block, in a blocked arrangement."""
    Sort = cub.BlockRadixSort[key_type, THREADS, ITEMS]

    def kernel(keys, out):
        storage = cuda.shared.array(1, Sort.TempStorage)
        items = cuda.local.array(ITEMS, key_type)
        base = cuda.blockIdx.x * THREADS * ITEMS + cuda.threadIdx.x * ITEMS
        for k in range(ITEMS):
            items[k] = keys[base + k]
        Sort(storage).Sort(items)  # begin_bit and end_bit left to their defaults
        for k in range(ITEMS):
            out[base + k] = items[k]

    return kernel


def sort_expected(keys: np.ndarray) -> np.ndarray:
    return np.sort(keys.reshape(-1, THREADS * ITEMS), axis=1).ravel()

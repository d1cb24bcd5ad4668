"""Kernels that call bound CUDA C++ headers, on Dask workers: one worker per GPU.

A Dask array's blocks are processed on the workers by one kernel that calls easing.cuh's
``smoothstep`` on every value and CUB's ``BlockReduce`` for a sum per thread block; the results
are compared with NumPy. The header modules travel to the workers pickled, as their mappings
(docs/clusters.md): the workers need no pyproject.toml, and they take the bindings from the
cache (from a read-only layer, when NUMBAST_CACHE_PATH names one: then no worker parses or
compiles a header). Each worker makes the kernel in its own process, once: a template instance
(``cub.BlockReduce[types.float32, 128]``) belongs to the process that made it.

    pip install "numbast-import[dask]"
    python examples/dask_kernels.py                # one worker per GPU
    python examples/dask_kernels.py --workers 2    # two workers, GPUs taken in turn
    python examples/dask_kernels.py --compile-only sm_90 --workers 2
                                                   # no GPU: each worker compiles and links it

With dask-cuda installed, the workers are a ``LocalCUDACluster``; without it, one
``distributed`` worker process per GPU, each with its own ``CUDA_VISIBLE_DEVICES``. The
workers inherit this process's environment (NUMBAST_CACHE_DIR, NUMBAST_CACHE_PATH, ...).
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import numpy as np

import numbast_import

HERE = Path(__file__).resolve().parent
THREADS = 128  # threads per block; the kernel sums each block's values
EDGES = (0.2, 0.8)  # smoothstep's edges


def register_headers() -> None:
    """Map cuda_headers.easing and cuda_headers.cub (only in this process: the workers get
    the mappings with the modules)."""
    from cuda import pathfinder

    cccl = pathfinder.find_nvidia_header_directory("cccl")
    block_reduce = os.path.join(cccl, "cub", "block", "block_reduce.cuh")
    numbast_import.register("easing", HERE / "easing.cuh")
    numbast_import.register("cub", HERE / "cub_block_reduce.cuh", retain=[block_reduce])


def make_kernel(easing, cub):
    """The kernel, made in the process that runs it."""
    from numba import cuda
    from numba.cuda import types

    low, high = np.float32(EDGES[0]), np.float32(EDGES[1])
    Reduce = cub.BlockReduce[types.float32, THREADS]  # cub::BlockReduce<float, 128>

    @cuda.jit
    def smooth_and_sum(x, y, block_sums):
        storage = cuda.shared.array(1, Reduce.TempStorage)
        i = cuda.grid(1)
        value = np.float32(0.0)
        if i < x.size:
            value = easing.smoothstep(low, high, x[i])
            y[i] = value
        total = Reduce(storage).Sum(value)  # valid in thread 0
        if cuda.threadIdx.x == 0:
            block_sums[cuda.blockIdx.x] = total

    return smooth_and_sum


class Smoother:
    """What each worker gets once (``client.scatter``): the header modules, which pickle as
    their mappings. It makes the kernel at its first use there and keeps it."""

    def __init__(self, easing, cub) -> None:
        self.easing, self.cub = easing, cub
        self._kernel = None

    def kernel(self):
        if self._kernel is None:
            self._kernel = make_kernel(self.easing, self.cub)
        return self._kernel

    def __getstate__(self) -> dict:
        return {"easing": self.easing, "cub": self.cub, "_kernel": None}


def process_block(x, smoother: Smoother):
    """On a worker: the kernel over one block of the array; returns (y, sums per THREADS)."""
    from numba import cuda

    blocks = (x.size + THREADS - 1) // THREADS
    d_x = cuda.to_device(x)
    d_y = cuda.device_array_like(d_x)
    d_sums = cuda.device_array(blocks, np.float32)
    smoother.kernel()[blocks, THREADS](d_x, d_y, d_sums)
    return d_y.copy_to_host(), d_sums.copy_to_host()


def link_on_worker(smoother: Smoother, arch: str):
    """On a worker without a GPU: compile the kernel for ``arch`` and link it (with the
    header's shims) into a cubin; returns (pid, cubin size)."""
    from cuda.core import Linker, LinkerOptions, ObjectCode
    from numba import cuda
    from numba.cuda import types

    digits = arch.removeprefix("sm_")
    signature = (types.float32[:], types.float32[:], types.float32[:])
    codes, _ = cuda.compile_all(
        smoother.kernel().py_func,
        signature,
        device=False,
        abi="numba",
        cc=(int(digits[:-1]), int(digits[-1])),
        output="ltoir",
    )
    objects = [ObjectCode.from_ltoir(bytes(codes[0]), name="kernel")]
    objects += [ObjectCode.from_ltoir(code.data, name=code.name) for code in codes[1:]]
    options = LinkerOptions(arch=arch, link_time_optimization=True)
    cubin = Linker(*objects, options=options).link("cubin").code
    return os.getpid(), len(cubin)


def numpy_reference(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    low, high = np.float32(EDGES[0]), np.float32(EDGES[1])
    t = np.clip((x - low) / (high - low), np.float32(0.0), np.float32(1.0))
    y = t * t * (np.float32(3.0) - np.float32(2.0) * t)
    return y, np.add.reduceat(y, np.arange(0, x.size, THREADS))


def start_cluster(workers: int, compile_only: bool):
    """A LocalCUDACluster (dask-cuda), else one worker process per GPU, each seeing its GPU
    alone; without GPUs (compile_only), plain worker processes."""
    from distributed import LocalCluster, Nanny, Scheduler, SpecCluster

    if compile_only:
        return LocalCluster(n_workers=workers, threads_per_worker=1, dashboard_address=None)
    from numba import cuda

    gpus = len(cuda.gpus)
    try:
        from dask_cuda import LocalCUDACluster
    except ImportError:
        LocalCUDACluster = None
    if LocalCUDACluster is not None and workers <= gpus:
        return LocalCUDACluster(n_workers=workers, threads_per_worker=1, dashboard_address=None)
    specs = {
        f"gpu-{i}": {
            "cls": Nanny,
            "options": {"nthreads": 1, "env": {"CUDA_VISIBLE_DEVICES": str(i % gpus)}},
        }
        for i in range(workers)
    }
    scheduler = {"cls": Scheduler, "options": {"dashboard_address": None}}
    return SpecCluster(workers=specs, scheduler=scheduler)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, help="worker processes (default: one per GPU)")
    parser.add_argument("--compile-only", metavar="ARCH", help="no GPU: compile for ARCH")
    parser.add_argument("--size", type=int, default=1 << 22, help="array length")
    parser.add_argument("--chunk", type=int, default=1 << 19, help="Dask block length")
    args = parser.parse_args()
    if args.compile_only:
        os.environ.setdefault("NUMBAST_IMPORT_ARCH", args.compile_only)  # no GPU to ask
    import dask.array as da
    from distributed import Client
    from numba import cuda

    register_headers()
    import cuda_headers.cub as cub
    import cuda_headers.easing as easing

    workers = args.workers or (2 if args.compile_only else len(cuda.gpus))
    started = time.perf_counter()
    with start_cluster(workers, bool(args.compile_only)) as cluster, Client(cluster) as client:
        up = time.perf_counter() - started
        addresses = sorted(client.scheduler_info()["workers"])
        # Each worker unpickles it once, importing the header modules from their mappings.
        on_workers = client.scatter(Smoother(easing, cub), broadcast=True, hash=False)
        if args.compile_only:
            linked = client.gather(
                [
                    client.submit(
                        link_on_worker, on_workers, args.compile_only, workers=[w], pure=False
                    )
                    for w in addresses
                ]
            )
            ready = time.perf_counter() - started
            sizes = ", ".join(f"pid {pid}: {size} bytes" for pid, size in linked)
            print(
                f"linked for {args.compile_only} on {len({p for p, _ in linked})} worker(s) "
                f"({sizes}); cluster up in {up:.1f} s, linked in {ready:.1f} s"
            )
            return 0
        # Ready to launch: every worker has made and compiled the kernel and launched it once.
        probe = np.zeros(THREADS, np.float32)
        client.gather(
            [
                client.submit(process_block, probe, on_workers, workers=[w], pure=False)
                for w in addresses
            ]
        )
        ready = time.perf_counter() - started
        x = da.random.default_rng(26).random(args.size, chunks=args.chunk, dtype=np.float32)
        blocks = client.compute(x.to_delayed().ravel().tolist())
        results = client.gather(client.map(process_block, blocks, smoother=on_workers, pure=False))
        x_host = np.concatenate(client.gather(blocks))
    y = np.concatenate([y for y, _ in results])
    sums = np.concatenate([s for _, s in results])
    references = [numpy_reference(b) for b in np.split(x_host, np.cumsum(x.chunks[0])[:-1])]
    y_ref = np.concatenate([y for y, _ in references])
    sums_ref = np.concatenate([s for _, s in references])
    np.testing.assert_allclose(y, y_ref, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(sums, sums_ref, rtol=1e-5, atol=1e-4)
    print(
        f"{args.size} values in {len(results)} Dask blocks on {len(addresses)} worker(s) match "
        f"NumPy (smoothstep, and {sums.size} BlockReduce sums); cluster up in {up:.1f} s, "
        f"every worker ready to launch in {ready:.1f} s"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

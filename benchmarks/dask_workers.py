"""Time until Dask worker processes are ready to launch a kernel that uses a mapped header
(CPU; no GPU needed), with and without a warmed read-only cache layer.

Each run starts a fresh ``distributed.LocalCluster`` of N worker processes (one thread each)
in a directory with no pyproject.toml and sends every worker one task: unpickle the kernel
(which imports ``cuda_headers.vec`` from its pickled mapping), compile it to LTO-IR for sm_90
and link it with the header's shims into a cubin (numba-cuda + cuda.core's Linker: what a
first launch does, minus the driver). ``up`` is the time from starting the cluster until every
worker has connected; ``ready`` until every worker has returned that task. Variants, run in
turn within each round:

- ``plain``: a kernel with no bindings (the reference: distributed and Numba alone);
- ``layer``: ``NUMBAST_CACHE_PATH`` names a layer warmed before timing (``numbast-cache warm
  vec --arch sm_90 --into LAYER``) and each run's writable root is new (it stays empty);
- ``no layer``: each run's writable root is new and empty, shared by the host's workers: one
  worker builds the entry under its lock, the others wait for it and load it.

Prints medians of R rounds (default 3) for each N (default 2 and 8): wall times, the CPU
seconds each worker process had used when it was ready (median and maximum over the workers;
CPU time is hardly changed by other processes of a loaded machine, wall time is), and how many
workers parsed the header (``clang.cindex`` loaded: expected 0 with the layer, 1 without).

    python benchmarks/dask_workers.py [--workers 2 8] [--rounds 3]
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PROJECT = ROOT / "tests" / "data" / "import" / "proj"


def ready_on_worker(kernel) -> dict:
    """On a worker: compile and link the (unpickled) kernel for sm_90."""
    from cuda.core import Linker, LinkerOptions, ObjectCode
    from numba import cuda
    from numba.cuda import types

    codes, _ = cuda.compile_all(
        kernel.py_func, (types.float32[:],), device=False, abi="numba", cc=(9, 0), output="ltoir"
    )
    objects = [ObjectCode.from_ltoir(bytes(codes[0]), name="kernel")]
    objects += [ObjectCode.from_ltoir(code.data, name=code.name) for code in codes[1:]]
    options = LinkerOptions(arch="sm_90", link_time_optimization=True)
    Linker(*objects, options=options).link("cubin")
    # CPU seconds of the whole worker process so far (start-up, unpickling, import, compile):
    # unlike wall time, hardly changed by other processes of a loaded machine.
    return {"pid": os.getpid(), "parsed": "clang.cindex" in sys.modules, "cpu": time.process_time()}


def one_run(kernel, workers: int, workdir: Path) -> dict:
    from distributed import Client, LocalCluster

    started = time.perf_counter()
    os.chdir(workdir)  # the workers start here: no pyproject.toml
    with (
        LocalCluster(
            n_workers=workers,
            threads_per_worker=1,
            processes=True,
            dashboard_address=None,
            silence_logs=logging.ERROR,
        ) as cluster,
        Client(cluster) as client,
    ):
        client.wait_for_workers(workers)
        up = time.perf_counter() - started
        addresses = sorted(client.scheduler_info()["workers"])
        futures = [
            client.submit(ready_on_worker, kernel, workers=[w], pure=False) for w in addresses
        ]
        results = client.gather(futures)
        ready = time.perf_counter() - started
    cpu = sorted(r["cpu"] for r in results)
    parsed = sum(r["parsed"] for r in results)
    return {"up": up, "ready": ready, "parsed": parsed, "cpu_median": statistics.median(cpu),
            "cpu_max": cpu[-1]}  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, nargs="+", default=[2, 8])
    parser.add_argument("--rounds", type=int, default=3)
    options = parser.parse_args(argv)
    scratch = Path(tempfile.mkdtemp(prefix="numbast-dask-bench-"))
    try:
        project, workdir, layer = scratch / "proj", scratch / "work", scratch / "layer"
        shutil.copytree(PROJECT, project)
        workdir.mkdir()
        os.environ.pop("NUMBAST_IMPORT_CONFIG", None)
        os.environ.update(NUMBAST_IMPORT_QUIET="1", NUMBAST_IMPORT_ARCH="sm_90")
        env = dict(os.environ, NUMBAST_CACHE_DIR=str(scratch / "warming"))
        subprocess.run(
            [sys.executable, "-m", "numbast_import.cli", "warm", "vec", "--arch", "sm_90"]
            + ["--into", str(layer)],
            cwd=project,
            env=env,
            check=True,
        )
        # This process is the user's: it imports the module (from the layer) and defines the
        # kernels in __main__, so they pickle by value and the module as its mapping.
        os.chdir(project)
        os.environ.update(NUMBAST_CACHE_DIR=str(layer))
        from numba import cuda

        import cuda_headers.vec as vec

        @cuda.jit
        def with_header(out):
            a = vec.Vec2(1.0, 2.0)
            out[0] = vec.scaled_dot(a, a)

        @cuda.jit
        def plain(out):
            x, y = out[1], out[2]
            out[0] = 2.0 * (x * x + y * y)

        variants = {
            "plain": (plain, None),
            "layer": (with_header, str(layer)),
            "no layer": (with_header, None),
        }
        print(f"Python {sys.version.split()[0]}, {os.cpu_count()} CPUs")
        for workers in options.workers:
            times: dict[str, list[dict]] = {name: [] for name in variants}
            for round_ in range(options.rounds):
                for name, (kernel, layers) in variants.items():
                    fresh = scratch / f"host-{workers}-{round_}-{name.replace(' ', '-')}"
                    os.environ["NUMBAST_CACHE_DIR"] = str(fresh)
                    if layers:
                        os.environ["NUMBAST_CACHE_PATH"] = layers
                    else:
                        os.environ.pop("NUMBAST_CACHE_PATH", None)
                    load = os.getloadavg()[0]  # other processes of the machine, for the record
                    result = one_run(kernel, workers, workdir)
                    result["load"] = load
                    result["entries"] = len(list(fresh.glob("[0-9a-f][0-9a-f]/*")))
                    times[name].append(result)
                    print(json.dumps({"workers": workers, "variant": name, **result}))
            plain_ready = statistics.median(r["ready"] for r in times["plain"])
            print(f"\n{workers} workers, medians of {options.rounds}:")
            plain_cpu = statistics.median(r["cpu_median"] for r in times["plain"])
            print(
                "| variant | up (s) | ready (s) | ready / plain | worker CPU (s): median, "
                "max | CPU / plain | parsed |"
            )
            print("|---|---|---|---|---|---|---|")
            for name, results in times.items():
                up = statistics.median(r["up"] for r in results)
                ready = statistics.median(r["ready"] for r in results)
                cpu = statistics.median(r["cpu_median"] for r in results)
                cpu_max = statistics.median(r["cpu_max"] for r in results)
                parsed = "/".join(str(r["parsed"]) for r in results)
                print(
                    f"| {name} | {up:.2f} | {ready:.2f} | {ready / plain_ready:.2f} | "
                    f"{cpu:.2f}, {cpu_max:.2f} | {cpu / plain_cpu:.2f} | {parsed} |"
                )
            print()
    finally:
        os.chdir(ROOT)
        shutil.rmtree(scratch, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

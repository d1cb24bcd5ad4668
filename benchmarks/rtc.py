"""Runtime compilation (numbast_import.compiler / driver) on a GPU, medians in one run:

1. ``SourceModule(source)`` from the disk cache, in fresh processes (imports and the context
   are made before timing; target < 2 ms), and then ``get_function`` (loads the module);
2. ``SourceModule(source)`` again in one process, from the in-process memo (target < 50 us);
3. host time per launch of ``prepared_call`` and ``Function.__call__`` against CuPy's
   ``RawKernel`` on the same kernel (targets: at most 1.0x and 1.5x of CuPy).

    python benchmarks/rtc.py [--processes 9] [--launches 200] [--rounds 21]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

SOURCE = """
__global__ void axpy(float a, float *x, float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
"""

CHILD = """
import json, sys, time
import numbast_import.autoinit
from numbast_import.compiler import SourceModule
source = sys.argv[1]
t0 = time.perf_counter()
module = SourceModule(source)
t1 = time.perf_counter()
module.get_function("axpy")
t2 = time.perf_counter()
print(json.dumps({"construct": t1 - t0, "get_function": t2 - t1,
                  "nvrtc_loaded": "cuda.bindings.nvrtc" in sys.modules}))
"""


def fresh_process_times(processes: int, env: dict[str, str]) -> list[dict]:
    results = []
    for _ in range(processes):
        done = subprocess.run(
            [sys.executable, "-c", CHILD, SOURCE], env=env, capture_output=True, text=True,
            check=True,
        )  # fmt: skip
        results.append(json.loads(done.stdout.strip().splitlines()[-1]))
    return results


def per_call(fn, calls: int, rounds: int, sync) -> float:
    """Median over rounds of (time for ``calls`` calls) / calls, in seconds."""
    samples = []
    for _ in range(rounds):
        sync()
        start = time.perf_counter()
        for _ in range(calls):
            fn()
        samples.append((time.perf_counter() - start) / calls)
    sync()
    return statistics.median(samples)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--processes", type=int, default=9)
    parser.add_argument("--launches", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=21)
    options = parser.parse_args()

    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "NUMBAST_CACHE_DIR": cache}
        os.environ["NUMBAST_CACHE_DIR"] = cache
        import numpy as np

        import numbast_import.autoinit  # noqa: F401
        import numbast_import.driver as drv
        from numbast_import.compiler import SourceModule, clear_memo

        start = time.perf_counter()
        module = SourceModule(SOURCE)  # compiles and fills the disk cache
        first_compile = time.perf_counter() - start

        fresh = fresh_process_times(options.processes, env)
        construct = statistics.median(r["construct"] for r in fresh)
        load = statistics.median(r["get_function"] for r in fresh)
        nvrtc_loaded = any(r["nvrtc_loaded"] for r in fresh)

        memo_samples = []
        for _ in range(2001):
            t0 = time.perf_counter_ns()
            SourceModule(SOURCE)
            memo_samples.append(time.perf_counter_ns() - t0)
        memo = statistics.median(memo_samples) * 1e-9

        clear_memo()
        disk_samples = []
        for _ in range(51):
            clear_memo()
            t0 = time.perf_counter_ns()
            SourceModule(SOURCE)
            disk_samples.append(time.perf_counter_ns() - t0)
        disk_in_process = statistics.median(disk_samples) * 1e-9

        n = 1 << 12
        x = drv.to_device(np.ones(n, np.float32))
        y = drv.to_device(np.zeros(n, np.float32))
        axpy = module.get_function("axpy")
        a, count = np.float32(2.0), np.int32(n)
        grid, block = (n // 256, 1), (256, 1, 1)
        sync = drv.Context.synchronize

        def call():
            axpy(a, x, y, count, block=block, grid=grid)

        prepared = SourceModule(SOURCE).get_function("axpy").prepare("fPPi")

        def prepared_call():
            prepared.prepared_call(grid, block, a, x, y, count)

        results = {
            "Function.__call__": per_call(call, options.launches, options.rounds, sync),
            "prepared_call": per_call(prepared_call, options.launches, options.rounds, sync),
        }
        try:
            import cupy
        except ImportError:
            cupy = None
        if cupy is not None:
            # CuPy compiles the source as it is: give the kernel C linkage, as SourceModule does.
            raw = cupy.RawKernel(f'extern "C" {{\n{SOURCE}\n}}', "axpy")
            cx = cupy.ones(n, dtype=cupy.float32)
            cy = cupy.zeros(n, dtype=cupy.float32)

            def cupy_call():
                raw(grid[:1], block[:1], (a, cx, cy, count))

            results["CuPy RawKernel"] = per_call(
                cupy_call, options.launches, options.rounds, cupy.cuda.Device().synchronize
            )

            def call_with_cupy_arrays():
                axpy(a, cx, cy, count, block=block, grid=grid)

            results["Function.__call__ (CuPy arrays)"] = per_call(
                call_with_cupy_arrays, options.launches, options.rounds, sync
            )
        # y += 2 * x on every launch of ours (the CuPy runs write to cy)
        launches_on_y = 2 * options.launches * options.rounds
        got = drv.from_device(y, (n,), np.float32)
        assert np.all(got == 2.0 * launches_on_y), "wrong results: the timings are void"

    print(f"first compile (NVRTC, fills the cache): {first_compile * 1e3:.1f} ms")
    print(
        f"SourceModule from disk cache, fresh process: {construct * 1e3:.3f} ms median of "
        f"{options.processes} (target < 2 ms); NVRTC loaded: {nvrtc_loaded}"
    )
    print(f"  then get_function (module load): {load * 1e3:.3f} ms")
    print(f"SourceModule from disk cache, same process: {disk_in_process * 1e3:.3f} ms")
    print(f"SourceModule from in-process memo: {memo * 1e6:.2f} us (target < 50 us)")
    for name, seconds in results.items():
        print(f"host time per launch, {name}: {seconds * 1e6:.2f} us")
    if "CuPy RawKernel" in results:
        base = results["CuPy RawKernel"]
        print(f"ratio prepared_call / CuPy: {results['prepared_call'] / base:.2f} (target <= 1.0)")
        print(
            f"ratio Function.__call__ / CuPy: {results['Function.__call__'] / base:.2f} "
            "(target <= 1.5)"
        )


if __name__ == "__main__":
    main()

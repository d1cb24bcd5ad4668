"""Runtime compilation (numbast_import.compiler / driver) on a GPU, medians in one run:

1. ``SourceModule(source)`` from the disk cache, in fresh processes (imports and the context
   are made before timing; target < 2 ms), and then ``get_function`` (loads the module);
2. ``SourceModule(source)`` again in one process, from the in-process memo (target < 50 us);
3. host time per launch of ``prepared_call`` and ``Function.__call__`` against CuPy's
   ``RawKernel`` on the same kernel (targets: at most 1.0x and 1.5x of CuPy);
4. ``gpuarray.to_gpu`` + ``ElementwiseKernel``: the first call in a fresh process with the
   kernel in the disk cache (target < 5 ms; CuPy's ElementwiseKernel from its own disk cache
   beside it; the context's first launch, tens of ms for any kernel, is paid before either),
   and host time per call against CuPy's ``ElementwiseKernel`` on the same operation and
   arrays of the same size (target <= 1.1x CuPy).

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


ELEMENTWISE = ("float a, float *x, float *y", "y[i] = a*x[i] + y[i]", "axpy_elwise")
CUPY_ELEMENTWISE = ("float32 a, float32 x", "float32 y", "y = a * x + y", "axpy_elwise")

CHILD_ELEMENTWISE = """
import json, sys, time
import numpy as np
import numbast_import.autoinit
import numbast_import.driver as drv
from numbast_import import gpuarray
from numbast_import.elementwise import ElementwiseKernel
arguments, operation, name = json.loads(sys.argv[1])
from numbast_import.compiler import SourceModule
x = gpuarray.to_gpu(np.ones(4096, np.float32))
y = gpuarray.zeros(4096, np.float32)
# The context's first kernel launch costs tens of ms whatever the kernel (lazy loading, the
# launch machinery): pay it with another kernel (from the disk cache) before timing, so that
# what is timed is the ElementwiseKernel's own first call, as CuPy's is timed after it.
warm_up = SourceModule(sys.argv[3]).get_function("axpy")
warm_up(np.float32(0), y.gpudata, y.gpudata, np.int32(1), block=(32, 1, 1), grid=(1, 1))
drv.Context.synchronize()
t0 = time.perf_counter()
kernel = ElementwiseKernel(arguments, operation, name)
t_made = time.perf_counter()
kernel.generate_stride_kernel_and_types(False)  # SourceModule from the disk cache, get_function
t_loaded = time.perf_counter()
kernel(np.float32(2), x, y)
t1 = time.perf_counter()
drv.Context.synchronize()
t2 = time.perf_counter()
assert (y.get() == 2).all()
result = {"first_call": t1 - t0, "first_call_synchronized": t2 - t0,
          "construct": t_made - t0, "module": t_loaded - t_made, "launch": t1 - t_loaded}
try:
    import cupy
except ImportError:
    cupy = None
if cupy is not None:
    in_params, out_params, cupy_operation, cupy_name = json.loads(sys.argv[2])
    cx = cupy.ones(4096, cupy.float32)
    cy = cupy.zeros(4096, cupy.float32)
    cupy.cuda.Device().synchronize()
    t0 = time.perf_counter()
    cupy.ElementwiseKernel(in_params, out_params, cupy_operation, cupy_name)(
        np.float32(2), cx, cy)
    result["cupy_first_call"] = time.perf_counter() - t0
print(json.dumps(result))
"""


def fresh_process_times(
    processes: int, env: dict[str, str], child: str = CHILD, arguments: tuple[str, ...] = (SOURCE,)
) -> list[dict]:
    results = []
    for _ in range(processes):
        done = subprocess.run(
            [sys.executable, "-c", child, *arguments],
            env=env,
            capture_output=True,
            text=True,
        )
        if done.returncode:
            # the child's traceback is the whole story of a failed measurement
            raise SystemExit(f"a fresh process failed ({done.returncode}):\n{done.stderr}")
        results.append(json.loads(done.stdout.strip().splitlines()[-1]))
    return results


def elementwise_times(options: argparse.Namespace, env: dict[str, str]) -> list[str]:
    """Part 4: lines to print."""
    import numpy as np

    import numbast_import.driver as drv
    from numbast_import import gpuarray
    from numbast_import.elementwise import ElementwiseKernel

    arguments = (json.dumps(ELEMENTWISE), json.dumps(CUPY_ELEMENTWISE), SOURCE)
    # the first process compiles (both caches); the others find the kernel on disk
    fresh_process_times(1, env, CHILD_ELEMENTWISE, arguments)
    fresh = fresh_process_times(options.processes, env, CHILD_ELEMENTWISE, arguments)
    first = statistics.median(r["first_call"] for r in fresh)
    lines = [
        f"ElementwiseKernel first call from disk cache, fresh process: {first * 1e3:.3f} ms "
        f"median of {options.processes} (target < 5 ms); with the kernel finished: "
        f"{statistics.median(r['first_call_synchronized'] for r in fresh) * 1e3:.3f} ms",
        "  of which (medians, ms): "
        + ", ".join(
            f"{label} {statistics.median(r[part] for r in fresh) * 1e3:.3f}"
            for label, part in [
                ("construct", "construct"),
                ("SourceModule + get_function", "module"),
                ("launch", "launch"),
            ]
        )
        + " (the context's first launch is paid before timing, by another kernel)",
    ]
    if "cupy_first_call" in fresh[0]:
        cupy_first = statistics.median(r["cupy_first_call"] for r in fresh)
        lines.append(
            f"  CuPy ElementwiseKernel first call from its disk cache: {cupy_first * 1e3:.3f} ms"
        )

    n = 1 << 12
    host = np.ones(n, np.float32)
    kernel = ElementwiseKernel(*ELEMENTWISE)
    x, y = gpuarray.to_gpu(host), gpuarray.zeros(n, np.float32)
    a = np.float32(2.0)
    sync = drv.Context.synchronize
    times = {
        "gpuarray.to_gpu": per_call(lambda: gpuarray.to_gpu(host), 50, options.rounds, sync),
        "ElementwiseKernel": per_call(
            lambda: kernel(a, x, y), options.launches, options.rounds, sync
        ),
    }
    calls = options.launches * options.rounds  # each adds 2 to every element of y
    try:
        import cupy
    except ImportError:
        cupy = None
    if cupy is not None:
        cupy_kernel = cupy.ElementwiseKernel(*CUPY_ELEMENTWISE)
        cx, cy = cupy.asarray(host), cupy.zeros(n, cupy.float32)
        cupy_sync = cupy.cuda.Device().synchronize
        times["CuPy asarray"] = per_call(lambda: cupy.asarray(host), 50, options.rounds, cupy_sync)
        times["CuPy ElementwiseKernel"] = per_call(
            lambda: cupy_kernel(a, cx, cy), options.launches, options.rounds, cupy_sync
        )
        assert (cupy.asnumpy(cy) == 2.0 * calls).all(), "wrong CuPy results"
    assert (y.get() == 2.0 * calls).all(), "wrong results: the timings are void"
    for name, seconds in times.items():
        lines.append(f"host time per call, {name}: {seconds * 1e6:.2f} us")
    if "CuPy ElementwiseKernel" in times:
        ratio = times["ElementwiseKernel"] / times["CuPy ElementwiseKernel"]
        lines.append(f"ratio ElementwiseKernel / CuPy: {ratio:.2f} (target <= 1.1)")
    return lines


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
        elementwise_lines = elementwise_times(options, env)

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
    for line in elementwise_lines:
        print(line)


if __name__ == "__main__":
    main()

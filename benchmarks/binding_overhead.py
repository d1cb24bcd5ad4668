"""Cost of calling a bound C++ function from a kernel (GPU).

A float32 kernel chains K = 64 calls of the bound ``__device__ float my_fma(float, float,
float)`` per element over 2**25 elements. It is timed with CUDA events (median of 30 runs after
warm-up) against (a) the same loop in plain Numba (``cuda.fma``) and (b) the same kernel in
CUDA C++ compiled with NVRTC through cuda.core. Prints the medians and the ratios.

``--backend mlir`` writes the two Numba kernels with numba-cuda-mlir
(``from numba_cuda_mlir import cuda``) instead: the bound call against plain numba-cuda-mlir.

    python benchmarks/binding_overhead.py [--runs 30] [--elements 33554432] [--backend mlir]
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

import numpy as np

HEADER = Path(__file__).resolve().parent / "data" / "my_fma.cuh"
K = 64
BLOCK = 256

CXX_KERNEL = f"""
#include "{HEADER}"
extern "C" __global__ void chain(const float* x, float* out, float b, float c, int n) {{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {{
    float v = x[i];
    for (int k = 0; k < {K}; ++k) v = my_fma(v, b, c);
    out[i] = v;
  }}
}}
extern "C" __global__ void chain_wide(const float* x, float* out, float b, float c,
                                      long long n) {{
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {{
    float v = x[i];
    for (int k = 0; k < {K}; ++k) v = my_fma(v, b, c);
    out[i] = v;
  }}
}}
"""


# the Numba-CUDA module kernels are written with: numba-cuda's, or numba-cuda-mlir's (--backend)
cuda = None


def use_backend(backend: str) -> None:
    global cuda
    if backend == "mlir":
        from numba_cuda_mlir import cuda as chosen
    else:
        from numba import cuda as chosen
    cuda = chosen


def numba_kernels():
    from numbast import bind_header

    my_fma = bind_header(HEADER).my_fma

    @cuda.jit
    def bound(x, out, b, c):
        i = cuda.grid(1)
        if i < x.size:
            v = x[i]
            for _ in range(K):
                v = my_fma(v, b, c)
            out[i] = v

    @cuda.jit
    def plain(x, out, b, c):
        i = cuda.grid(1)
        if i < x.size:
            v = x[i]
            for _ in range(K):
                v = cuda.fma(v, b, c)
            out[i] = v

    return bound, plain


# Each sample launches the kernel twice and times the second launch only: the first keeps the
# GPU busy while the host prepares the second, so the events bracket kernel execution and not
# the Python launch overhead (tens of microseconds for a Numba dispatch, which the GPU would
# otherwise spend idle between the start event and the kernel).


def numba_launcher(kernel, args, grid):
    """A function that launches ``kernel`` and returns one kernel time in ms (CUDA events)."""
    start, stop = cuda.event(), cuda.event()

    def launch_once() -> float:
        kernel[grid, BLOCK](*args)  # untimed: keeps the stream busy
        start.record()
        kernel[grid, BLOCK](*args)
        stop.record()
        stop.synchronize()
        return cuda.event_elapsed_time(start, stop)

    return launch_once


def cxx_launchers(x, out_narrow, out_wide, b, c, n, grid):
    """Launch-and-time functions for the two C++ kernels (NVRTC through cuda.core)."""
    from cuda.core import Device, EventOptions, LaunchConfig, Program, ProgramOptions, launch

    from ast_canopy.toolkit import cuda_include_dirs

    device = Device()
    device.set_current()
    arch = "sm_{}{}".format(*device.compute_capability)
    options = ProgramOptions(arch=arch, std="c++17", include_path=cuda_include_dirs())
    module = Program(CXX_KERNEL, "c++", options=options).compile("cubin")
    stream = device.create_stream()
    config = LaunchConfig(grid=grid, block=BLOCK)
    timing = EventOptions(timing_enabled=True)

    def pointer(array) -> np.uint64:
        # Device pointers travel as 64-bit integers (same ABI as a pointer parameter).
        return np.uint64(array.__cuda_array_interface__["data"][0])

    def launcher(name, out, count):
        kernel = module.get_kernel(name)
        args = (pointer(x), pointer(out), np.float32(b), np.float32(c), count)

        def launch_once() -> float:
            launch(stream, config, kernel, *args)  # untimed: keeps the stream busy
            start = stream.record(options=timing)
            launch(stream, config, kernel, *args)
            stop = stream.record(options=timing)
            stop.sync()
            return stop - start

        return launch_once

    return launcher("chain", out_narrow, np.int32(n)), launcher("chain_wide", out_wide, np.int64(n))


def time_interleaved(launchers: dict, runs: int) -> dict[str, float]:
    """Median time of each launcher over ``runs`` rounds; each round runs every launcher once."""
    for launch_once in launchers.values():
        for _ in range(3):
            launch_once()
    samples: dict[str, list[float]] = {name: [] for name in launchers}
    for _ in range(runs):
        for name, launch_once in launchers.items():
            samples[name].append(launch_once())
    return {name: statistics.median(values) for name, values in samples.items()}


def _device_name() -> str:
    name = cuda.get_current_device().name
    return name.decode() if isinstance(name, bytes) else name


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--elements", type=int, default=2**25)
    parser.add_argument("--backend", choices=("numba-cuda", "mlir"), default="numba-cuda")
    args = parser.parse_args(argv)
    use_backend(args.backend)
    n = args.elements
    grid = (n + BLOCK - 1) // BLOCK
    b, c = np.float32(0.999), np.float32(0.001)
    host = np.random.default_rng(0).uniform(0, 1, n).astype(np.float32)
    x = cuda.to_device(host)
    names = ("bound", "plain", "cxx", "cxx64")
    outs = {name: cuda.device_array(n, np.float32) for name in names}

    bound, plain = numba_kernels()
    cxx, cxx64 = cxx_launchers(x, outs["cxx"], outs["cxx64"], b, c, n, grid)
    launchers = {
        "bound": numba_launcher(bound, (x, outs["bound"], b, c), grid),
        "plain": numba_launcher(plain, (x, outs["plain"], b, c), grid),
        "cxx": cxx,
        "cxx64": cxx64,
    }
    t = time_interleaved(launchers, args.runs)
    results = {name: out.copy_to_host() for name, out in outs.items()}
    for name in names[1:]:
        np.testing.assert_allclose(results["bound"], results[name], rtol=1e-6)

    plain = "plain numba-cuda-mlir" if args.backend == "mlir" else "plain numba"
    print(f"device: {_device_name()}  elements: {n}  K: {K}  backend: {args.backend}")
    print(
        f"median of {args.runs} (ms): bound {t['bound']:.4f}  {plain} {t['plain']:.4f}  "
        f"CUDA C++ {t['cxx']:.4f}  CUDA C++ 64-bit index {t['cxx64']:.4f}"
    )
    print(f"bound / {plain} = {t['bound'] / t['plain']:.3f}  (target <= 1.03)")
    print(f"bound / CUDA C++    = {t['bound'] / t['cxx']:.3f}  (target <= 1.15)")
    print(f"bound / CUDA C++ with Numba's 64-bit index = {t['bound'] / t['cxx64']:.3f}")
    print(f"{plain} / CUDA C++ = {t['plain'] / t['cxx']:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

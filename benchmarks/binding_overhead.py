"""Cost of calling a bound C++ function from a kernel (GPU).

A float32 kernel chains K = 64 calls of the bound ``__device__ float my_fma(float, float,
float)`` per element over 2**25 elements. It is timed with CUDA events (median of 30 runs after
warm-up) against (a) the same loop in plain Numba (``cuda.fma``) and (b) the same kernel in
CUDA C++ compiled with NVRTC through cuda.core. Prints the medians and the ratios.

    python benchmarks/binding_overhead.py [--runs 30] [--elements 33554432]
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

import numpy as np
from numba import cuda

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
"""


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


def time_numba(kernel, args, grid, runs):
    start, stop = cuda.event(), cuda.event()
    for _ in range(3):
        kernel[grid, BLOCK](*args)
    cuda.synchronize()
    samples = []
    for _ in range(runs):
        start.record()
        kernel[grid, BLOCK](*args)
        stop.record()
        stop.synchronize()
        samples.append(cuda.event_elapsed_time(start, stop))
    return statistics.median(samples)


def time_cxx(x, out, b, c, n, grid, runs):
    from cuda.core import Device, EventOptions, LaunchConfig, Program, ProgramOptions, launch

    from ast_canopy.toolkit import cuda_include_dirs

    device = Device()
    device.set_current()
    arch = "sm_{}{}".format(*device.compute_capability)
    options = ProgramOptions(arch=arch, std="c++17", include_path=cuda_include_dirs())
    module = Program(CXX_KERNEL, "c++", options=options).compile("cubin")
    kernel = module.get_kernel("chain")
    stream = device.create_stream()
    config = LaunchConfig(grid=grid, block=BLOCK)
    args = (
        # Device pointers travel as 64-bit integers (same ABI as a pointer parameter).
        np.uint64(x.__cuda_array_interface__["data"][0]),
        np.uint64(out.__cuda_array_interface__["data"][0]),
        np.float32(b),
        np.float32(c),
        np.int32(n),
    )
    timing = EventOptions(timing_enabled=True)
    for _ in range(3):
        launch(stream, config, kernel, *args)
    stream.sync()
    samples = []
    for _ in range(runs):
        start = stream.record(options=timing)
        launch(stream, config, kernel, *args)
        stop = stream.record(options=timing)
        stop.sync()
        samples.append(stop - start)
    return statistics.median(samples)


def _device_name() -> str:
    name = cuda.get_current_device().name
    return name.decode() if isinstance(name, bytes) else name


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--elements", type=int, default=2**25)
    args = parser.parse_args(argv)
    n = args.elements
    grid = (n + BLOCK - 1) // BLOCK
    b, c = np.float32(0.999), np.float32(0.001)
    host = np.random.default_rng(0).uniform(0, 1, n).astype(np.float32)
    x = cuda.to_device(host)
    outs = {name: cuda.device_array(n, np.float32) for name in ("bound", "plain", "cxx")}

    bound, plain = numba_kernels()
    t_bound = time_numba(bound, (x, outs["bound"], b, c), grid, args.runs)
    t_plain = time_numba(plain, (x, outs["plain"], b, c), grid, args.runs)
    t_cxx = time_cxx(x, outs["cxx"], b, c, n, grid, args.runs)
    results = {name: out.copy_to_host() for name, out in outs.items()}
    np.testing.assert_allclose(results["bound"], results["cxx"], rtol=1e-6)
    np.testing.assert_allclose(results["bound"], results["plain"], rtol=1e-6)

    print(f"device: {_device_name()}  elements: {n}  K: {K}")
    print(
        f"median of {args.runs} (ms): bound {t_bound:.4f}  plain numba {t_plain:.4f}  "
        f"CUDA C++ {t_cxx:.4f}"
    )
    print(f"bound / plain numba = {t_bound / t_plain:.3f}  (target <= 1.03)")
    print(f"bound / CUDA C++    = {t_bound / t_cxx:.3f}  (target <= 1.15)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

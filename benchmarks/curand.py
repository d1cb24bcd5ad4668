"""cuRAND through the import system against CUDA C++ and numba.cuda.random (GPU).

65536 threads draw 1024 uniforms each (2**26 in all) with XORWOW, from per-thread states
initialized beforehand (``curand_init(seed, thread, 0, &state)``, not timed). Three kernels of
the same shape, each in two variants (``store``: every draw written to global memory, coalesced;
``sum``: each thread writes only the sum of its draws, so the generator's cost dominates):

- bound: ``numbast.headers.curand``'s ``curand_uniform`` in a Numba kernel (its loop written as the
  C++ one, a counter compared with the count; and once more with ``range``), the state copied from
  the device array of states into a local, updated in place, and stored back;
- C++: the same kernel in CUDA C++ (``numbast_import.compiler.SourceModule``);
- xoroshiro: ``numba.cuda.random.xoroshiro128p_uniform_float32`` (Numba's own generator, whose
  state stays in global memory).

One run: every kernel is timed with CUDA events, behind a spinning kernel that keeps the GPU busy
while the launch is issued (so no launch's host time is timed), interleaved round after round;
medians are printed, with bound / C++ (target <= 1.05). The bound and C++ draws are checked to
be bit-identical.

    python benchmarks/curand.py [--runs 30]
"""

from __future__ import annotations

import argparse
import statistics
import sys

import numpy as np
from numba import cuda
from numba.cuda.random import create_xoroshiro128p_states, xoroshiro128p_uniform_float32

THREADS, PER_THREAD, BLOCK = 2**16, 2**10, 256
GRID = THREADS // BLOCK
SEED = 1234

CXX = r"""
#include <curand_kernel.h>

extern "C" __global__ void init(curandState *states, unsigned long long seed) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  curand_init(seed, i, 0, &states[i]);
}

extern "C" __global__ void draw_store(curandState *states, float *out, int threads, int count) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  curandState s = states[i];
  for (int k = 0; k < count; ++k) out[k * threads + i] = curand_uniform(&s);
  states[i] = s;
}

extern "C" __global__ void draw_sum(curandState *states, float *out, int count) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  curandState s = states[i];
  float sum = 0.0f;
  for (int k = 0; k < count; ++k) sum += curand_uniform(&s);
  out[i] = sum;
  states[i] = s;
}
"""


def bound_kernels():
    import numbast.headers.curand as curand

    State, init, uniform = curand.curandState, curand.curand_init, curand.curand_uniform

    @cuda.jit
    def bound_init(states, seed):
        i = cuda.grid(1)
        init(seed, i, 0, states[i])

    # The loops are written as the C++ kernels write them (a counter compared with count):
    # Numba's ``range`` loop keeps a clamp of the remaining count per iteration, a serial chain
    # that bound_sum_range measures on its own.
    @cuda.jit
    def bound_store(states, out, count):
        i = cuda.grid(1)
        s = states[i]
        threads = states.size
        k = 0
        while k < count:
            out[k * threads + i] = uniform(s)
            k += 1
        states[i] = s

    @cuda.jit
    def bound_sum(states, out, count):
        i = cuda.grid(1)
        s = states[i]
        total = np.float32(0.0)
        k = 0
        while k < count:
            total += uniform(s)
            k += 1
        out[i] = total
        states[i] = s

    @cuda.jit
    def bound_sum_range(states, out, count):
        i = cuda.grid(1)
        s = states[i]
        total = np.float32(0.0)
        for _ in range(count):
            total += uniform(s)
        out[i] = total
        states[i] = s

    return State, bound_init, bound_store, bound_sum, bound_sum_range


@cuda.jit
def xoroshiro_store(states, out, count):
    i = cuda.grid(1)
    threads = states.size
    for k in range(count):
        out[k * threads + i] = xoroshiro128p_uniform_float32(states, i)


@cuda.jit
def xoroshiro_sum(states, out, count):
    i = cuda.grid(1)
    total = np.float32(0.0)
    for _ in range(count):
        total += xoroshiro128p_uniform_float32(states, i)
    out[i] = total


SPIN = r"""
extern "C" __global__ void spin(long long cycles) {
  long long start = clock64();
  while (clock64() - start < cycles) {
  }
}
"""
SPIN_CYCLES = 2_000_000  # about 1 ms: longer than issuing the timed launch takes


def timed(launch, spin):
    """A function that times one run of ``launch`` in ms, with CUDA events. A spinning kernel
    queued first keeps the GPU busy while the host issues the start event, the launch and the
    stop event, so the time is the kernel's alone: without it, a kernel shorter than a Numba
    launch's host time (the sum kernels: ~40 us) would be timed with the GPU idle in between."""
    start, stop = cuda.event(), cuda.event()

    def once() -> float:
        spin(np.int64(SPIN_CYCLES), block=(1, 1, 1), grid=(1, 1))
        start.record()
        launch()
        stop.record()
        stop.synchronize()
        return cuda.event_elapsed_time(start, stop)

    return once


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=30)
    runs = parser.parse_args(argv).runs

    from numbast import struct_array
    from numbast_import.compiler import SourceModule

    State, bound_init, bound_store, bound_sum, bound_sum_range = bound_kernels()
    module = SourceModule(CXX, no_extern_c=True)
    cxx_init, cxx_store, cxx_sum = (
        module.get_function(n) for n in ("init", "draw_store", "draw_sum")
    )
    grid, block = (GRID, 1), (BLOCK, 1, 1)
    count = np.int32(PER_THREAD)

    # Equal starting states for bound and C++, so their draws can be compared.
    bound_states, cxx_states = struct_array(State, THREADS), struct_array(State, THREADS)
    bound_init[GRID, BLOCK](bound_states, np.uint64(SEED))
    cxx_init(cxx_states, np.uint64(SEED), block=block, grid=grid)
    xoro_states = create_xoroshiro128p_states(THREADS, seed=SEED)
    stored = {name: cuda.device_array(THREADS * PER_THREAD, np.float32) for name in "bcx"}
    sums = {name: cuda.device_array(THREADS, np.float32) for name in "bcxr"}

    bound_store[GRID, BLOCK](bound_states, stored["b"], PER_THREAD)
    cxx_store(cxx_states, stored["c"], np.int32(THREADS), count, block=block, grid=grid)
    cuda.synchronize()
    assert np.array_equal(
        stored["b"].copy_to_host().view(np.uint32), stored["c"].copy_to_host().view(np.uint32)
    ), "bound and C++ draws differ"

    launchers = {
        "bound store": lambda: bound_store[GRID, BLOCK](bound_states, stored["b"], PER_THREAD),
        "C++ store": lambda: cxx_store(
            cxx_states, stored["c"], np.int32(THREADS), count, block=block, grid=grid
        ),
        "xoroshiro store": lambda: xoroshiro_store[GRID, BLOCK](
            xoro_states, stored["x"], PER_THREAD
        ),
        "bound sum": lambda: bound_sum[GRID, BLOCK](bound_states, sums["b"], PER_THREAD),
        "bound sum, range loop": lambda: bound_sum_range[GRID, BLOCK](
            bound_states, sums["r"], PER_THREAD
        ),
        "C++ sum": lambda: cxx_sum(cxx_states, sums["c"], count, block=block, grid=grid),
        "xoroshiro sum": lambda: xoroshiro_sum[GRID, BLOCK](xoro_states, sums["x"], PER_THREAD),
    }
    spin = SourceModule(SPIN).get_function("spin")
    timers = {name: timed(launch, spin) for name, launch in launchers.items()}
    for once in timers.values():
        for _ in range(3):
            once()
    samples: dict[str, list[float]] = {name: [] for name in timers}
    for _ in range(runs):
        for name, once in timers.items():
            samples[name].append(once())
    median = {name: statistics.median(values) for name, values in samples.items()}
    mean = stored["x"].copy_to_host().mean()
    assert abs(mean - 0.5) < 1e-3, f"xoroshiro draws have mean {mean}"

    device = cuda.get_current_device().name
    device = device.decode() if isinstance(device, bytes) else device
    print(f"device: {device}  draws: {THREADS * PER_THREAD} ({THREADS} threads x {PER_THREAD})")
    for variant in ("store", "sum"):
        b, c, x = (median[f"{who} {variant}"] for who in ("bound", "C++", "xoroshiro"))
        print(
            f"{variant}: median of {runs} (ms): bound {b:.4f}  C++ {c:.4f}  xoroshiro {x:.4f}  "
            f"bound / C++ = {b / c:.3f} (target <= 1.05)  xoroshiro / C++ = {x / c:.3f}"
        )
    r = median["bound sum, range loop"]
    print(
        f"sum with `for _ in range(count)` in the bound kernel: {r:.4f} ms, "
        f"{r / median['C++ sum']:.3f} x C++ (Numba's range loop, not the binding)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())

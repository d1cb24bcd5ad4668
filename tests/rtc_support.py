"""Shared helpers for the runtime-compilation tests: a recording stand-in for the driver's
launch, so that argument packing and launch parameters are checked without a GPU."""

from __future__ import annotations

import ctypes
import struct
from dataclasses import dataclass, field

VECTOR_ADD = """
__global__ void multiply_them(float *dest, float *a, float *b)
{
  const int i = threadIdx.x;
  dest[i] = a[i] * b[i];
}
"""


@dataclass
class RecordedLaunch:
    handle: int
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    shared: int
    stream: int
    params: int
    # The bytes each kernelParams pointer pointed at, read during the launch.
    arguments: list[bytes] = field(default_factory=list)


class LaunchRecorder:
    """Stands in for cuda.bindings' cuLaunchKernel: reads ``kernelParams`` as the driver
    would (``sizes`` bytes behind each pointer) and records the launch."""

    def __init__(self, sizes: tuple[int, ...]) -> None:
        # The parameter sizes of the kernel being launched (the driver knows them from the
        # cubin; the stand-in is told).
        self.sizes = sizes
        self.launches: list[RecordedLaunch] = []

    def __call__(self, handle, gx, gy, gz, bx, by, bz, shared, stream, params, extra):
        assert extra == 0
        # The driver binding takes a CUfunction object, and None for the default stream.
        launch = RecordedLaunch(
            int(handle), (gx, gy, gz), (bx, by, bz), shared, int(stream or 0), params
        )
        for index, size in enumerate(self.sizes):
            pointer = struct.unpack_from("P", ctypes.string_at(params + 8 * index, 8))[0]
            launch.arguments.append(ctypes.string_at(pointer, size))
        self.launches.append(launch)
        return (0,)

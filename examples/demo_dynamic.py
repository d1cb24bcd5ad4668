"""The dynamic-binding example of the Numbast documentation, run against numbast-import.

Binds ``demo.cuh`` (a half-precision wrapper struct, its ``operator+`` and ``hsqrt``) at run
time and calls them from a kernel. With a GPU it launches the kernel and checks
``[3.0, sqrt(3.0)]``; without one it compiles the kernel and its shims for sm_90 instead.
"""

from __future__ import annotations

import os
import sys

import numpy as np
from numba import cuda, types
from numba.core.datamodel.models import PrimitiveModel

from ast_canopy import parse_declarations_from_source
from numbast import MemoryShimWriter, bind_cxx_function, bind_cxx_struct


def current_arch() -> str | None:
    """``sm_XY`` of the current GPU, or None when there is none."""
    if not cuda.is_available():
        return None
    from cuda.core import Device

    major, minor = Device().compute_capability
    return f"sm_{major}{minor}"


def main() -> int:
    arch = current_arch()
    source = os.path.join(os.path.dirname(os.path.abspath(__file__)), "demo.cuh")
    decls = parse_declarations_from_source(source, [source], arch or "sm_90")

    shim_writer = MemoryShimWriter(f'#include "{source}"')
    # __myfloat16 behaves as a number and is an opaque 16-bit pattern.
    myfloat16 = bind_cxx_struct(shim_writer, decls.structs[0], types.Number, PrimitiveModel)
    bind_cxx_function(shim_writer, decls.functions[0])  # operator+
    hsqrt = bind_cxx_function(shim_writer, decls.functions[1])

    def kernel(arr):
        one = myfloat16(1.0)
        two = myfloat16(2.0)
        three = one + two
        sqrt3 = hsqrt(three)
        arr[0] = types.float64(three)
        arr[1] = types.float64(sqrt3)

    if arch is None:
        codes, _ = cuda.compile_all(
            kernel, (types.float64[:],), device=False, abi="numba", cc=(9, 0), output="ltoir"
        )
        print(f"no CUDA device: compiled the kernel and {len(codes) - 1} shim unit(s) for sm_90")
        return 0

    arr = np.array([0.0, 0.0], dtype=np.float64)
    cuda.jit(link=shim_writer.links())(kernel)[1, 1](arr)
    np.testing.assert_allclose(arr, [3.0, np.sqrt(3.0)], rtol=1e-2)
    print(f"{arr.tolist()} matches [3.0, sqrt(3.0)] on {arch}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

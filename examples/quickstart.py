"""Quick start: ``import cuda_headers.demo`` turns a CUDA C++ header into Numba-CUDA bindings.

The repository's pyproject.toml maps the module name to the header::

    [tool.numbast-import.headers.demo]
    header = "examples/demo.cuh"
    types = { __myfloat16 = "Number" }
    data-models = { __myfloat16 = "PrimitiveModel" }

The first run parses the header, generates the bindings, compiles their shims to LTO-IR and
caches all three (``numbast-cache list`` shows the entry); later runs load them from the cache.
Run with ``python examples/quickstart.py`` from anywhere in the repository. With a GPU it
launches the kernel and checks the result; without one it builds for sm_90 and links the kernel
and the cached shims into a cubin instead.
"""

from __future__ import annotations

import os
import sys


def gpu_present() -> bool:
    from numba import cuda

    return cuda.is_available()


def main() -> int:
    has_gpu = gpu_present()
    if not has_gpu:
        os.environ.setdefault("NUMBAST_IMPORT_ARCH", "sm_90")  # no GPU to ask for its arch

    from numba import cuda, types

    import cuda_headers.demo as demo

    myfloat16, hsqrt = demo.__myfloat16, demo.hsqrt

    def kernel(arr):
        one = myfloat16(1.0)
        two = myfloat16(2.0)
        three = one + two  # the header's operator+
        arr[0] = types.float64(three)
        arr[1] = types.float64(hsqrt(three))

    if not has_gpu:
        from cuda.core import Linker, LinkerOptions, ObjectCode

        codes, _ = cuda.compile_all(
            kernel, (types.float64[:],), device=False, abi="numba", cc=(9, 0), output="ltoir"
        )
        objects = [ObjectCode.from_ltoir(bytes(codes[0]), name="kernel")]
        objects += [ObjectCode.from_ltoir(code.data, name=code.name) for code in codes[1:]]
        options = LinkerOptions(arch="sm_90", link_time_optimization=True)
        cubin = Linker(*objects, options=options).link("cubin").code
        print(
            f"no CUDA device: compiled the kernel and {len(codes) - 1} shim unit(s) for sm_90 "
            f"and linked them into a {len(cubin)}-byte cubin"
        )
        return 0

    import numpy as np

    arr = np.zeros(2, dtype=np.float64)
    cuda.jit(kernel)[1, 1](arr)
    np.testing.assert_allclose(arr, [3.0, np.sqrt(3.0)], rtol=1e-2)
    print(f"{arr.tolist()} matches [3.0, sqrt(3.0)]")
    return 0


if __name__ == "__main__":
    sys.exit(main())

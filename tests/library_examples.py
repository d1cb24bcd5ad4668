"""The worked examples of docs/libraries.md, shared by the tests (tests/test_library_examples.py:
CPU link to sm_90 cubins, GPU numbers against NumPy) and benchmarks/libraries.py.

Each library is imported as a user would: a one-line wrapper header of ``#include`` lines and a
``retain`` list of the headers that declare what the kernels use. Header layouts differ between
toolkit versions (CCCL moved ``complex`` to ``cuda/std/__complex/complex.h`` after CUDA 13.0),
so each retained header is the first of its candidates that exists, under the directory the
library's headers are in; nothing assumes one version.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from cub_support import cccl_dir
from numba import cuda
from numba.cuda import types


def cudart_dir() -> str:
    from cuda import pathfinder

    found = pathfinder.find_nvidia_header_directory("cudart")
    if found is None:
        raise LookupError("no CUDA runtime headers: pip install 'numba-cuda[cu13]'")
    return found


def cutlass_dir() -> str:
    """CUTLASS's headers, from the ``nvidia-cutlass`` package (a test extra)."""
    try:
        import cutlass_library
    except ImportError:
        raise LookupError("no CUTLASS headers: pip install nvidia-cutlass") from None
    found = Path(cutlass_library.__file__).parent / "source" / "include"
    if not (found / "cutlass" / "cutlass.h").is_file():
        raise LookupError(f"nvidia-cutlass has no headers in {found}")
    return str(found)


@dataclass(frozen=True)
class Library:
    """One library's import: module ``name`` for a wrapper of ``includes``; ``retain`` holds,
    per header to retain, its candidate paths under ``root()`` (the first that exists)."""

    name: str
    includes: tuple[str, ...]
    root: Callable[[], str]
    retain: tuple[tuple[str, ...], ...]
    options: dict[str, Any] = field(default_factory=dict)
    include_root: bool = False  # the root is an include directory of the mapping (CUTLASS)

    def retained(self) -> list[str]:
        root = self.root()
        found = []
        for candidates in self.retain:
            paths = [os.path.join(root, candidate) for candidate in candidates]
            existing = [path for path in paths if os.path.isfile(path)]
            if not existing:
                raise LookupError(f"{self.name}: none of {candidates} under {root}")
            found.append(existing[0])
        return found

    def mapping(self, directory: Path) -> tuple[Path, dict[str, Any]]:
        """The wrapper header (written into ``directory``) and the mapping's options."""
        header = directory / f"{self.name}.cuh"
        header.write_text("".join(f"#include <{include}>\n" for include in self.includes))
        # A file modified just before a build began may have been read half-written: the
        # import would keep that entry in memory only. This one is complete: date it back.
        past = time.time() - 10
        os.utime(header, (past, past))
        options = {"retain": self.retained(), **self.options}
        if self.include_root:
            options["include_dirs"] = [self.root()]
        return header, options


LIBCUDACXX = Library(
    "libcudacxx",
    ("cuda/std/complex", "cuda/std/bit", "cuda/std/limits"),
    cccl_dir,
    (
        ("cuda/std/__complex/complex.h", "cuda/std/detail/libcxx/include/complex"),
        ("cuda/std/__bit/popcount.h",),
        ("cuda/std/__bit/integral.h",),
        ("cuda/std/__limits/numeric_limits.h", "cuda/std/limits"),
    ),
)

COOPERATIVE_GROUPS = Library(
    "cooperative_groups",
    ("cooperative_groups.h", "cooperative_groups/reduce.h"),
    cudart_dir,
    (
        ("cooperative_groups.h",),
        ("cooperative_groups/details/reduce.h",),  # cooperative_groups::reduce
        ("cooperative_groups/details/functional.h",),  # cooperative_groups::plus
    ),
)

CUTLASS_NUMERIC = Library(
    "cutlass_numeric",
    ("cutlass/numeric_types.h", "cutlass/complex.h", "cutlass/array.h"),
    cutlass_dir,
    (("cutlass/half.h",), ("cutlass/complex.h",), ("cutlass/array.h",)),
    include_root=True,
)

MATH_CONSTANTS = Library(
    "math_constants",
    ("math_constants.h",),
    cudart_dir,
    (("math_constants.h",),),
)

LIBRARIES = (LIBCUDACXX, COOPERATIVE_GROUPS, CUTLASS_NUMERIC, MATH_CONSTANTS)


# -- libcu++ -----------------------------------------------------------------------------------

COMPLEX_INPUT = np.float32([1.5, -2.0, 0.5, 3.0])  # x = 1.5 - 2i, y = 0.5 + 3i


def complex_kernel(lib):
    """cuda::std::complex<float>: arithmetic, the real()/imag() getters, the real(float)
    setter beside them."""

    Complex = lib.complex[types.float32]

    def kernel(values, out):
        x = Complex(values[0], values[1])
        y = Complex(values[2], values[3])
        product, total, quotient = x * y, x + y, x / y
        out[0], out[1] = product.real(), product.imag()
        out[2], out[3] = total.real(), total.imag()
        out[4], out[5] = quotient.real(), quotient.imag()
        negated = -(x - y)
        out[6], out[7] = negated.real(), negated.imag()
        x.real(np.float32(4.0))  # the setter: updates x
        out[8] = x.real()

    return kernel


def complex_expected(values: np.ndarray) -> np.ndarray:
    x = np.complex64(complex(values[0], values[1]))
    y = np.complex64(complex(values[2], values[3]))
    product, total, quotient, negated = x * y, x + y, x / y, -(x - y)
    return np.float32([product.real, product.imag, total.real, total.imag, quotient.real,
                       quotient.imag, negated.real, negated.imag, 4.0])  # fmt: skip


BIT_INPUT = np.uint32([0, 1, 2, 3, 5, 31, 64, 1000, 0x12345678, 0x80000000])


def bit_kernel(lib):
    """cuda::std::popcount and bit_ceil on unsigned ints."""
    popcount, bit_ceil = lib.popcount, lib.bit_ceil

    def kernel(values, counts, ceilings):
        i = cuda.grid(1)
        if i < values.size:
            counts[i] = popcount(values[i])
            ceilings[i] = bit_ceil(values[i])

    return kernel


def bit_expected(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    counts = np.int32([bin(int(v)).count("1") for v in values])
    ceilings = np.uint32([1 if v <= 1 else 1 << (int(v) - 1).bit_length() for v in values])
    return counts, ceilings


def limits_kernel(lib):
    """cuda::std::numeric_limits<float> and <int>."""

    Float, Int = lib.numeric_limits[types.float32], lib.numeric_limits[types.int32]

    def kernel(floats, ints):
        floats[0] = Float.max()
        floats[1] = Float.lowest()
        floats[2] = Float.epsilon()
        floats[3] = Float.min()
        ints[0] = Int.max()
        ints[1] = Int.min()

    return kernel


def limits_expected() -> tuple[np.ndarray, np.ndarray]:
    info = np.finfo(np.float32)
    floats = np.float32([info.max, -info.max, info.eps, info.tiny])
    ints = np.int32([np.iinfo(np.int32).max, np.iinfo(np.int32).min])
    return floats, ints


# -- cooperative groups ------------------------------------------------------------------------

CG_THREADS = 128


def block_sync_kernel(cg):
    """this_thread_block().sync() between writing shared memory and reading a neighbour's."""

    this_thread_block = cg.this_thread_block

    def kernel(values, out):
        block = this_thread_block()
        shared = cuda.shared.array(CG_THREADS, types.float32)
        rank = block.thread_rank()
        shared[rank] = values[cuda.blockIdx.x * CG_THREADS + rank]
        block.sync()
        out[cuda.blockIdx.x * CG_THREADS + rank] = shared[(rank + 1) % block.size()]

    return kernel


def block_sync_expected(values: np.ndarray) -> np.ndarray:
    blocks = values.reshape(-1, CG_THREADS)
    return np.roll(blocks, -1, axis=1).reshape(-1)


def group_functions_kernel(cg):
    """The free function templates over any group, which coverage binds through the module's
    own class types: thread_rank(g), group_size(g), sync(g) on a thread_block."""

    this_thread_block, thread_rank = cg.this_thread_block, cg.thread_rank
    group_size, sync = cg.group_size, cg.sync

    def kernel(values, out):
        block = this_thread_block()
        shared = cuda.shared.array(CG_THREADS, types.float32)
        rank = thread_rank(block)
        shared[rank] = values[cuda.blockIdx.x * CG_THREADS + rank]
        sync(block)
        out[cuda.blockIdx.x * CG_THREADS + rank] = shared[(rank + 1) % group_size(block)]

    return kernel


def tile_reduce_kernel(cg):
    """A tiled-partition reduction: tiled_partition<32>(block), then cg::reduce over each tile
    with cg::plus<int>."""

    this_thread_block, reduce = cg.this_thread_block, cg.reduce
    partition, Plus = cg.tiled_partition[32], cg.plus[types.int32]

    def kernel(values, sums):
        tile = partition(this_thread_block())
        i = cuda.blockIdx.x * CG_THREADS + cuda.threadIdx.x
        total = reduce(tile, values[i], Plus())
        if tile.thread_rank() == 0:
            sums[i // 32] = total

    return kernel


def tile_reduce_expected(values: np.ndarray) -> np.ndarray:
    return values.reshape(-1, 32).sum(axis=1, dtype=np.int32)


# -- CUTLASS numeric types ---------------------------------------------------------------------

CUTLASS_INPUT = np.float32([1.5, -2.0, 0.25, 3.0])


def half_kernel(ct):
    """cutlass::half_t arithmetic, and conversions to and from float."""
    half_t = ct.half_t

    def kernel(values, out):
        a, b = half_t(values[0]), half_t(values[1])
        out[0] = float(a * b + a)
        out[1] = float(a - b / half_t(values[2]))
        out[2] = float(-a)

    return kernel


def half_expected(values: np.ndarray) -> np.ndarray:
    a, b, c = (np.float16(v) for v in values[:3])
    return np.float32([np.float16(a * b) + a, a - np.float16(b / c), -a])


def cutlass_complex_kernel(ct):
    """cutlass::complex<float> arithmetic."""

    Complex, half_t = ct.complex[types.float32], ct.half_t
    HalfComplex = ct.complex[half_t]

    def kernel(values, out):
        x = Complex(values[0], values[1])
        y = Complex(values[2], values[3])
        product, total = x * y, x + y
        out[0], out[1] = product.real(), product.imag()
        out[2], out[3] = total.real(), total.imag()
        # abs<half_t>: the generic form, which compiles for half_t alone
        out[4] = float(ct.abs(HalfComplex(half_t(values[0]), half_t(values[1]))))
        z = ct.from_real[Complex](values[3])  # the specialization from_real<complex<float>>
        out[5], out[6] = z.real(), z.imag()

    return kernel


def cutlass_complex_expected(values: np.ndarray) -> np.ndarray:
    x = np.complex64(complex(values[0], values[1]))
    y = np.complex64(complex(values[2], values[3]))
    a, b = np.float16(values[0]), np.float16(values[1])
    magnitude = np.float16(np.sqrt(np.float16(np.float16(a * a) + np.float16(b * b))))
    products = [(x * y).real, (x * y).imag, (x + y).real, (x + y).imag]
    return np.float32([*products, magnitude, values[3], 0.0])


def array_kernel(ct):
    """cutlass::Array<float, 4>: made by make_Array, element-wise operators, elements written
    through operator[]'s reference, read back."""
    make_Array = ct.make_Array

    def kernel(values, out):
        a = make_Array(values[0], values[1], values[2], values[3])  # Array<float, 4>
        b = a * a + a  # cutlass::operator* and operator+ on Array<T, N>
        out[0] = b.front()
        out[1] = b.back()
        b[1] = values[0] - values[3]  # v[i] = x: Array's operator[] returns a reference
        b[2] += 1.0
        out[2], out[3] = b[1], b[2]

    return kernel


def array_expected(values: np.ndarray) -> np.ndarray:
    b = values * values + values
    return np.float32([b[0], b[3], values[0] - values[3], b[2] + 1])


# -- math_constants.h --------------------------------------------------------------------------


def constants_kernel(mc):
    """math_constants.h's literal macros as module constants: NumPy scalars of the macro's C++
    type (float32 for the _F ones, float64 for the others)."""
    pi_f, half_f, sqrt_2pi = mc.CUDART_PI_F, mc.CUDART_SQRT_HALF_F, mc.CUDART_SQRT_2PI

    def kernel(radii, areas, doubles):
        i = cuda.grid(1)
        if i < radii.size:
            areas[i] = pi_f * radii[i] * radii[i]
        if i == 0:
            doubles[0] = sqrt_2pi
            doubles[1] = half_f

    return kernel


CONSTANTS_INPUT = np.float32([0.5, 1.0, 2.0, 3.5])


def constants_expected(radii: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    pi_f = np.float32(3.141592654)
    areas = pi_f * radii * radii
    return areas.astype(np.float32), np.float64([2.5066282746310007, np.float32(0.707106781)])


# -- the kernels each library's examples link (tests and benchmarks/libraries.py) --------------

F32, I32, U32, F64 = types.float32[:], types.int32[:], types.uint32[:], types.float64[:]
WORKED: dict[str, dict[str, tuple[Callable, tuple]]] = {
    LIBCUDACXX.name: {
        "complex": (complex_kernel, (F32, F32)),
        "bit": (bit_kernel, (U32, I32, U32)),
        "limits": (limits_kernel, (F32, I32)),
    },
    COOPERATIVE_GROUPS.name: {
        "block_sync": (block_sync_kernel, (F32, F32)),
        "tile_reduce": (tile_reduce_kernel, (I32, I32)),
        "group_functions": (group_functions_kernel, (F32, F32)),
    },
    CUTLASS_NUMERIC.name: {
        "half": (half_kernel, (F32, F32)),
        "cutlass_complex": (cutlass_complex_kernel, (F32, F32)),
        "array": (array_kernel, (F32, F32)),
    },
    MATH_CONSTANTS.name: {"constants": (constants_kernel, (F32, F32, F64))},
}

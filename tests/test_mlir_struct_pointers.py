"""Pointer-to-struct parameters in numba-cuda-mlir kernels: a kernel passes a local struct and
the update persists (``numbast.runtime_mlir.struct_pointers``), as numba-cuda kernels do
(tests/test_numbast_struct_pointers.py): struct_pointers.cuh, and numbast.headers.curand's
per-thread states.

Without numba-cuda-mlir only the numba-cuda link runs (test_mlir_backend.py checks the
positions numba-cuda-mlir would use on CPU). With it, the kernels link to sm_90 cubins; on a
GPU their numbers match Python's and the same kernels on numba-cuda in the same process, and
cuRAND's draws match numba-cuda's and CUDA C++'s (tests/scripts/curand_checks.py's reference
kernels) bit for bit.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import mlir_support
import numpy as np
import pytest
from mlir_support import compile_cubin, numba_cuda_mlir

TESTS = Path(__file__).parent
POINTERS_HEADER = TESTS / "data" / "binding" / "struct_pointers.cuh"
header_arch = mlir_support.header_arch  # the fixture: generated modules in a private cache


@pytest.fixture(scope="module")
def lib():
    from numbast import bind_header

    return bind_header(POINTERS_HEADER)


def make_walker_kernel(lib):
    """Locals passed where the functions take ``Walker *`` (updated in place), two at once, a
    ``const Walker *``, a by-value overload beside a pointer one, a loop, the module object."""
    Walker, init, step = lib.Walker, lib.walker_init, lib.walker_step
    swap, peek, total = lib.walker_swap, lib.walker_peek, lib.walker_total

    def walker_kernel(out):
        w = Walker()
        out[0] = w.position
        init(np.uint32(7), w)
        out[1] = w.position
        out[2] = step(w)
        out[3] = w.steps
        a = Walker(np.uint32(1), np.uint32(2))
        b = Walker(np.uint32(3), np.uint32(4))
        swap(a, b)
        out[4] = a.position
        out[5] = b.steps
        out[6] = peek(a)
        out[7] = total(a)  # the by-value overload, as written: 3 + 4
        for _ in range(3):
            step(w)
        out[8] = w.steps
        out[9] = lib.walker_step(w)
        out[10] = w.steps

    return walker_kernel


def expected_walker() -> list[int]:
    def lcg(p: int) -> int:
        return (p * 1664525 + 1013904223) % 2**32

    p = [7]
    for _ in range(5):
        p.append(lcg(p[-1]))
    return [0, 7, p[1], 1, 3, 2, 3, 7, 4, p[5], 5]


def test_walker_kernel_links_on_numba_cuda(lib):
    """The same kernel on numba-cuda (without numba-cuda-mlir too): ``lib.walker_step(w)``
    through a ``bind_header`` object passes ``w`` by address as ``walker_step(w)`` does."""
    from numba.cuda import types
    from support import link_kernel_to_cubin

    assert link_kernel_to_cubin(make_walker_kernel(lib), (types.uint32[:],))[:4] == b"\x7fELF"


def test_walker_kernel_links_to_sm90_cubin(lib):
    numba_cuda_mlir()
    from numba_cuda_mlir import types

    compile_cubin(make_walker_kernel(lib), (types.uint32[:],))


@pytest.mark.gpu
def test_walker_numbers_match_python_and_numba_cuda(lib):
    numba_cuda_mlir()
    from numba import cuda as numba_cuda
    from numba_cuda_mlir import cuda

    out = cuda.to_device(np.zeros(11, np.uint32))
    cuda.jit(make_walker_kernel(lib))[1, 1](out)
    got = out.copy_to_host()
    assert got.tolist() == expected_walker()

    classic = numba_cuda.to_device(np.zeros(11, np.uint32))
    numba_cuda.jit(make_walker_kernel(lib))[1, 1](classic)
    np.testing.assert_array_equal(classic.copy_to_host(), got)


# -- cuRAND ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def curand_checks(header_arch):
    """tests/scripts/curand_checks.py (it imports numbast.headers.curand): its generators,
    seed, offset, distribution parameters and CUDA C++ reference kernels."""
    numba_cuda_mlir()
    from ast_canopy.toolkit import curand_include_dir

    if curand_include_dir() is None:
        pytest.skip('cuRAND headers not installed: pip install "numbast-import[curand]"')
    path = TESTS / "scripts" / "curand_checks.py"
    spec = importlib.util.spec_from_file_location("curand_checks", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def make_curand_kernel(checks, State, cuda):
    """curand_checks.py's kernel of a local state (passed by address: curand_init(seed, i,
    offset, s), curand(s), curand_uniform(s), curand_normal(s)... updating it), whose draws
    its C++ reference makes; ``cuda``: the compiler's module."""
    return checks.make_local_kernel(State, cuda)


@pytest.mark.parametrize("generator", ["xorwow", "philox", "mrg32k3a"])
def test_curand_kernel_links_to_sm90_cubin(curand_checks, generator):
    from numba_cuda_mlir import cuda, types

    kernel = make_curand_kernel(curand_checks, curand_checks.GENERATORS[generator], cuda)
    signature = (types.uint64, types.uint64, types.uint32[:, :], types.float32[:, :])
    compile_cubin(kernel, signature)


@pytest.fixture(scope="module")
def curand_reference(curand_checks):
    from numbast_import.compiler import SourceModule

    options = curand_checks.REFERENCE_OPTIONS
    return SourceModule(curand_checks.REFERENCE, options=options, no_extern_c=True)


@pytest.mark.gpu
@pytest.mark.parametrize("generator", ["xorwow", "philox", "mrg32k3a"])
def test_curand_draws_match_numba_cuda_and_cuda_cpp_bit_for_bit(
    curand_checks, curand_reference, generator
):
    from numba import cuda as numba_cuda
    from numba_cuda_mlir import cuda

    checks, n = curand_checks, 1000
    State = checks.GENERATORS[generator]
    seed, offset = np.uint64(checks.SEED), np.uint64(checks.OFFSET)
    shapes = ((checks.BIT_ROWS, n), np.uint32), ((checks.VALUE_ROWS, n), np.float32)
    blocks, threads = (n + 127) // 128, 128

    want = [numba_cuda.to_device(np.zeros(shape, dtype)) for shape, dtype in shapes]
    curand_reference.get_function(f"reference_{generator}")(
        seed, offset, np.int32(n), *want, block=(threads, 1, 1), grid=(blocks, 1)
    )
    numba_cuda.synchronize()
    want_bits, want_values = (a.copy_to_host() for a in want)

    got = [cuda.to_device(np.zeros(shape, dtype)) for shape, dtype in shapes]
    cuda.jit(make_curand_kernel(checks, State, cuda))[blocks, threads](seed, offset, *got)
    got_bits, got_values = (a.copy_to_host() for a in got)

    classic = [numba_cuda.to_device(np.zeros(shape, dtype)) for shape, dtype in shapes]
    kernel = numba_cuda.jit(make_curand_kernel(checks, State, numba_cuda))
    kernel[blocks, threads](seed, offset, *classic)
    classic_bits, classic_values = (a.copy_to_host() for a in classic)

    assert len(np.unique(want_bits[0])) > n // 2, f"{generator}: the reference is not random"
    np.testing.assert_array_equal(got_bits, want_bits, f"{generator}: curand, poisson")
    np.testing.assert_array_equal(
        got_values.view(np.uint32), want_values.view(np.uint32), f"{generator}: float draws"
    )
    np.testing.assert_array_equal(classic_bits, got_bits)
    np.testing.assert_array_equal(classic_values.view(np.uint32), got_values.view(np.uint32))

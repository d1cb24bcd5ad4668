"""Compiling numba-cuda-mlir kernels in tests, with or without a GPU.

numba-cuda-mlir asks the CUDA driver for the current device's compute capability before it
compiles anything, even for an explicit target. Where no driver is present (this CPU machine),
``compile_cubin`` tells it the compute capability instead (``tools._cached_cc``, the value it
keeps after asking the driver once), so a kernel still compiles and links with nvJitLink to a
cubin: unresolved shims fail the link as they do for numba-cuda (``support.py``).
"""

from __future__ import annotations

import os
from typing import Any

import pytest

MLIR_MISSING = "numba-cuda-mlir is not installed (pip install 'numba-cuda-mlir[cu13]')"


def numba_cuda_mlir() -> Any:
    """The numba_cuda_mlir package, or a skip saying it is not installed."""
    return pytest.importorskip("numba_cuda_mlir", reason=MLIR_MISSING)


def mlir_types() -> Any:
    """numba_cuda_mlir.types, or a skip saying numba-cuda-mlir is not installed."""
    numba_cuda_mlir()
    from numba_cuda_mlir import types

    return types


def _pin_compute_capability(cc: tuple[int, int]) -> None:
    from numba_cuda_mlir import tools
    from numba_cuda_mlir.numba_cuda.cudadrv.error import CudaSupportError

    if tools._cached_cc is not None:
        return
    try:
        tools.get_gpu_compute_capability(tuple)
    except CudaSupportError:  # no driver: compile for ``cc`` as if it were the device's
        tools._cached_cc = cc


def compile_cubin(pyfunc: Any, signature: Any, cc: tuple[int, int] = (9, 0)) -> bytes:
    """Compile ``pyfunc`` as a numba-cuda-mlir kernel and link it (with every shim it calls)
    to a cubin; raises if a symbol stays unresolved."""
    numba_cuda_mlir()
    _pin_compute_capability(cc)
    from numba_cuda_mlir.compiler import compile_cubin as mlir_compile_cubin

    cubin = mlir_compile_cubin(pyfunc, signature)
    assert bytes(cubin[:4]) == b"\x7fELF", "numba-cuda-mlir produced no cubin"
    return bytes(cubin)


@pytest.fixture(scope="module")
def header_arch(tmp_path_factory):
    """numbast.headers (and mapped headers) are generated for the current GPU, else for sm_90,
    in a private cache."""
    saved = {k: os.environ.get(k) for k in ("NUMBAST_IMPORT_ARCH", "NUMBAST_CACHE_DIR")}
    from conftest import cuda_device_available

    if not cuda_device_available():
        os.environ["NUMBAST_IMPORT_ARCH"] = "sm_90"
    os.environ["NUMBAST_CACHE_DIR"] = str(tmp_path_factory.mktemp("mlir_cache"))
    yield
    for key, value in saved.items():
        if value is None:
            os.environ.pop(key, None)
        else:
            os.environ[key] = value

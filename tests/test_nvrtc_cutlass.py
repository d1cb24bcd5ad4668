"""CUTLASS's numeric types (cutlass/half.h, complex.h, numeric_types.h, from the nvidia-cutlass
package of the test extra) through the import: NVRTC compiles them with the stand-in system
headers and -default-device (detected), and kernels using half_t and complex<float> link."""

from __future__ import annotations

import importlib
import importlib.util
import json
import os
from pathlib import Path

import numpy as np
import pytest
from support import link_kernel_to_cubin

DATA = Path(__file__).parent / "data" / "nvrtc"


def _cutlass_include() -> str | None:
    spec = importlib.util.find_spec("cutlass_library")  # found, not imported (it is heavy)
    if spec is None or not spec.submodule_search_locations:
        return None
    include = os.path.join(next(iter(spec.submodule_search_locations)), "source", "include")
    return include if os.path.isfile(os.path.join(include, "cutlass", "half.h")) else None


CUTLASS = _cutlass_include()
pytestmark = pytest.mark.skipif(
    CUTLASS is None, reason='CUTLASS headers not installed: pip install "numbast-import[test]"'
)


@pytest.fixture(scope="module")
def cutlass_types(tmp_path_factory):
    import numbast_import

    cache = tmp_path_factory.mktemp("cutlass_cache")
    patch = pytest.MonkeyPatch()
    patch.setenv("NUMBAST_CACHE_DIR", str(cache))
    patch.setenv("NUMBAST_IMPORT_ARCH", "sm_90")
    patch.setenv("NUMBAST_IMPORT_QUIET", "1")
    retain = [
        os.path.join(CUTLASS, "cutlass", n) for n in ("half.h", "complex.h", "numeric_types.h")
    ]
    numbast_import.register(
        "nvrtc_cutlass", DATA / "cutlass_types.cuh", include_dirs=[CUTLASS], retain=retain
    )
    try:
        module = importlib.import_module("cuda_headers.nvrtc_cutlass")
        (manifest,) = [json.loads(p.read_text()) for p in cache.glob("*/*/manifest.json")]
        yield module, manifest
    finally:
        numbast_import.unregister("nvrtc_cutlass")
        patch.undo()


def half_kernel(m):
    def kernel(out, x):
        a, b = m.half_t(x[0]), m.half_t(x[1])
        out[0] = float(a + b)
        out[1] = float(a * b)
        out[2] = float(m.sqrt(b))

    return kernel


def complex_kernel(m):
    from numba import types

    complex_float = m.complex[types.float32]

    def kernel(out, x):
        z = complex_float(x[0], x[1])
        out[0] = z.real()
        out[1] = z.imag()

    return kernel


def complex_arithmetic_kernel(m):
    """complex<float>'s member operator templates, cutlass::real / imag (function templates
    beside scalar overloads) and platform::numeric_limits<half_t> (a specialization on a struct
    of the module)."""
    from numba import types

    complex_float = m.complex[types.float32]
    half_limits = m.numeric_limits[m.half_t]

    def kernel(out, x):
        a = complex_float(x[0], x[1])
        b = complex_float(x[1], x[0])
        total = a + b
        product = a * b
        out[0] = m.real(total)
        out[1] = m.imag(product)
        out[2] = float(half_limits.max())

    return kernel


def test_cutlass_numeric_types_import_with_default_device_detected(cutlass_types):
    module, manifest = cutlass_types
    assert "-default-device" in module._numbast_shim_library.nvrtc_options
    assert {"half_t", "complex", "sqrt"} <= set(dir(module))
    kinds = manifest["coverage"]["kinds"]
    assert kinds["struct"]["bound"] >= 1 and kinds["function"]["bound"] >= 10


def test_half_t_and_complex_kernels_link(cutlass_types):
    from numba import types

    module, _ = cutlass_types
    signature = (types.float32[::1], types.float32[::1])
    assert link_kernel_to_cubin(half_kernel(module), signature)
    assert link_kernel_to_cubin(complex_kernel(module), signature)
    assert link_kernel_to_cubin(complex_arithmetic_kernel(module), signature)


@pytest.mark.gpu
def test_half_t_and_complex_compute_on_the_gpu(cutlass_types):
    from numba import cuda

    module, _ = cutlass_types
    x = np.array([1.5, 2.25], dtype=np.float32)
    out = cuda.to_device(np.zeros(3, dtype=np.float32))
    cuda.jit(half_kernel(module))[1, 1](out, cuda.to_device(x))
    a, b = np.float16(x[0]), np.float16(x[1])
    expected = [np.float16(a + b), np.float16(a * b), np.sqrt(b)]
    np.testing.assert_allclose(out.copy_to_host(), np.array(expected, np.float32), rtol=1e-3)
    out = cuda.to_device(np.zeros(2, dtype=np.float32))
    cuda.jit(complex_kernel(module))[1, 1](out, cuda.to_device(x))
    np.testing.assert_array_equal(out.copy_to_host(), x)


@pytest.mark.gpu
def test_complex_operators_real_and_half_limits_on_the_gpu(cutlass_types):
    from numba import cuda

    module, _ = cutlass_types
    x = np.array([1.5, 2.25], dtype=np.float32)
    out = cuda.to_device(np.zeros(3, dtype=np.float32))
    cuda.jit(complex_arithmetic_kernel(module))[1, 1](out, cuda.to_device(x))
    a, b = complex(x[0], x[1]), complex(x[1], x[0])
    expected = [(a + b).real, (a * b).imag, float(np.finfo(np.float16).max)]
    np.testing.assert_allclose(out.copy_to_host(), np.array(expected, np.float32), rtol=1e-6)

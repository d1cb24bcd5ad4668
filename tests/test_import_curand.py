"""numbast.headers.curand: generated through the same cache and loader as user headers, every
binding feature it uses linked to sm_90 cubins (tests/scripts/curand_checks.py), then a warm
import with no clang and no NVRTC, and on the GPU the numbers, bit for bit against the same
calls in CUDA C++. Skipped without the cuRAND headers (``pip install -e ".[test,curand]"``),
except the test that the missing extra is named."""

from __future__ import annotations

import pytest
from builtin_header_support import FORBID_NVRTC, needs_curand, run_script
from import_support import make_project, run_python


def test_curand_without_its_headers_names_the_extra(monkeypatch):
    import ast_canopy.toolkit
    from numbast_import.config import load_project_config
    from numbast_import.errors import ToolkitMissingError
    from numbast_import.finder import resolve_mapping

    monkeypatch.setattr(ast_canopy.toolkit, "curand_include_dir", lambda: None)
    with pytest.raises(ToolkitMissingError, match=r"numbast-import\[curand\]"):
        resolve_mapping("numbast.headers", "curand", load_project_config())


@needs_curand
def test_curand_kernels_link_then_import_warm(tmp_path):
    project, cache = make_project(tmp_path), tmp_path / "cache"
    cold = run_script("curand_checks.py", "link", project, cache, NUMBAST_IMPORT_ARCH="sm_90")
    assert cold.returncode == 0, cold.stderr
    assert "linked xorwow" in cold.stdout and "linked mrg32k3a" in cold.stdout
    assert "reference compiled True" in cold.stdout
    warm = run_python(
        FORBID_NVRTC
        + """
import numpy as np
import numbast.headers.curand as curand
from numba.cuda import types
from support import link_kernel_to_cubin

def kernel(out):
    s = curand.curandState()
    curand.curand_init(np.uint64(1), np.uint64(0), np.uint64(0), s)
    out[0] = curand.curand_uniform(s)

link_kernel_to_cubin(kernel, (types.float32[:],), arch="sm_90")
print("linked warm, clang loaded:", "clang.cindex" in sys.modules)
""",
        project,
        cache,
        NUMBAST_IMPORT_ARCH="sm_90",
    )
    assert warm.returncode == 0, warm.stderr
    assert "linked warm, clang loaded: False" in warm.stdout


@pytest.mark.gpu
@needs_curand
def test_curand_numbers(tmp_path):
    project, cache = make_project(tmp_path), tmp_path / "cache"
    result = run_script("curand_checks.py", "run", project, cache)
    assert result.returncode == 0, result.stderr + result.stdout
    for name in ("xorwow", "philox", "mrg32k3a"):
        assert f"ok {name} bit for bit: local, array element, pointer" in result.stdout
        for distribution in ("uniform", "normal", "log-normal", "poisson"):
            assert f"ok {name} {distribution}:" in result.stdout
    assert "ok philox curand_uniform4 bit for bit" in result.stdout

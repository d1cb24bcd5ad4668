"""The ``__global__`` functions of an imported header are launchable from the host (issue 12):
``kern.saxpy(a, x, y, n, block=..., grid=...)``, compiled once for the module's arch and cached
in the cache root; its ``__device__`` functions stay Numba bindings."""

from __future__ import annotations

import shutil
import textwrap
from pathlib import Path

import pytest
from import_support import run_python

KERN = Path(__file__).parent / "data" / "kernels" / "kern.cuh"


def _project(tmp_path: Path) -> Path:
    project = tmp_path / "proj"
    project.mkdir()
    shutil.copy(KERN, project / "kern.cuh")
    (project / "pyproject.toml").write_text(
        '[tool.numbast-import]\narch = "sm_90"\n\n'
        '[tool.numbast-import.headers]\nkern = "kern.cuh"\n'
    )
    return project


def test_kernels_are_host_launchables_compiled_once_and_cached(tmp_path):
    project, cache = _project(tmp_path), tmp_path / "cache"
    code = textwrap.dedent(
        """
        import cuda_headers.kern as kern
        print("kernels:", kern.saxpy.__name__, kern.fill.__name__)
        print("doc:", "void k::saxpy(float a" in kern.saxpy.__doc__)
        print("binding:", callable(kern.twice) and not hasattr(kern.twice, "_kernels"))
        cubin = kern.saxpy._kernels._compile()
        print("symbols:", b"_ZN1k5saxpyEfPKfPfi" in cubin, b"_Z4fillPii" in cubin)
        """
    )
    result = run_python(code, project, cache, NUMBAST_IMPORT_QUIET="1")
    assert result.returncode == 0, result.stderr
    assert "kernels: saxpy fill" in result.stdout
    assert "doc: True" in result.stdout and "binding: True" in result.stdout
    assert "symbols: True True" in result.stdout
    assert list(cache.glob("rtc/*/*/manifest.json"))  # the compiled header, kept


@pytest.mark.gpu
def test_kernels_of_an_imported_header_run(tmp_path):
    code = textwrap.dedent(
        """
        import numpy as np
        import numbast_import.driver as drv
        import cuda_headers.kern as kern
        n = 1000
        x = np.arange(n, dtype=np.float32)
        y = np.ones(n, dtype=np.float32)
        kern.saxpy(np.float32(2.0), drv.In(x), drv.InOut(y), np.int32(n),
                   block=(128, 1, 1), grid=((n + 127) // 128, 1))
        print("saxpy", bool(np.allclose(y, 2 * x + 1)))
        out = np.zeros(32, dtype=np.int32)
        kern.fill(drv.Out(out), np.int32(7), block=(32, 1, 1), grid=(1, 1))
        print("fill", out.tolist() == [7] * 32)
        """
    )
    result = run_python(code, _project(tmp_path), tmp_path / "cache")
    assert result.returncode == 0, result.stderr
    assert "saxpy True" in result.stdout and "fill True" in result.stdout

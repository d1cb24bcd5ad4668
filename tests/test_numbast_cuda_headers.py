"""Dynamic bindings of the CUDA toolkit's fp16 / bf16 / fp8 headers (scripts/cuda_fp_headers.py,
in a subprocess of its own)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).parent / "scripts" / "cuda_fp_headers.py"


def _run(mode: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(SCRIPT), mode], capture_output=True, text=True, timeout=600
    )


def test_fp_header_kernels_link_to_sm90_cubins():
    result = _run("link")
    assert result.returncode == 0, result.stdout + result.stderr
    for name in ("fp16", "bf16", "fp8"):
        assert f"{name}: linked" in result.stdout
    # numba-cuda's own float16 / bfloat16 elements in and out of the bound functions
    assert "fp16 on float16 arrays: linked" in result.stdout
    assert "bf16 on bfloat16 arrays: linked" in result.stdout


@pytest.mark.gpu
def test_fp_header_numerics_match_numpy_and_ml_dtypes():
    result = _run("run")
    print(result.stdout)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.count("OK") == 5
    assert "bf16 on bfloat16 arrays: OK" in result.stdout

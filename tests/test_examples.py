"""The examples run as documented: the quick start, and the Numbast docs' dynamic demo."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def _run(script: str, cache_dir: Path) -> subprocess.CompletedProcess:
    # The quick start imports through the cache: keep the test's entries out of the user's.
    env = dict(os.environ, NUMBAST_CACHE_DIR=str(cache_dir))
    return subprocess.run(
        [sys.executable, str(EXAMPLES / script)],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )


def test_quickstart_runs(tmp_path):
    from conftest import cuda_device_available

    result = _run("quickstart.py", tmp_path / "cache")
    assert result.returncode == 0, result.stderr
    if cuda_device_available():
        assert "matches [3.0, sqrt(3.0)]" in result.stdout
    else:
        assert "compiled the kernel and 1 shim unit(s) for sm_90" in result.stdout


@pytest.mark.gpu
def test_dynamic_demo_gives_3_and_sqrt3(tmp_path):
    result = _run("demo_dynamic.py", tmp_path / "cache")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "matches [3.0, sqrt(3.0)]" in result.stdout

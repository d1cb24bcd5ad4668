"""The code stays `ruff check` and `ruff format` clean (the project's style contract)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _ruff() -> list[str]:
    beside_python = Path(sys.executable).with_name("ruff")
    if beside_python.is_file():
        return [str(beside_python)]
    found = shutil.which("ruff")
    if found is None:
        pytest.skip("ruff is not installed (it comes with the test extra)")
    return [found]


@pytest.mark.parametrize("command", [["check"], ["format", "--check"]])
def test_ruff(command):
    result = subprocess.run(
        [*_ruff(), *command, "."], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stdout + result.stderr

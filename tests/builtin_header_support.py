"""What the tests of the built-in modules (numbast.headers.*) share: their scripts
(tests/scripts/builtin_formats.py, curand_checks.py) run in a process of their own for a
project and cache, the code that makes NVRTC fail a warm import, and the cuRAND extra's check."""

from __future__ import annotations

from pathlib import Path

import pytest
from import_support import run_python

SCRIPTS = Path(__file__).parent / "scripts"

FORBID_NVRTC = """
import sys
import cuda.core
from numba.cuda.cudadrv import nvrtc

def forbidden(*args, **kwargs):
    raise AssertionError("NVRTC was asked to compile on a warm import")

cuda.core.Program = forbidden
nvrtc.compile = nvrtc.Program = forbidden
"""


def run_script(script: str, mode: str, project: Path, cache: Path, **env: str):
    code = f"import runpy, sys; sys.argv = ['{script}', '{mode}']; "
    code += f"runpy.run_path({str(SCRIPTS / script)!r}, run_name='__main__')"
    return run_python(code, project, cache, **env)


def curand_headers_installed() -> bool:
    from ast_canopy.toolkit import curand_include_dir

    return curand_include_dir() is not None


needs_curand = pytest.mark.skipif(
    not curand_headers_installed(),
    reason='cuRAND headers not installed: pip install "numbast-import[curand]"',
)

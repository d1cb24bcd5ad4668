"""Helpers for the import-system tests: a copy of the test project (its own pyproject.toml
with arch pinned to sm_90) and fresh Python processes importing from it."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parent
PROJECT = TESTS / "data" / "import" / "proj"


def make_project(tmp_path: Path) -> Path:
    destination = tmp_path / "proj"
    shutil.copytree(PROJECT, destination)
    return destination


def in_process_project(tmp_path: Path, monkeypatch) -> Path:
    """A copy of the test project made the working directory of this process, its cache under
    ``tmp_path``, no import-system settings of the caller's; a build here points the parser at
    that cache, which is undone afterwards."""
    project = make_project(tmp_path)
    for variable in ("NUMBAST_IMPORT_CONFIG", "NUMBAST_IMPORT_ARCH", "NUMBAST_CACHE_PATH"):
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.setenv("NUMBAST_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.chdir(project)
    from ast_canopy import cache as parser_cache

    monkeypatch.setattr(parser_cache, "_chosen", None)
    return project


def run_python(
    code: str, project: Path, cache: Path, **env: str
) -> subprocess.CompletedProcess[str]:
    """Run ``code`` in a fresh interpreter inside ``project`` with the cache at ``cache``."""
    return subprocess.run(
        [sys.executable, "-c", code],
        cwd=project,
        env=clean_env(cache, **env),
        capture_output=True,
        text=True,
        timeout=300,
    )


def cli(project: Path, cache: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    """``numbast-cache ARGS`` in a fresh process inside ``project``."""
    return subprocess.run(
        [sys.executable, "-m", "numbast_import.cli", *args],
        cwd=project,
        env=clean_env(cache, **env),
        capture_output=True,
        text=True,
        timeout=600,
    )


def clean_env(cache: Path, **env: str) -> dict[str, str]:
    """The environment with the cache at ``cache`` and no import-system settings of the
    caller's (they would change what is being tested)."""
    # Keep the caller's PYTHONPATH: the GPU machine installs the packages through it.
    python_path = os.pathsep.join(p for p in (str(TESTS), os.environ.get("PYTHONPATH")) if p)
    environment = {**os.environ, "NUMBAST_CACHE_DIR": str(cache), "PYTHONPATH": python_path}
    for variable in (
        "NUMBAST_IMPORT_QUIET",
        "NUMBAST_IMPORT_ARCH",
        "NUMBAST_IMPORT_CONFIG",
        "NUMBAST_CACHE_PATH",
        "AST_CANOPY_CACHE_DIR",
    ):
        environment.pop(variable, None)
    environment.update(env)
    return environment


def entries(cache: Path) -> list[Path]:
    return sorted(p for p in cache.glob("[0-9a-f][0-9a-f]/*") if p.is_dir() and len(p.name) == 64)


def shim_parts(cache: Path) -> int:
    """How many entries header entries share (compiled shim units, shim preludes)."""
    return sum(1 for kind in ("shims", "shim-preludes") for _ in cache.glob(f"{kind}/*/*"))


IMPORT_VEC = "import cuda_headers.vec as vec; print(vec.__file__)"

# A warm import must run neither clang nor NVRTC: fail any NVRTC compile, then link a kernel
# using the module through the cached LTO-IR.
LINK_WITHOUT_NVRTC = """
import sys
import cuda.core
from numba.cuda.cudadrv import nvrtc

def forbidden(*args, **kwargs):
    raise AssertionError("NVRTC was asked to compile on a warm import")

cuda.core.Program = forbidden
nvrtc.compile = nvrtc.Program = forbidden

import cuda_headers.vec as vec
from numba.cuda import types
from support import link_kernel_to_cubin

Vec2, scaled_dot = vec.Vec2, vec.scaled_dot

def kernel(out):
    a = Vec2(1.0, 2.0)
    out[0] = scaled_dot(a, a)

cubin = link_kernel_to_cubin(kernel, (types.float32[:],), arch="sm_90")
print("cubin bytes", len(cubin))
print("clang loaded:", "clang.cindex" in sys.modules)
from numba.cuda.cudadrv.linkable_code import LTOIR

linked = vec._numbast_shim_library.link_object()
print("link object:", "LTOIR" if isinstance(linked, LTOIR) else type(linked).__name__)
"""

"""The layers of src/numbast keep their promises, checked per package in fresh processes:
planning and the static renderer never import Numba, the runtime imports nothing of numbast
outside itself (a standalone module carries a copy of it), and generating a module never loads
Numba either."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

import numbast

NUMBAST = Path(numbast.__file__).parent


def _modules(package: str) -> list[str]:
    root = NUMBAST / package
    return sorted(f"numbast.{package}.{p.stem}" for p in root.glob("*.py") if p.stem != "__init__")


def _loads_numba(module: str) -> bool:
    code = f"import sys, {module}; print('numba' in sys.modules)"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    return result.stdout.strip() == "True"


@pytest.mark.parametrize("module", [*_modules("planning"), *_modules("core")])
def test_planning_never_imports_numba(module):
    assert not _loads_numba(module)


@pytest.mark.parametrize(
    "module",
    [m for m in _modules("static") if not m.endswith(("cli", "config_yaml"))],
)
def test_the_static_renderer_never_imports_numba(module):
    assert not _loads_numba(module)


def test_rendering_a_module_does_not_load_numba(tmp_path):
    config = Path(__file__).parent / "data" / "static" / "tiny.cuh"
    code = (
        "import sys, warnings\n"
        "from numbast.static.config import config_from_mapping\n"
        "from numbast.static.renderer import render_bindings_module\n"
        f"raw = {{'Entry Point': {str(config)!r}, 'File List': [{str(config)!r}], "
        "'GPU Arch': ['sm_90']}\n"
        "config = config_from_mapping(raw, base_dir='.', source='<test>')\n"
        "assert 'ModuleRows(' in render_bindings_module(config)\n"
        "print('numba' in sys.modules)\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "False"


def test_the_runtime_imports_only_itself_numba_and_the_standard_library():
    # numba_cuda: numba-cuda's own top-level package (its version)
    allowed_roots = {"numba", "numba_cuda", "llvmlite", "cuda", "numpy"}
    allowed_roots |= set(sys.stdlib_module_names)
    paths = [*(NUMBAST / "core").glob("*.py"), *(NUMBAST / "runtime").rglob("*.py")]
    for path in sorted(paths):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.level == 0:
                roots = [node.module.split(".")[0]]
            elif isinstance(node, ast.Import):
                roots = [alias.name.split(".")[0] for alias in node.names]
            else:
                continue
            assert set(roots) <= allowed_roots, (path.name, roots)

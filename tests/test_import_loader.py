"""The loader has importlib's shape: ``create_module`` leaves the module to importlib and
``exec_module`` does the work, so ``importlib.util.LazyLoader`` defers all of it; building an
entry renders and compiles without running the module (it does not even load Numba)."""

from __future__ import annotations

import textwrap

from import_support import entries, make_project, run_python

HEAVY = ("numba", "numbast.runtime.apply", "clang.cindex", "ast_canopy.parser", "cuda.bindings")

LAZY = f"""
import importlib, importlib.util, sys
import cuda_headers

def loaded():
    return [name for name in {HEAVY!r} if name in sys.modules]

spec = importlib.util.find_spec("cuda_headers.vec")
assert spec.loader.create_module(spec) is None
spec.loader = importlib.util.LazyLoader(spec.loader)
vec = importlib.util.module_from_spec(spec)
sys.modules["cuda_headers.vec"] = vec
spec.loader.exec_module(vec)
print("before an attribute:", loaded())
dot = vec.dot
print("after:", loaded(), type(vec).__name__, callable(dot))
again = importlib.reload(vec)
print("reloaded:", again is vec, callable(vec.scaled_dot))
"""


def test_a_lazy_loader_loads_nothing_until_an_attribute_is_used(tmp_path):
    project, cache = make_project(tmp_path), tmp_path / "cache"
    result = run_python(LAZY, project, cache, NUMBAST_IMPORT_QUIET="1")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "before an attribute: []", result.stdout
    assert lines[1].startswith("after: ['numba', 'numbast.runtime.apply'"), result.stdout
    # No longer lazy: a header module (it pickles as its mapping, numbast_import.pickling).
    assert lines[1].endswith("] HeaderModule True"), result.stdout
    assert lines[2] == "reloaded: True True", result.stdout
    assert len(entries(cache)) == 1


BUILD = """
import builtins, sys
from pathlib import Path
from numbast_import.build import generate
from numbast_import.cache.manifest import BINDINGS, BINDINGS_CODE, SHIM_LTOIR
from numbast_import.config import load_project_config

mapping = load_project_config(Path("pyproject.toml")).headers["vec"]
output = generate("cuda_headers.vec", mapping, "sm_90", None, "rebuild")
print("module ran:", getattr(builtins, "vec_module_ran", False))
print("numba loaded:", "numba" in sys.modules)
print("artifacts:", sorted(output.artifacts))
units = output.notes.get("shim_units")  # compiled in units (numbast_import.shim_units)
print("ltoir:", len(output.artifacts.get(SHIM_LTOIR, b"")) > 0 or bool(units))
"""


def test_building_an_entry_renders_and_compiles_without_running_the_module(tmp_path):
    project, cache = make_project(tmp_path), tmp_path / "cache"
    # Additional Import statements run when the module runs: this one records that it did.
    (project / "vec_marker.py").write_text("import builtins\nbuiltins.vec_module_ran = True\n")
    pyproject = project / "pyproject.toml"
    pyproject.write_text(
        pyproject.read_text().replace(
            'vec = "include/vec.cuh"',
            'vec = { header = "include/vec.cuh", additional-imports = ["import vec_marker"] }',
        )
    )
    result = run_python(textwrap.dedent(BUILD), project, cache)
    assert result.returncode == 0, result.stderr
    assert "module ran: False" in result.stdout
    assert "numba loaded: False" in result.stdout
    assert "'bindings.py', 'bindings.pyc'" in result.stdout and "ltoir: True" in result.stdout
    # The import runs it, once.
    code = "import builtins, cuda_headers.vec; print('ran:', builtins.vec_module_ran)"
    imported = run_python(code, project, cache, NUMBAST_IMPORT_QUIET="1")
    assert imported.returncode == 0, imported.stderr
    assert "ran: True" in imported.stdout
    # A warm import starts no process (finding the toolkit's headers may, 0.4 s: only a
    # compile needs them).
    warm = run_python(WARM_WITHOUT_PROCESSES, project, cache, NUMBAST_IMPORT_QUIET="1")
    assert warm.returncode == 0, warm.stderr
    assert "ran: True" in warm.stdout
    assert "loaded: []" in warm.stdout, warm.stdout


WARM_WITHOUT_PROCESSES = """
import builtins, subprocess
import numba.cuda  # numba-cuda's own import may ask cuda.pathfinder, in a process

def no_process(*args, **kwargs):
    raise AssertionError(f"a warm import started a process: {args}")

subprocess.Popen.__init__ = no_process
import cuda_headers.vec
print("ran:", builtins.vec_module_ran)
import sys
# What only a build, or a kernel linking the shims, needs: a hit loads none of it.
BUILD_OR_LINK = (
    "numbast_import.build", "numbast_import.shim_units", "numbast_import.shim_unit_loader",
    "numbast_import.shim_compiler", "numbast_import.cache.lock", "numbast.core.nvrtc",
)
print("loaded:", [name for name in BUILD_OR_LINK if name in sys.modules])
"""


def test_a_shim_include_override_expression_is_evaluated_for_the_build(tmp_path):
    project, cache = make_project(tmp_path), tmp_path / "cache"
    pyproject = project / "pyproject.toml"
    pyproject.write_text(
        pyproject.read_text().replace(
            'vec = "include/vec.cuh"',
            'vec = { header = "include/vec.cuh", include-dirs = ["include"], '
            'additional-imports = ["import os"], shim-include-override = '
            "\"os.path.join('vec' + '.cuh')\" }",
        )
    )
    code = (
        "import cuda_headers.vec as vec\n"
        "library = vec._numbast_shim_library\n"
        "print(repr(library.preamble), type(library.link_object()).__name__)\n"
    )
    result = run_python(code, project, cache, NUMBAST_IMPORT_QUIET="1")
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["'#include", "<vec.cuh>'", "_LazyUnit"]

"""``numbast.bind_header`` and a header's module (``python -m numbast``, the import system)
bind the same names for every test header: both plan the header into the same module rows and
apply them through one runtime. tests/data/binding/parity.cuh has one declaration of each kind
a module names: struct, typedef, unscoped and scoped enum, class and function template,
function, ``__global__`` kernel; it also goes through the import system itself."""

from __future__ import annotations

import ast
import shutil
import warnings
from pathlib import Path

import pytest
from import_support import run_python
from static_support import render

from numbast.static.config import config_from_mapping

DATA = Path(__file__).parent / "data"
UNPARSABLE = {"broken.cuh", "arch_layout.cuh"}  # errors by design (tests of failures)
INCLUDE_DIRS = {"include_paths.cuh": ["include_dir"]}
HEADERS = sorted(
    path
    for folder in ("binding", "static", "templates", "kernels", "compat")
    for path in (DATA / folder).glob("*.cuh")
    if path.name not in UNPARSABLE
)


def module_names(source: str) -> set[str]:
    """The names a header module's source binds: ``__all__`` (types, enums and enumerators,
    functions, templates, kernels) and its typedef aliases (the ``aliases`` of its rows)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "__all__":
            names |= set(ast.literal_eval(node.value))
        if isinstance(node, ast.keyword) and node.arg == "aliases":
            names |= {alias for alias, _target in ast.literal_eval(node.value)}
    return names


def bound_names(bound) -> set[str]:
    return set(bound.names) | set(bound.kernels)


@pytest.mark.parametrize("header", HEADERS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_bind_header_and_the_module_bind_the_same_names(header, tmp_path):
    from numbast import bind_header

    include_dirs = [str(header.parent / d) for d in INCLUDE_DIRS.get(header.name, ())]
    raw = {"Entry Point": str(header), "File List": [str(header)], "GPU Arch": ["sm_90"]}
    raw["Clang Include Paths"] = include_dirs
    config = config_from_mapping(raw, base_dir=str(header.parent), source="<parity test>")
    source = render(config, tmp_path).read_text()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        bound = bind_header(header, include_dirs=include_dirs)
    assert bound_names(bound) == module_names(source)
    for name in module_names(source):  # reachable as attributes, as the module's are
        assert getattr(bound, name) is not None


IMPORT = """
import cuda_headers.parity as parity
print(sorted(set(parity.__all__) | {alias for alias, _ in parity._nb_rows.aliases}))
print(type(parity.step).__name__, parity.Body is parity.Particle)
"""


def test_bind_header_and_the_import_system_bind_the_same_names(tmp_path):
    from numbast import bind_header

    header = DATA / "binding" / "parity.cuh"
    project = tmp_path / "proj"
    project.mkdir()
    shutil.copy(header, project)
    (project / "pyproject.toml").write_text(
        '[tool.numbast-import]\narch = "sm_90"\n[tool.numbast-import.headers]\n'
        'parity = "parity.cuh"\n'
    )
    result = run_python(IMPORT, project, tmp_path / "cache", NUMBAST_IMPORT_QUIET="1")
    assert result.returncode == 0, result.stderr
    imported, kinds = result.stdout.splitlines()
    bound = bind_header(header)
    expected = ["Axis", "Body", "Box", "FAST", "Mode", "Particle", "SLOW", "advance", "step"]
    expected += ["twice", "_type_Particle"]
    assert imported == str(sorted(bound_names(bound))) == str(sorted(expected))
    assert kinds == "HeaderKernel True"
    assert bound.Body is bound.Particle and bound.step.row.qual_name == "step"

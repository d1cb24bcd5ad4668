"""The layers keep their promises. The import graph of the whole tree (ast_canopy, numbast,
numbast_import, cuda_headers), computed from the source, has no cycle and no import running up
the layers (LAYERS states the allowed direction per package); and, in fresh processes, planning
and the static renderer never import Numba, the runtime imports nothing of numbast outside
numbast.core and itself (a standalone module carries a copy of it), and generating a module
never loads Numba either."""

from __future__ import annotations

import ast
import subprocess
import sys
from functools import cache
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


# -- the import graph -------------------------------------------------------------------------

SRC = NUMBAST.parent
PACKAGES = {
    "ast_canopy": SRC / "ast_canopy",
    "numbast": NUMBAST,
    "cuda_headers": SRC / "cuda_headers",
    "numbast_import": Path(__import__("numbast_import").__file__).parent,
}
GENERATOR = (
    "numbast.core",
    "numbast.planning",
    "numbast.runtime",
    "numbast.runtime.templates",
    "numbast.runtime.apply",
    "numbast.static",
    "numbast.dynamic",
    "numbast",
)
# Each package (its modules and subpackages, unless listed themselves) and the packages it may
# import besides itself, lowest layer first: parse -> plan -> register / render -> import.
LAYERS: dict[str, tuple[str, ...]] = {
    # numbast/__init__.py alone: names resolved lazily, imports only the standard library, so
    # anything may read numbast.__version__ from it.
    "numbast.__init__": (),
    "ast_canopy": (),  # the parser: clang and cuda.pathfinder only
    "numbast.core": (),  # the Numba-free vocabulary: rows, call plans, shim text, C++ names
    "numbast.planning": ("ast_canopy", "numbast.core"),  # declarations -> rows, no Numba
    "numbast.runtime": ("numbast.core",),  # rows -> Numba registrations
    "numbast.runtime.templates": ("numbast.core", "numbast.runtime"),  # templates, on top
    "numbast.runtime_mlir": ("numbast.core", "numbast.runtime"),  # the rows, to numba-cuda-mlir
    # apply_module composes the runtime's layers: the runtime's top
    "numbast.runtime.apply": ("numbast.core", "numbast.runtime", "numbast.runtime.templates"),
    "numbast.static": ("ast_canopy", "numbast.core", "numbast.planning"),  # rows -> module text
    # plan a header as a module is planned (numbast.static's planner), apply in-process
    "numbast.dynamic": (
        "ast_canopy",
        "numbast.core",
        "numbast.planning",
        "numbast.runtime",
        "numbast.runtime.templates",
        "numbast.runtime.apply",
        "numbast.static",
    ),
    # NVIDIA's module paths (numbast.types, numbast.shim_writer, ...), python -m numbast
    "numbast": ("ast_canopy", *GENERATOR),
    "numbast_import": ("ast_canopy", *GENERATOR),  # the import system, on top of everything
    # The import system's namespaces: their __init__ installs its finder, nothing else.
    "numbast.headers": ("numbast_import",),
    "cuda_headers": ("numbast_import",),
}


def _module_files() -> dict[str, Path]:
    found = {}
    for package, root in PACKAGES.items():
        for path in root.rglob("*.py"):
            parts = path.relative_to(root).with_suffix("").parts
            name = ".".join((package, *parts)).removesuffix(".__init__")
            found[name] = path
    return found


@cache
def import_graph() -> dict[str, set[str]]:
    """module -> the modules of the tree it imports, anywhere in its code (inside functions
    too; not under ``if TYPE_CHECKING``). ``from package import name`` counts as importing
    ``package.name`` when that is a module, else ``package``."""
    files = _module_files()
    graph = {}
    for name, path in files.items():
        tree = ast.parse(path.read_text())
        hidden = {
            id(inner)
            for node in ast.walk(tree)
            if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)
            for inner in ast.walk(node)
        }
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        targets = []
        for node in ast.walk(tree):
            if id(node) in hidden:
                continue
            if isinstance(node, ast.Import):
                targets += [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = package.split(".")[: len(package.split(".")) - max(node.level - 1, 0)]
                module = (
                    ".".join(base + [node.module or ""]).strip(".") if node.level else node.module
                )
                targets += [
                    f"{module}.{alias.name}" if f"{module}.{alias.name}" in files else module
                    for alias in node.names
                ]
        imported = set()
        for target in targets:
            while target and target not in files:
                target = target.rpartition(".")[0]
            if target and target != name:
                imported.add(target)
        graph[name] = imported
    return graph


def layer_of(module: str) -> str:
    if module == "numbast":
        return "numbast.__init__"
    return max(
        (p for p in LAYERS if module == p or module.startswith(p + ".")),
        key=len,
    )


def test_every_import_follows_the_layers():
    graph = import_graph()
    assert {"numbast.core.rows", "numbast.runtime.templates.classes", "cuda_headers"} <= set(graph)
    upward = [
        f"{module} ({layer_of(module)}) imports {target} ({layer_of(target)})"
        for module, targets in sorted(graph.items())
        for target in sorted(targets)
        if layer_of(target) not in (layer_of(module), "numbast.__init__", *LAYERS[layer_of(module)])
    ]
    assert not upward, "\n".join(upward)
    assert not graph["numbast"], "numbast/__init__.py must import nothing of the tree"


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_the_import_graph_has_no_cycle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert not _cycles(import_graph())

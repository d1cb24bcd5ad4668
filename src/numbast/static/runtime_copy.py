"""The copy of the runtime a standalone generated module carries.

A module from ``python -m numbast`` must import where numbast is not installed, so it carries the
sources of the runtime modules that ``numbast.runtime.apply`` needs (and only those), and loads
them as a package of their own, ``_numbast_runtime_<digest of the sources>``: modules generated
by the same numbast share one copy per process, and every copy registers into the one shared
registration state (``numbast.runtime.state``).
"""

from __future__ import annotations

import ast
import hashlib
from importlib import resources

RUNTIME_PACKAGE = "numbast.runtime"
ENTRY_MODULE = "apply"

_LOADER = '''\
def _nb_load_runtime(package, sources, entry):
    """The runtime copy ``package`` (loaded from ``sources`` unless this process has it)."""
    import linecache
    import sys
    from types import ModuleType

    if f"{package}.{sources[-1][0]}" not in sys.modules:  # the last one loads last
        root = sys.modules.setdefault(package, ModuleType(package))
        root.__path__ = []
        for name, source in sources:  # dependencies first
            module = ModuleType(f"{package}.{name}")
            module.__package__ = package
            filename = f"<numbast runtime copy: {name}.py>"
            linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
            sys.modules[module.__name__] = module
            exec(compile(source, filename, "exec"), module.__dict__)
            setattr(root, name, module)
    return sys.modules[f"{package}.{entry}"]
'''


def runtime_sources() -> list[tuple[str, str]]:
    """(module name, source) of the runtime modules ``apply`` needs, each after the modules it
    imports at module level (those it imports inside functions, lazily, are included too, in
    any order: they are loaded by the time the function runs)."""
    package = resources.files(RUNTIME_PACKAGE)
    sources: dict[str, str] = {}
    pending = [ENTRY_MODULE]
    while pending:
        name = pending.pop()
        if name not in sources:
            sources[name] = package.joinpath(f"{name}.py").read_text(encoding="utf-8")
            pending += _relative_imports(sources[name], top_level_only=False)
    order: list[str] = []

    def visit(name: str, path: tuple[str, ...]) -> None:
        if name in order:
            return
        if name in path:
            raise RuntimeError(f"the runtime's modules import each other in a cycle: {path}")
        for dependency in _relative_imports(sources[name], top_level_only=True):
            visit(dependency, (*path, name))
        order.append(name)

    for name in sorted(sources, key=lambda n: n == ENTRY_MODULE):
        visit(name, ())
    return [(name, sources[name]) for name in order]


def _relative_imports(source: str, top_level_only: bool) -> list[str]:
    """Sibling modules imported with ``from .x import ...`` (at module level, or anywhere)."""
    tree = ast.parse(source)
    nodes = tree.body if top_level_only else ast.walk(tree)
    found = []
    for node in nodes:
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            found.append(node.module.split(".")[0] if node.module else "")
            if not node.module:  # from . import rows
                found[-1:] = [alias.name for alias in node.names]
    return found


def runtime_copy() -> str:
    """The generated module's runtime block: the sources, the loader, and ``_nb_runtime``."""
    from numbast.static.module_writer import source_literal

    sources = runtime_sources()
    digest = hashlib.sha256()
    for name, source in sources:
        digest.update(name.encode() + b"\0" + source.encode() + b"\0")
    package = f"_numbast_runtime_{digest.hexdigest()[:16]}"
    entries = "".join(f"    ({name!r}, {source_literal(src)}),\n" for name, src in sources)
    return (
        "# A copy of numbast's runtime (numbast/runtime/: the modules apply.py needs), so this\n"
        "# module imports where numbast is not installed. It is loaded once per process under a\n"
        "# name of its own; every copy shares one registration state with the installed runtime.\n"
        f"_NB_RUNTIME_SOURCES = (\n{entries})\n\n\n"
        f"{_LOADER}\n\n"
        f"_nb_runtime = _nb_load_runtime({package!r}, _NB_RUNTIME_SOURCES, {ENTRY_MODULE!r})\n"
    )

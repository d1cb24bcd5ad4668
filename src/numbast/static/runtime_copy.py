"""The copy of the runtime a standalone generated module carries.

A module from ``python -m numbast`` must import where numbast is not installed, so it carries the
sources of the runtime modules that ``numbast.runtime.apply`` needs (of ``numbast.core`` and
``numbast.runtime``) (and only those), and loads
them as a package of their own, ``_numbast_runtime_<digest of the sources>``: modules generated
by the same numbast share one copy per process, and every copy registers into the one shared
registration state (``numbast.runtime.state``).
"""

from __future__ import annotations

import ast
import hashlib
from importlib import resources

from numbast.static.literals import source_literal

# The runtime's modules are named relative to this package: ``runtime.apply``, ``core.rows``.
SOURCE_PACKAGE = "numbast"
ENTRY_MODULE = "runtime.apply"

_LOADER = '''\
def _nb_load_runtime(package, sources, entry):
    """The runtime copy ``package`` (loaded from ``sources`` unless this process has it)."""
    import linecache
    import sys
    from types import ModuleType

    def package_module(name):
        module = sys.modules.get(name)
        if module is None:
            module = sys.modules.setdefault(name, ModuleType(name))
            module.__path__ = []
            parent, _, leaf = name.rpartition(".")
            if parent:
                setattr(package_module(parent), leaf, module)
        return module

    if f"{package}.{sources[-1][0]}" not in sys.modules:  # the last one loads last
        for name, source in sources:  # dependencies first
            parent, _, leaf = f"{package}.{name}".rpartition(".")
            module = ModuleType(f"{package}.{name}")
            module.__package__ = parent
            filename = f"<numbast runtime copy: {name.replace('.', '/')}.py>"
            linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
            sys.modules[module.__name__] = module
            exec(compile(source, filename, "exec"), module.__dict__)
            setattr(package_module(parent), leaf, module)
    return sys.modules[f"{package}.{entry}"]
'''


def runtime_sources() -> list[tuple[str, str]]:
    """(module name relative to ``numbast``, source) of the runtime modules ``runtime.apply``
    needs, each after the modules it imports at module level (those it imports inside
    functions, lazily, are included too, in any order: they are loaded by the time the
    function runs)."""
    sources: dict[str, str] = {}
    pending = [ENTRY_MODULE]
    while pending:
        name = pending.pop()
        if name not in sources:
            sources[name] = _source_of(name)
            pending += _relative_imports(name, sources[name], top_level_only=False)
    order: list[str] = []

    def visit(name: str, path: tuple[str, ...]) -> None:
        if name in order:
            return
        if name in path:
            raise RuntimeError(f"the runtime's modules import each other in a cycle: {path}")
        for dependency in _relative_imports(name, sources[name], top_level_only=True):
            visit(dependency, (*path, name))
        order.append(name)

    for name in sorted(sources, key=lambda n: n == ENTRY_MODULE):
        visit(name, ())
    return [(name, sources[name]) for name in order]


def _source_of(name: str) -> str:
    package, _, leaf = f"{SOURCE_PACKAGE}.{name}".rpartition(".")
    return resources.files(package).joinpath(f"{leaf}.py").read_text(encoding="utf-8")


def _is_module(name: str) -> bool:
    package, _, leaf = f"{SOURCE_PACKAGE}.{name}".rpartition(".")
    return resources.files(package).joinpath(f"{leaf}.py").is_file()


def _relative_imports(name: str, source: str, top_level_only: bool) -> list[str]:
    """The modules (named as ``name`` is) that ``name`` imports relatively (``from .x import``,
    ``from ..core import rows``), at module level or anywhere."""
    tree = ast.parse(source)
    nodes = tree.body if top_level_only else ast.walk(tree)
    package = name.rpartition(".")[0].split(".")
    found = []
    for node in nodes:
        if isinstance(node, ast.ImportFrom) and node.level:
            base = package[: len(package) - (node.level - 1)]
            target = ".".join(base + ([node.module] if node.module else []))
            if node.module and _is_module(target):
                found.append(target)
            else:  # from ..core import rows: modules of a package
                found += [f"{target}.{alias.name}" for alias in node.names]
    return found


def runtime_copy() -> str:
    """The generated module's runtime block: the sources, the loader, and ``_nb_runtime``."""
    sources = runtime_sources()
    digest = hashlib.sha256()
    for name, source in sources:
        digest.update(name.encode() + b"\0" + source.encode() + b"\0")
    package = f"_numbast_runtime_{digest.hexdigest()[:16]}"
    entries = "".join(f"    ({name!r}, {source_literal(src)}),\n" for name, src in sources)
    return (
        "# A copy of numbast's runtime (the modules of numbast/core/ and numbast/runtime/ that\n"
        "# runtime/apply.py needs), so this module imports where numbast is not installed. It is\n"
        "# loaded once per process under a name of its own; every copy shares one registration\n"
        "# state with the installed runtime.\n"
        f"_NB_RUNTIME_SOURCES = (\n{entries})\n\n\n"
        f"{_LOADER}\n\n"
        f"_nb_runtime = _nb_load_runtime({package!r}, _NB_RUNTIME_SOURCES, {ENTRY_MODULE!r})\n"
    )

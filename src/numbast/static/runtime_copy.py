"""The copy of the runtime a standalone generated module carries.

A module from ``python -m numbast`` must import where numbast is not installed, so it carries the
sources of the runtime modules its rows need (of ``numbast.core`` and ``numbast.runtime``:
``runtime.apply`` and what it imports, and the parts for the features its rows use, such as
templates), and loads them as a package of their own, ``_numbast_runtime_<digest of the
sources>``: modules generated alike share one copy per process, and every copy registers into
the one shared registration state (``numbast.runtime.state``). The copy leaves out docstrings
and comments (numbast's sources have them). The kernel cache is not carried: where numbast is
installed, a copy uses its kernel cache (``runtime.shim_library``).
"""

from __future__ import annotations

import ast
import hashlib
from collections.abc import Iterable
from importlib import resources

from numbast.core import rows
from numbast.core.cxx_names import NATIVE_TWIN_TYPES, toolkit_vector_function
from numbast.core.shim_text import SETITEM
from numbast.static.literals import source_literal
from numbast.static.planned_module import ModulePlan
from numbast.static.source_pruning import without_unused_definitions

# The runtime's modules are named relative to this package: ``runtime.apply``, ``core.rows``.
SOURCE_PACKAGE = "numbast"
ENTRY_MODULE = "runtime.apply"
# Carried by modules with more shims than one unit (``numbast.core.unit_files``).
UNIT_FILES = "shims compiled in units beside the module"
# What a module's rows may use beyond runtime.apply's own imports -> the modules that bring it
# (the runtime imports them only when rows use it).
FEATURES: dict[str, tuple[str, ...]] = {
    "templates": (
        "runtime.templates.bindings",
        "runtime.templates.members",
        "runtime.templates.context",
        "runtime.members",  # an instance's methods may update it, or be static
        "runtime.element_assignment",  # and its operator[] be assigned through
    ),
    "methods that update their object, static methods": ("runtime.members",),
    "v[i] = x through a non-const operator[]": ("runtime.element_assignment", "runtime.members"),
    "pointers to structs as parameters": ("runtime.struct_pointers",),
    "__half and __nv_bfloat16 (numba-cuda's own float16 / bfloat16)": ("runtime.native_twins",),
    "a Shim Include Override evaluated at import": ("core.shim_text",),
    "structs named by their C++ spelling (nested, instances)": ("runtime.spelled_names",),
    "the toolkit's vector functions (make_float3) beside the header's": (
        "runtime.vector_functions",
    ),
    "arrays passed where pointers are taken": ("runtime.array_decay",),
    UNIT_FILES: ("runtime.unit_files",),
}

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


def runtime_features(plan: ModulePlan) -> list[str]:
    """The FEATURES ``plan``'s rows use."""
    bodies = [body for _row, body in plan.structs]
    members = [member for body in bodies for member in body.members]
    used = {
        "templates": bool(
            plan.class_templates
            or plan.function_templates
            or plan.alias_templates
            or any(body.member_templates for body in bodies)
        ),
        "methods that update their object, static methods": any(
            m.kind == rows.STATIC_METHOD or (m.kind == rows.METHOD and m.flag) for m in members
        ),
        "v[i] = x through a non-const operator[]": any(
            m.kind == rows.METHOD and m.name == SETITEM for m in members
        ),
        "pointers to structs as parameters": any(
            _points_to_a_struct(getattr(argument.type, "description", ()))
            for row in plan.functions
            for argument in row.call.arguments
        ),
        "__half and __nv_bfloat16 (numba-cuda's own float16 / bfloat16)": any(
            row.qual_name in NATIVE_TWIN_TYPES for row, _body in plan.structs
        ),
        "a Shim Include Override evaluated at import": plan.preamble is None,
        "structs named by their C++ spelling (nested, instances)": any(
            not row.python_name.isidentifier() for row, _body in plan.structs
        ),
        "the toolkit's vector functions (make_float3) beside the header's": any(
            not row.operator and toolkit_vector_function(row.qual_name) for row in plan.functions
        ),
        "arrays passed where pointers are taken": bool(
            plan.class_templates or plan.function_templates
        )
        or any(
            argument.mode == rows.POINTER or _is_pointer(getattr(argument.type, "description", ()))
            for call in [row.call for row in plan.functions] + [m.call for m in members]
            for argument in call.arguments
        ),
        UNIT_FILES: False,  # by the shims the rows hold: write_module adds it
    }
    return [feature for feature in FEATURES if used[feature]]


def _is_pointer(description: tuple) -> bool:
    return bool(description) and description[0] in ("pointer", "voidptr")


def _points_to_a_struct(description: tuple) -> bool:
    return (
        len(description) == 2
        and description[0] == "pointer"
        and description[1][0] not in ("builtin", "vector", "enum", "pointer", "voidptr")
    )


def runtime_sources(features: Iterable[str] = tuple(FEATURES)) -> list[tuple[str, str]]:
    """(module name relative to ``numbast``, source) of ``runtime.apply``, the modules for
    ``features`` (default: all), and what they import at module level, each after the modules
    it imports."""
    entries = [ENTRY_MODULE] + [module for feature in features for module in FEATURES[feature]]
    sources: dict[str, str] = {}
    pending = list(entries)
    while pending:
        name = pending.pop()
        if name not in sources:
            sources[name] = _source_of(name)
            pending += _relative_imports(name, sources[name], top_level_only=True)
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


def compact(source: str) -> str:
    """``source`` without docstrings and comments (what a copy carries; the same code)."""
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            first = node.body[0] if node.body else None
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                if isinstance(first.value.value, str):
                    node.body = node.body[1:] or [ast.Pass()]
    # ast.unparse writes strings as one-line literals (docstrings are gone), so every blank line
    # it leaves between definitions can go too.
    return "".join(f"{line}\n" for line in ast.unparse(tree).splitlines() if line.strip())


def runtime_copy(features: Iterable[str] = tuple(FEATURES), uses: Iterable[str] = ()) -> str:
    """The generated module's runtime block: the sources (for ``features``, without what
    neither they nor the module's code, which names ``uses``, use), the loader, and
    ``_nb_runtime``."""
    features = list(features)
    whole = [(name, compact(source)) for name, source in runtime_sources(features)]
    pruned = without_unused_definitions(whole, ENTRY_MODULE, uses)
    sources = [(name, compact(source)) for name, source in pruned]
    digest = hashlib.sha256()
    for name, source in sources:
        digest.update(name.encode() + b"\0" + source.encode() + b"\0")
    package = f"_numbast_runtime_{digest.hexdigest()[:16]}"
    entries = "".join(f"    ({name!r}, {source_literal(src)}),\n" for name, src in sources)
    carried = "".join(f"# - {feature}\n" for feature in features) or "# - nothing more\n"
    return (
        "# A copy of numbast's runtime (numbast/core/, numbast/runtime/: runtime/apply.py, what\n"
        "# it imports, and what these rows use; no docstrings or comments), so this module\n"
        "# imports where numbast is not installed. It is loaded once per process under a name\n"
        "# of its own; every copy shares one registration state with the installed runtime.\n"
        "# Carried for this module's rows:\n"
        + carried
        # The sources are data to formatters (ruff format, black): a module to a line pair.
        + f"# fmt: off\n_NB_RUNTIME_SOURCES = (\n{entries})\n# fmt: on\n\n\n"
        f"{_LOADER}\n\n"
        f"_nb_runtime = _nb_load_runtime({package!r}, _NB_RUNTIME_SOURCES, {ENTRY_MODULE!r})\n"
    )

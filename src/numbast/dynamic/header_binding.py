"""Bind everything a header declares in one call: ``bind_header``, ``bind_declarations``.

A header is planned as a module is (``numbast.static.module_plan``: the rows the import system
and ``python -m numbast`` write), with the process's type table, so declarations may use types
bound before; the rows are then applied in-process (``numbast.runtime.apply.apply_rows``). So a
bound header has the names its imported module has: structs, enums, functions and operators,
class, alias and function templates, typedefs of bound types, unscoped enumerators, and the
header's ``__global__`` functions (described here; the import system launches them). Each
declaration that cannot be bound is skipped with one warning.
"""

from __future__ import annotations

import operator
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from numba.cuda import types
from numba.cuda.typing.typeof import typeof_impl

from ast_canopy.model import Declarations
from numbast.core.row_writer import RowWriter
from numbast.core.rows import KernelRow
from numbast.core.shim_text import shim_preamble
from numbast.dynamic.numba_types import in_process_type_table, register_cxx_enum, register_cxx_type
from numbast.dynamic.shim_writer import MemoryShimWriter
from numbast.dynamic.template_context import InstantiationOptions
from numbast.planning.diagnostics import warn_skipped
from numbast.planning.intents import IntentSpec
from numbast.runtime.apply import apply_rows, enum_member_type, resolve_types
from numbast.runtime.backends import add_module_class
from numbast.runtime.shim_library import ShimLibrary
from numbast.static.arch_merge import merge_declarations
from numbast.static.config import StaticConfig
from numbast.static.coverage import HOST_ONLY, SKIPPED
from numbast.static.module_plan import plan_module
from numbast.static.module_writer import type_exports


@dataclass(eq=False)  # compared by identity: Numba keys a kernel global's type on it
class BoundHeader:
    """What binding one header produced, by Python name (``names``: every name, as the header's
    module has them; the other tables sort them by kind). In a kernel it is what the header's
    imported module is: a namespace of the bindings (``geo.Arr(...)``, ``geo.clamp(...)``)."""

    shim_writer: ShimLibrary
    structs: dict[str, type] = field(default_factory=dict)
    enums: dict[str, type] = field(default_factory=dict)
    functions: dict[str, Any] = field(default_factory=dict)
    operators: list[Any] = field(default_factory=list)
    function_templates: dict[str, Any] = field(default_factory=dict)
    class_templates: dict[str, Any] = field(default_factory=dict)
    alias_templates: dict[str, Any] = field(default_factory=dict)
    kernels: dict[str, KernelDeclaration] = field(default_factory=dict)
    constants: dict[str, Any] = field(default_factory=dict)  # macros expanding to a literal
    names: dict[str, Any] = field(default_factory=dict)

    # Compilers name a module global by it (numba-cuda-mlir asks every module for one).
    __name__ = "numbast.bound_header"

    def __getattr__(self, name: str) -> Any:
        dunder = name.startswith("__") and name.endswith("__")
        if dunder or name in BoundHeader.__dataclass_fields__:
            raise AttributeError(name)  # not a binding (copy, pickle, dataclass machinery)
        for table in (self.names, self.kernels):
            if name in table:
                return table[name]
        raise AttributeError(f"the bound header has no {name!r}")

    def __dir__(self) -> list[str]:
        return sorted({*super().__dir__(), *self.names, *self.kernels})

    def links(self) -> list:
        return self.shim_writer.links()

    def __repr__(self) -> str:
        return f"<bound header: {len(self.names)} names>"


@typeof_impl.register(BoundHeader)
def _typeof_bound_header(value: BoundHeader, context: Any) -> types.Module:
    # As a module global is typed: Numba resolves `geo.Arr` on the object when typing.
    return types.Module(value)


add_module_class(BoundHeader)  # the other backends type it as a module too


class KernelDeclaration:
    """A ``__global__`` function of a bound header: dynamic binding describes it; the import
    system (``import cuda_headers.x``) or ``numbast_import.compiler.SourceModule`` launch it."""

    def __init__(self, row: KernelRow) -> None:
        self.row = KernelRow(*row)
        self.__name__ = self.__qualname__ = self.row.python_name
        self.__doc__ = f"CUDA kernel {self.row.qual_name}:\n\n    {self.row.declaration}"

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise TypeError(
            f"{self.row.qual_name} is a __global__ function: launch it from the host through "
            "the import system (map its header and import cuda_headers.<name>), or compile its "
            "header with numbast_import.compiler.SourceModule"
        )

    def __repr__(self) -> str:
        return f"<CUDA kernel {self.row.python_name} ({self.row.mangled_name}), not launchable>"


def bind_declarations(
    shim_writer: ShimLibrary,
    decls: Declarations,
    parent_types: Mapping[str, type[types.Type]] | None = None,
    data_models: Mapping[str, type] | None = None,
    arg_intents: Mapping[str, IntentSpec] | None = None,
    exclude: Iterable[str] = (),
    options: InstantiationOptions | None = None,
) -> BoundHeader:
    """Bind enums, structs, class templates, functions and function templates of ``decls``
    (structs and class templates default to types.Type + StructModel; override per name with
    ``parent_types`` / ``data_models``). ``options`` say how templates are instantiated (arch,
    include directories, defines)."""
    options = options or InstantiationOptions()
    excluded = tuple(exclude)
    kept = replace(
        decls,
        enums=[e for e in decls.enums if e.name not in excluded],
        alias_templates=[a for a in decls.alias_templates if a.name not in excluded],
    )
    source = _source_of(decls)
    config = StaticConfig(
        config_path="<bind_header>",
        entry_point=source,
        file_list=(source,),
        gpu_arch=(options.arch or "sm_90",),
        types=dict(parent_types or {}),
        data_models=dict(data_models or {}),
        exclude_functions=excluded,
        exclude_structs=excluded,
        function_argument_intents=dict(arg_intents or {}),
        predefined_macros=tuple(options.defines),
        clang_include_paths=tuple(options.include_dirs),
    )
    merged = merge_declarations([(config.gpu_arch[0], kept)], source)
    plan = plan_module(merged, config, in_process_type_table())
    for decision in plan.decisions:
        if decision.outcome in (SKIPPED, HOST_ONLY):
            warn_skipped(decision.kind, decision.what, decision.reason, decision.where)
    rows = plan.rows(RowWriter())
    rows = rows._replace(types=tuple(ref.description for ref in rows.types))
    name = f"bindings of {os.path.basename(source) or 'declarations'}"
    applied = apply_rows(name, rows, shim_writer, arch=options.arch, register_now=True)
    _register_types(plan, applied)
    return _bound_header(shim_writer, plan, applied.names)


def _source_of(decls: Declarations) -> str:
    """The header the declarations come from (where the first one is declared), for messages."""
    for kind in (decls.structs, decls.functions, decls.enums, decls.class_templates):
        for decl in kind:
            where = getattr(decl, "file", "") or getattr(getattr(decl, "record", None), "file", "")
            if where:
                return where
    return ""


def _register_types(plan: Any, applied: Any) -> None:
    """The process's type table learns the structs and enums bound (later bindings use them)."""
    for (row, _body), numba_type in zip(plan.structs, applied.struct_types, strict=True):
        register_cxx_type(row.qual_name, numba_type)
    storages = resolve_types(plan.enum_storage, (), ())
    for row, py_enum, storage in zip(plan.enums, applied.enums, storages, strict=True):
        register_cxx_enum(row.qual_name, enum_member_type(py_enum), storage)


def _bound_header(shim_writer: ShimLibrary, plan: Any, names: dict[str, Any]) -> BoundHeader:
    # The names a module exports (records nested in structs and specializations are bound
    # under their C++ spelling for layouts, not exported), and its _type_<Struct> names.
    public = {*plan.public_names(), *(alias for alias, _target in plan.aliases)}
    names = {name: value for name, value in names.items() if name in public}
    constants = {row.python_name: _constant(row) for row in plan.constants}
    names.update(constants)
    for export, struct in type_exports(plan):
        names[export] = names[struct]._numba_type_
    bound = BoundHeader(shim_writer, names=names, constants=constants)
    bound.structs = {name: names[name] for name in plan.struct_names() if name in names}
    bound.enums = {row.python_name: names[row.python_name] for row in plan.enums}
    for row in plan.functions:
        if row.operator:
            key = getattr(operator, row.operator)
            if key not in bound.operators:
                bound.operators.append(key)
        else:
            bound.functions[row.python_name] = names[row.python_name]
    for row in plan.function_templates:
        if row.python_name:
            bound.function_templates[row.python_name] = names[row.python_name]
        else:  # an operator template binds to the Python operator
            key = getattr(operator, row.operator)
            if key not in bound.operators:
                bound.operators.append(key)
    bound.class_templates = {
        row.python_name: names[row.python_name] for row in plan.class_templates
    }
    bound.alias_templates = {
        row.python_name: names[row.python_name] for row in plan.alias_templates
    }
    bound.kernels = {row.python_name: KernelDeclaration(row) for row in plan.kernels}
    return bound


def _constant(row: Any) -> Any:
    """A macro constant's value as a module has it: a NumPy scalar of its C++ type."""
    import numpy

    return getattr(numpy, row.numpy_type)(row.value)


def bind_header(
    header: str | os.PathLike[str],
    arch: str = "sm_90",
    retain: Iterable[str | os.PathLike[str]] | None = None,
    parent_types: Mapping[str, type[types.Type]] | None = None,
    data_models: Mapping[str, type] | None = None,
    arg_intents: Mapping[str, IntentSpec] | None = None,
    exclude: Iterable[str] = (),
    include_dirs: Iterable[str] = (),
    defines: Iterable[str] = (),
) -> BoundHeader:
    """Parse ``header`` (retaining it and ``retain``) and bind everything it declares.

    ``include_dirs`` and ``defines`` apply to the parse and to the shims alike, as in a
    generated module: the shims see the header exactly as the parser did.
    """
    from ast_canopy import parse_declarations_from_source

    path = os.path.realpath(header)
    files = [path] + [os.path.realpath(p) for p in retain or ()]
    include_dirs, defines = tuple(include_dirs), tuple(defines)
    decls = parse_declarations_from_source(
        path, files, arch, additional_includes=list(include_dirs), defines=list(defines)
    )
    shim_writer = MemoryShimWriter(shim_preamble(path, defines), include_dirs=include_dirs)
    options = InstantiationOptions(arch, include_dirs, defines)
    return bind_declarations(
        shim_writer, decls, parent_types, data_models, arg_intents, exclude, options
    )

"""Bind everything a header declares in one call: ``bind_header``.

The order matters: enums and structs first (functions and methods refer to them), then class
templates (with the header's explicit specializations, which functions may take), then free
functions and operators, then function templates (tried after plain overloads of the same name).
Each declaration that cannot be bound is skipped with one warning.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from numba.cuda import types

from ast_canopy.model import Declarations
from numbast.core.shim_text import shim_preamble
from numbast.dynamic.class_templates import bind_cxx_alias_template, bind_cxx_class_template
from numbast.dynamic.enums import bind_cxx_enum
from numbast.dynamic.function_templates import bind_cxx_function_template
from numbast.dynamic.functions import bind_cxx_function
from numbast.dynamic.shim_writer import MemoryShimWriter
from numbast.dynamic.structs import bind_cxx_struct
from numbast.dynamic.template_context import InstantiationOptions, context_for
from numbast.planning.intents import IntentSpec
from numbast.runtime.apply import enum_member_type
from numbast.runtime.shim_library import ShimLibrary


@dataclass
class BoundHeader:
    """What binding one header produced, by Python name."""

    shim_writer: ShimLibrary
    structs: dict[str, type] = field(default_factory=dict)
    enums: dict[str, type] = field(default_factory=dict)
    functions: dict[str, Any] = field(default_factory=dict)
    operators: list[Any] = field(default_factory=list)
    function_templates: dict[str, Any] = field(default_factory=dict)
    class_templates: dict[str, Any] = field(default_factory=dict)
    alias_templates: dict[str, Any] = field(default_factory=dict)

    def __getattr__(self, name: str) -> Any:
        tables = (self.structs, self.enums, self.functions, self.function_templates)
        for table in (*tables, self.class_templates, self.alias_templates):
            if name in table:
                return table[name]
        # Unscoped enumerators are in the enclosing scope too, as in C++.
        for py_enum in self.enums.values():
            if not getattr(py_enum, "_cxx_scoped_", True) and name in py_enum.__members__:
                return py_enum[name]
        raise AttributeError(f"the bound header has no {name!r}")

    def links(self) -> list:
        return self.shim_writer.links()


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
    ``parent_types`` / ``data_models``). ``options`` say how to parse the header again when a
    template is instantiated (arch, include directories, defines)."""
    from numba.cuda.datamodel.models import StructModel

    excluded = set(exclude)
    bound = BoundHeader(shim_writer)
    context_for(shim_writer, options)  # the templates' context: first, with these options

    def parent_and_model(name: str) -> tuple[type[types.Type], type]:
        return (parent_types or {}).get(name, types.Type), (data_models or {}).get(
            name, StructModel
        )

    for enum_decl in decls.enums:
        if enum_decl.name not in excluded:
            result = bind_cxx_enum(enum_decl)
            if result is not None:
                bound.enums[enum_decl.name] = result
                shim_writer.bound_types.append(enum_member_type(result))
    for struct_decl in decls.structs:
        if struct_decl.name in excluded:
            continue
        parent, model = parent_and_model(struct_decl.name)
        stub = bind_cxx_struct(shim_writer, struct_decl, parent, model, arg_intent=arg_intents)
        if stub is not None:
            bound.structs[struct_decl.name] = stub
    for templ in decls.class_templates:
        if templ.name in excluded:
            continue
        parent, model = parent_and_model(templ.name)
        stub = bind_cxx_class_template(
            templ,
            shim_writer,
            parent_type=parent,
            data_model=model,
            specializations=decls.class_template_specializations,
            options=options,
            partial_specializations=decls.class_template_partial_specializations,
            arg_intent=arg_intents,
        )
        if stub is not None:
            bound.class_templates[templ.name] = stub
    for alias in decls.alias_templates:
        if alias.name not in excluded:
            stub = bind_cxx_alias_template(shim_writer, alias, options)
            if stub is not None:
                bound.alias_templates[alias.name] = stub
    functions = [f for f in decls.functions if f.name not in excluded]
    for func in functions:
        result = bind_cxx_function(shim_writer, func, arg_intent=arg_intents)
        if result is None:
            continue
        if func.is_operator:
            if result not in bound.operators:
                bound.operators.append(result)
        else:
            bound.functions[func.name] = result
    for func_templ in decls.function_templates:
        if func_templ.name in excluded:
            continue
        result = bind_cxx_function_template(shim_writer, func_templ, options,
                                            arg_intent=arg_intents)  # fmt: skip
        if result is None:
            continue
        if func_templ.function.is_operator:
            if result not in bound.operators:
                bound.operators.append(result)
        else:
            bound.function_templates[func_templ.name] = result
    return bound


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

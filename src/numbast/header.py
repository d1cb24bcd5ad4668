"""Bind everything a header declares in one call: ``bind_header``.

The order matters: enums and structs first (functions and methods refer to them), then free
functions and operators. Each declaration that cannot be bound is skipped with one warning.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from numba.cuda import types

from ast_canopy.model import Declarations
from numbast.enums import bind_cxx_enum
from numbast.functions import bind_cxx_function
from numbast.intents import IntentSpec
from numbast.shim_writer import MemoryShimWriter, ShimWriterBase
from numbast.structs import bind_cxx_struct


@dataclass
class BoundHeader:
    """What binding one header produced, by Python name."""

    shim_writer: ShimWriterBase
    structs: dict[str, type] = field(default_factory=dict)
    enums: dict[str, type] = field(default_factory=dict)
    functions: dict[str, Any] = field(default_factory=dict)
    operators: list[Any] = field(default_factory=list)

    def __getattr__(self, name: str) -> Any:
        for table in (self.structs, self.enums, self.functions):
            if name in table:
                return table[name]
        raise AttributeError(f"the bound header has no {name!r}")

    def links(self) -> list:
        return self.shim_writer.links()


def bind_declarations(
    shim_writer: ShimWriterBase,
    decls: Declarations,
    parent_types: Mapping[str, type[types.Type]] | None = None,
    data_models: Mapping[str, type] | None = None,
    arg_intents: Mapping[str, IntentSpec] | None = None,
    exclude: Iterable[str] = (),
) -> BoundHeader:
    """Bind enums, structs and functions of ``decls`` (structs default to types.Type +
    StructModel; override per struct name with ``parent_types`` / ``data_models``)."""
    from numba.cuda.datamodel.models import StructModel

    excluded = set(exclude)
    bound = BoundHeader(shim_writer)
    for enum_decl in decls.enums:
        if enum_decl.name not in excluded:
            result = bind_cxx_enum(enum_decl)
            if result is not None:
                bound.enums[enum_decl.name] = result
    for struct_decl in decls.structs:
        if struct_decl.name in excluded:
            continue
        parent = (parent_types or {}).get(struct_decl.name, types.Type)
        model = (data_models or {}).get(struct_decl.name, StructModel)
        stub = bind_cxx_struct(shim_writer, struct_decl, parent, model)
        if stub is not None:
            bound.structs[struct_decl.name] = stub
    for func in decls.functions:
        if func.name in excluded:
            continue
        result = bind_cxx_function(
            shim_writer, func, arg_intents=(arg_intents or {}).get(func.name)
        )
        if result is None:
            continue
        if func.is_operator:
            if result not in bound.operators:
                bound.operators.append(result)
        else:
            bound.functions[func.name] = result
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
    """Parse ``header`` (retaining it and ``retain``) and bind everything it declares."""
    from ast_canopy import parse_declarations_from_source

    path = os.path.realpath(header)
    files = [path] + [os.path.realpath(p) for p in retain or ()]
    decls = parse_declarations_from_source(
        path, files, arch, additional_includes=list(include_dirs), defines=list(defines)
    )
    shim_writer = MemoryShimWriter(f'#include "{path}"')
    return bind_declarations(shim_writer, decls, parent_types, data_models, arg_intents, exclude)

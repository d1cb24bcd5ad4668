"""Bind C++ structs: ``bind_cxx_struct`` / ``bind_cxx_structs``.

A bound struct gets a Numba type (derived from the caller's parent type) with a data model of
the C++ size and layout, and a Python stub whose call inside a kernel runs a C++ constructor.
Converting constructors become implicit conversions, conversion operators become casts
(``types.float64(x)``, ``float(x)``, ``int(x)``), public fields become attributes, methods
become bound methods, and member operators bind to Python operators like free ones.

The struct is planned into rows and applied at once through the runtime's one apply path
(``numbast.runtime.apply``), as a generated module applies its rows when imported.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from numba.cuda import types
from numba.cuda.datamodel.models import StructModel

from ast_canopy.model import Struct
from numbast.dynamic.numba_types import NUMBA_TYPE_TABLE, register_cxx_type
from numbast.planning.declarations import location_of, plan_struct, plan_struct_body
from numbast.planning.diagnostics import BindingError, warn_skipped
from numbast.runtime.apply import apply_struct, make_struct_type_of
from numbast.runtime.row_writer import RowWriter
from numbast.runtime.shim_library import ShimLibrary


def bind_cxx_struct(
    shim_writer: ShimLibrary,
    struct_decl: Struct,
    parent_type: type[types.Type] = types.Type,
    data_model: type = StructModel,
    aliases: Iterable[str] = (),
    python_name: str | None = None,
) -> type | None:
    """Bind ``struct_decl``; returns its Python stub (callable in kernels as the constructor).

    ``parent_type`` is the Numba type class the new type derives from (``types.Number`` for
    number-like types, so ``types.float64(x)`` works); ``data_model`` is ``StructModel`` (fields
    as members, C++ layout) or ``PrimitiveModel`` (an opaque bit pattern of the C++ size).
    """
    decl = struct_decl
    try:
        row = plan_struct(decl, python_name or decl.name, parent_type, data_model)
        numba_type = make_struct_type_of(row)
    except (BindingError, TypeError) as exc:
        warn_skipped("struct", decl.qual_name, str(exc), location_of(decl))
        return None
    # Registered before the members are planned: they take and return the struct itself.
    register_cxx_type(decl.qual_name, numba_type)
    for alias in aliases:
        register_cxx_type(alias, numba_type)
    body = plan_struct_body(decl, numba_type, NUMBA_TYPE_TABLE, warn_skipped)
    writer = RowWriter()
    indexed = writer.struct_body(body)
    return apply_struct(row, numba_type, indexed, writer.types, writer.shims, shim_writer)


def bind_cxx_structs(
    shim_writer: ShimLibrary,
    struct_decls: Iterable[Struct],
    parent_types: Mapping[str, type[types.Type]] | None = None,
    data_models: Mapping[str, type] | None = None,
    exclude: Iterable[str] = (),
) -> dict[str, type]:
    """Bind several structs; per-struct parent types and data models are looked up by name."""
    excluded = set(exclude)
    bound: dict[str, type] = {}
    for decl in struct_decls:
        if decl.name in excluded:
            continue
        parent = (parent_types or {}).get(decl.name, types.Type)
        model = (data_models or {}).get(decl.name, StructModel)
        stub = bind_cxx_struct(shim_writer, decl, parent, model)
        if stub is not None:
            bound[decl.name] = stub
    return bound


__all__ = ["bind_cxx_struct", "bind_cxx_structs"]

"""Bind C++ structs: ``bind_cxx_struct`` / ``bind_cxx_structs``, with NVIDIA Numbast's signatures.

A bound struct gets a Numba type (derived from the caller's parent type) with a data model of
the C++ size and layout, and a Python stub whose call inside a kernel runs a C++ constructor.
Converting constructors become implicit conversions, conversion operators become casts
(``types.float64(x)``, ``float(x)``, ``int(x)``), public fields become attributes, methods
become bound methods, and member operators bind to Python operators like free ones. Records
nested in the struct (``struct Outer { struct Inner {...}; Inner in; }``) are bound first, so
fields of their types are laid out as members.

The struct is planned into rows and applied at once through the runtime's one apply path
(``numbast.runtime.apply``), as a generated module applies its rows when imported.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from typing import Any

from numba.cuda import types
from numba.cuda.datamodel.models import StructModel

from ast_canopy.model import Struct
from numbast.core.row_writer import RowWriter
from numbast.dynamic.numba_types import NUMBA_TYPE_TABLE, register_cxx_type
from numbast.dynamic.template_context import context_for
from numbast.planning.declarations import plan_struct, plan_struct_body
from numbast.planning.descriptions import location_of
from numbast.planning.diagnostics import BindingError, bind_each, warn_skipped
from numbast.planning.intents import MethodIntents, method_intent_spec
from numbast.runtime.apply import apply_struct, make_struct_type_of
from numbast.runtime.shim_library import ShimLibrary

# NVIDIA's aliases: {struct name: [alias, ...]}; ours also takes the aliases of this struct.
Aliases = Mapping[str, Iterable[str]] | Iterable[str]


def bind_cxx_struct(
    shim_writer: ShimLibrary,
    struct_decl: Struct,
    parent_type: type[types.Type] = types.Type,
    data_model: type = StructModel,
    aliases: Aliases = (),
    *,
    arg_intent: MethodIntents | None = None,
    name: str | None = None,
    python_name: str | None = None,
) -> type | None:
    """Bind ``struct_decl``; returns its Python stub (callable in kernels as the constructor,
    its Numba type in ``_nbtype``), or None when it is skipped (with one warning).

    ``parent_type`` is the Numba type class the new type derives from (``types.Number`` for
    number-like types, so ``types.float64(x)`` works); ``data_model`` is ``StructModel`` (fields
    as members, C++ layout) or ``PrimitiveModel`` (an opaque bit pattern of the C++ size).
    ``aliases`` are other C++ names of the type (typedefs): NVIDIA's ``{name: [alias, ...]}``,
    looked up by the struct's name, qualified name and ``name``, or a list of this struct's.
    ``arg_intent`` gives methods' argument intents (``{"Struct.method": {"param": "out_ptr"}}``
    or ``{"Struct": {"method": {...}}}``). ``name`` replaces the C++ spelling (and Python name),
    e.g. ``"ns::Vec<float, 3>"`` for a class template specialization; ``python_name`` only the
    Python name (ours).
    """
    record: Struct = getattr(struct_decl, "record", struct_decl)  # a specialization's record
    if name is not None:
        record = dataclasses.replace(record, qual_name=name)
    alias_names = _aliases_of(aliases, {struct_decl.name, struct_decl.qual_name, name})
    _bind_nested_records(shim_writer, record, aliases, arg_intent)
    stub_name = python_name or name or struct_decl.name
    try:
        row = plan_struct(record, stub_name, parent_type, data_model)
        numba_type = make_struct_type_of(row)
    except (BindingError, TypeError) as exc:
        warn_skipped("struct", record.qual_name, str(exc), location_of(record))
        return None
    # Registered before the members are planned: they take and return the struct itself.
    register_cxx_type(record.qual_name, numba_type)
    for alias in alias_names:
        register_cxx_type(alias, numba_type)
    names = {struct_decl.name, struct_decl.qual_name, record.qual_name}
    body = plan_struct_body(
        record,
        numba_type,
        NUMBA_TYPE_TABLE,
        warn_skipped,
        method_intents=lambda method: method_intent_spec(arg_intent, names, method.name),
    )
    writer = RowWriter()
    indexed = writer.struct_body(body)
    # Member templates instantiate in the writer's template context (its arch and options).
    templates = context_for(shim_writer, None) if body.member_templates else None
    return apply_struct(row, numba_type, indexed, writer.types, writer.shims, shim_writer,
                        templates=templates)  # fmt: skip


def bind_cxx_structs(
    shim_writer: ShimLibrary,
    structs: Iterable[Struct],
    parent_types: Mapping[str, type[types.Type]] | None = None,
    data_models: Mapping[str, type] | None = None,
    aliases: Mapping[str, Iterable[str]] | None = None,
    *,
    arg_intent: MethodIntents | None = None,
    exclude: Iterable[str] = (),
) -> list[type]:
    """Bind several structs; returns their stubs in order (skipped ones left out, warned).

    Parent types and data models are looked up by struct name (default ``types.Type`` and
    ``StructModel``); ``aliases`` is ``{struct name: [alias, ...]}``; ``exclude`` (ours) names
    structs not to bind.
    """
    if aliases is not None and not isinstance(aliases, Mapping):
        raise TypeError(
            "bind_cxx_structs(shim_writer, structs, parent_types, data_models, aliases): "
            f"aliases must be a mapping {{struct name: [alias, ...]}}, not "
            f"{type(aliases).__name__}; to leave structs out pass exclude=... by keyword"
        )

    def bind(decl: Struct) -> type | None:
        return bind_cxx_struct(
            shim_writer,
            decl,
            _by_name(parent_types, decl, aliases, types.Type),
            _by_name(data_models, decl, aliases, StructModel),
            aliases or {},
            arg_intent=arg_intent,
        )

    return bind_each(structs, exclude, bind)


def _by_name(table: Mapping[str, Any] | None, decl: Struct, aliases, default: Any) -> Any:
    """``table``'s entry for the struct, by name, qualified name, or one of its aliases."""
    table = table or {}
    for key in (decl.name, decl.qual_name, *_aliases_of(aliases or {}, {decl.name})):
        if key in table:
            return table[key]
    return default


def _aliases_of(aliases: Aliases, names: set[str | None]) -> list[str]:
    if isinstance(aliases, str):
        raise TypeError(f"aliases must be a mapping or a list of names, not the string {aliases!r}")
    if isinstance(aliases, Mapping):
        found: list[str] = []
        for key in names:
            if key is None:
                continue
            value = aliases.get(key, ())
            found += [value] if isinstance(value, str) else list(value)
        return found
    return list(aliases)


def _bind_nested_records(
    shim_writer: ShimLibrary, record: Struct, aliases: Aliases, arg_intent
) -> None:
    """Bind the records declared inside ``record`` that are not bound yet (types.Type with a
    StructModel, as NVIDIA does), so that fields of their types get a layout."""
    for nested in record.nested_records:
        if NUMBA_TYPE_TABLE.lookup(nested.qual_name) is None:
            bind_cxx_struct(shim_writer, nested, aliases=aliases, arg_intent=arg_intent)


__all__ = ["bind_cxx_struct", "bind_cxx_structs", "method_intent_spec"]

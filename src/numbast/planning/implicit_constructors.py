"""Constructors C++ gives a struct that declares none: ``T()`` and, for aggregates, ``T{fields}``.

Plain C structs (``curandStateXORWOW``, ``__half_raw``) declare no constructor, yet C++ code makes
them with ``T state;`` / ``T{}`` or ``T{bits}``. The parser lists declared members only, so these
are planned here: ``MyStruct()`` value-initializes (zeroes a trivial struct), and an aggregate
(public fields, no bases, no arrays) also gets ``MyStruct(field0, field1, ...)`` in field
order. Both are ordinary constructor rows with a shim of their own.
"""

from __future__ import annotations

import functools

from ast_canopy.model import Access, Struct, Type, TypeKind
from numbast.core import rows
from numbast.core.rows import MemberRow
from numbast.core.shim_text import ShimParam, call_arguments, shim_name_for
from numbast.planning.calls import plan_call
from numbast.planning.intents import ArgIntent
from numbast.planning.type_rules import TypeTable, UnsupportedTypeError


def declares_constructors(decl: Struct) -> bool:
    members = (*decl.methods, *decl.non_public_methods)
    return any(method.kind.is_constructor for method in members)


def implicit_constructors(
    decl: Struct, value_type: Type, type_table: TypeTable
) -> tuple[MemberRow, ...]:
    """The constructor rows C++ declares implicitly for ``decl`` (none when it declares a
    constructor itself, or when a field makes them ill-formed or unmappable).
    ``value_type`` is the struct as a Type (what the constructors produce)."""
    if declares_constructors(decl) or decl.is_abstract or not _default_constructible(decl):
        return ()
    default = plan_call(
        shim_name_for("", f"{decl.qual_name}()", "ctor"),
        [],
        value_type,
        lambda _params, _returns: f"new (nbi_ret) {decl.qual_name}();",
        type_table=type_table,
    )
    made = [MemberRow(rows.CONSTRUCTOR, "", default, False)]
    if _is_aggregate(decl):
        params = [(field.type_, ArgIntent.IN) for field in decl.fields]
        spelling = ", ".join(field.type_.canonical_name for field in decl.fields)
        try:
            aggregate = plan_call(
                shim_name_for("", f"{decl.qual_name}{{{spelling}}}", "ctor"),
                params,
                value_type,
                functools.partial(_aggregate_body, decl.qual_name),
                type_table=type_table,
            )
        except UnsupportedTypeError:
            return tuple(made)  # a field type without a Numba type: T() only
        made.append(MemberRow(rows.CONSTRUCTOR, "", aggregate, False))
    return tuple(made)


def _aggregate_body(qual_name: str, params: list[ShimParam], _returns: bool) -> str:
    return f"new (nbi_ret) {qual_name}{{{call_arguments(params)}}};"


def _default_constructible(decl: Struct) -> bool:
    """No field that C++ cannot default-initialize implicitly (references, consts)."""
    return not any(_is_reference_or_const(field.type_) for field in decl.fields)


def _is_reference_or_const(field_type: Type) -> bool:
    return field_type.is_reference or field_type.is_const


def _is_aggregate(decl: Struct) -> bool:
    """Brace-initializable from one value per field, in order."""
    return (
        decl.tag != "union"
        and not decl.bases
        and bool(decl.fields)
        and all(
            field.access is Access.PUBLIC
            and not field.is_bitfield
            and field.type_.kind is not TypeKind.ARRAY
            for field in decl.fields
        )
    )

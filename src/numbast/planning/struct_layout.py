"""Whether a C++ struct's fields can be Numba StructModel members with the same layout."""

from __future__ import annotations

from typing import Any

from ast_canopy.model import Struct
from numbast.planning.type_rules import TypeTable, UnsupportedTypeError


def natural_layout_mismatch(decl: Struct) -> str | None:
    """None when laying the fields out naturally reproduces the C++ offsets and size.

    Otherwise the reason it does not (alignas padding, bit-fields, bases...); such a struct gets
    an opaque model of the C++ size instead, and its fields are not readable from Numba.
    """
    if decl.bases:
        return "it has base classes"
    offset = 0
    max_align = decl.alignof_ or 1
    for field in decl.fields:
        if field.is_bitfield:
            return f"field {field.name} is a bit-field"
        size, align = field.type_.sizeof_, field.type_.alignof_
        if size is None or align is None:
            return f"field {field.name} has no known size"
        offset = (offset + align - 1) // align * align
        if field.offset is not None and field.offset != offset:
            return f"field {field.name} is at offset {field.offset}, not {offset}"
        offset += size
    total = (offset + max_align - 1) // max_align * max_align
    if decl.sizeof_ is not None and total != decl.sizeof_:
        return f"fields add up to {total} bytes, the C++ size is {decl.sizeof_}"
    return None


def struct_members(
    decl: Struct, type_table: TypeTable
) -> tuple[list[tuple[str, Any]] | None, str | None]:
    """(members, None) when the fields map to a faithful StructModel, else (None, reason).

    ``type_table`` maps the field types (Numba types in dynamic binding, descriptions in the
    static generator).
    """
    if not decl.fields:
        return None, "it has no fields"
    reason = natural_layout_mismatch(decl)
    if reason is not None:
        return None, reason
    try:
        return [(f.name, type_table.storage_type(f.type_)) for f in decl.fields], None
    except UnsupportedTypeError as exc:
        return None, str(exc)

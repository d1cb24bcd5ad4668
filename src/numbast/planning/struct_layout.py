"""Whether a C++ struct's fields can be Numba StructModel members with the same layout."""

from __future__ import annotations

from typing import Any

from ast_canopy.model import Struct, Type, TypeKind
from numbast.core.struct_padding import FieldSlot, padded_members, round_up
from numbast.planning.type_rules import (
    TypeTable,
    UnsupportedTypeError,
    value_type_name,
    vector_type_names,
)

_VECTOR_TYPES = vector_type_names()
_HALF_TYPES = ("__half", "__nv_bfloat16")  # Numba's float16 and bfloat16: 2-byte scalars


def field_slots(decl: Struct) -> tuple[list[FieldSlot] | None, str]:
    """The fields of ``decl`` as slots (offsets from clang, else laid out as C++ does), or
    (None, why not: bases, bit-fields, fields of unknown size)."""
    if decl.bases:
        return None, "it has base classes"
    slots = []
    offset = 0
    for field in decl.fields:
        if field.is_bitfield:
            return None, f"field {field.name} is a bit-field"
        size, align = field.type_.sizeof_, field.type_.alignof_
        if size is None or align is None:
            return None, f"field {field.name} has no known size"
        offset = field.offset if field.offset is not None else round_up(offset, align)
        slots.append(FieldSlot(field.name, offset, size, storage_alignment(field.type_)))
        offset += size
    return slots, ""


def storage_alignment(cxx_type: Type) -> int:
    """The alignment of a field's Numba storage in an LLVM struct, or 1 when it is not known."""
    base = cxx_type.referenced()
    if base.kind in (TypeKind.BUILTIN, TypeKind.ENUM, TypeKind.POINTER):
        return base.sizeof_ or 1
    if base.kind is TypeKind.ARRAY:
        return storage_alignment(base.pointee) if base.pointee is not None else 1
    if base.kind is TypeKind.RECORD:
        name = value_type_name(base)
        vector = _VECTOR_TYPES.get(name)
        if vector is not None and base.sizeof_:
            count = int(vector.rsplit("x", 1)[1])
            return base.sizeof_ // count
        if name in _HALF_TYPES:
            return 2
    return 1


def struct_members(
    decl: Struct, type_table: TypeTable
) -> tuple[list[tuple[str, Any]] | None, str | None]:
    """(members, None) when the fields map to a faithful StructModel, else (None, reason).

    ``type_table`` maps the field types (Numba types in dynamic binding, descriptions in the
    static generator). Padding members (``_numbast_pad<offset>``, tuples of bytes) keep every
    field at its C++ offset and the struct at its C++ size.
    """
    if not decl.fields:
        return None, "it has no fields"
    slots, reason = field_slots(decl)
    if slots is None:
        return None, reason
    if decl.sizeof_ is None:
        return None, "its size is not known"
    layout, reason = padded_members(slots, decl.sizeof_)
    if layout is None:
        return None, reason
    by_name = {f.name: f for f in decl.fields}
    offsets = {slot.name: slot.offset for slot in slots}
    members: list[tuple[str, Any]] = []
    position = 0
    try:
        for item in layout:
            if isinstance(item, int):
                members.append((f"_numbast_pad{position}", padding_type(type_table, item)))
                position += item
            else:
                field = by_name[item]
                members.append((item, type_table.storage_type(field.type_)))
                position = offsets[item] + (field.type_.sizeof_ or 0)
    except UnsupportedTypeError as exc:
        return None, str(exc)
    return members, None


def padding_type(type_table: TypeTable, size: int) -> Any:
    """``size`` bytes of padding, in the table's types: a tuple of unsigned chars."""
    byte = type_table.lookup("unsigned char")
    if byte is None:
        raise UnsupportedTypeError("the type table has no unsigned char for padding")
    return type_table.vocabulary.unituple(byte, size)

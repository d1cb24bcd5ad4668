"""Padding that gives an LLVM struct (a Numba StructModel) a C++ struct's layout.

Plain data (no Numba): planning uses it for declared structs, the runtime for class template
instances, whose layouts the compiler reports.
"""

from __future__ import annotations

from typing import NamedTuple


class FieldSlot(NamedTuple):
    """A field as the layout check sees it: its C++ offset and size, and the alignment of its
    Numba storage inside an LLVM struct (1 where that is not known: then the field is placed by
    explicit padding, never by LLVM's rounding)."""

    name: str
    offset: int
    size: int
    storage_align: int


def padded_members(slots: list[FieldSlot], sizeof: int) -> tuple[list[str | int] | None, str]:
    """The members of an LLVM struct with the C++ layout: field names in order, with byte counts
    for the padding LLVM would not insert itself (C++ pads ``float a; float2 b;`` to put ``b`` at
    8, LLVM's ``{float, {float, float}}`` has it at 4, so a 4-byte pad goes between them); or
    (None, why not) when no padding can do it (overlapping fields, a field that LLVM would place
    after its C++ offset)."""
    members: list[str | int] = []
    offset = 0
    widest = 1
    for slot in slots:
        if slot.offset < offset or slot.offset % slot.storage_align:
            return None, (
                f"field {slot.name} is at offset {slot.offset} in C++, where a Numba struct "
                "cannot place it"
            )
        if round_up(offset, slot.storage_align) != slot.offset:
            members.append(slot.offset - offset)
        members.append(slot.name)
        offset = slot.offset + slot.size
        widest = max(widest, slot.storage_align)
    if offset > sizeof or sizeof % widest:
        return None, f"a Numba struct of its fields cannot have its C++ size {sizeof}"
    if round_up(offset, widest) != sizeof:
        members.append(sizeof - offset)
    return members, ""


def round_up(offset: int, align: int) -> int:
    return (offset + align - 1) // align * align

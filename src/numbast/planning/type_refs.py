"""Numba types described as data, for planning without Numba.

The static generator plans with the same code as dynamic binding, but with a
:class:`~numbast.planning.type_rules.TypeTable` of :class:`TypeRef` instead of Numba type
objects, so that rendering never imports Numba. A TypeRef holds a type description (the
``TypeRow`` layout of ``numbast.core.rows``), which the runtime turns into the Numba type
when a generated module is imported (``numbast.runtime.row_types.resolve_types``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

from numbast.planning.type_rules import BUILTIN_NUMBA_NAMES, TypeTable, vector_type_names

STATIC_MISSING_HINT = (
    "bind the header that declares it too (add it to File List, and do not Exclude it), or "
    "leave this declaration out with Exclude"
)


@dataclass(frozen=True)
class TypeRef:
    """One Numba type as a description, e.g. ``("pointer", ("builtin", "float32"))``."""

    description: tuple
    label: str = field(default="", compare=False)  # the C++ name, for messages and comments

    def __str__(self) -> str:
        return self.label or repr(self.description)


class DescribedVocabulary:
    """Builds pointer, void pointer and tuple types as descriptions."""

    voidptr = TypeRef(("voidptr",))

    @staticmethod
    def pointer(pointee: TypeRef) -> TypeRef:
        return TypeRef(("pointer", pointee.description), f"{pointee.label} *")

    @staticmethod
    def unituple(element: TypeRef, count: int) -> TypeRef:
        # Nested tuples are built innermost first: the new extent goes before existing ones.
        base, bracket, extents = element.label.partition("[")
        return TypeRef(
            ("unituple", element.description, count), f"{base}[{count}]{bracket}{extents}"
        )


def builtin_ref(numba_name: str, cxx_name: str = "") -> TypeRef:
    return TypeRef(("builtin", numba_name), cxx_name)


def vector_ref(numba_name: str, cxx_name: str = "") -> TypeRef:
    return TypeRef(("vector", numba_name), cxx_name)


def struct_ref(index: int, qual_name: str) -> TypeRef:
    return TypeRef(("struct", index), qual_name)


def enum_ref(index: int, qual_name: str) -> TypeRef:
    # As dynamic binding: Numba types enum members by their Python value (int64).
    return TypeRef(("enum", index), qual_name)


class ExternalType(NamedTuple):
    """A C++ type that another bindings module binds (the module exports it in
    ``__numbast_types__``); declarations here use that module's type, resolved when this module
    is imported (``("external", module, python_name)``)."""

    qual_name: str
    module: str  # imported before this module's rows are applied
    python_name: str  # the type's name in that module
    enum_storage: tuple | None = None  # an enum's underlying integer (a description); None: struct


def external_ref(external: ExternalType) -> TypeRef:
    return TypeRef(("external", external.module, external.python_name), external.qual_name)


INTEGER_NAMES = frozenset(f"{sign}int{bits}" for sign in ("", "u") for bits in (8, 16, 32, 64))


def is_integer(ref: TypeRef) -> bool:
    """Whether ``ref`` is a Numba integer type (what ``isinstance(t, types.Integer)`` says of
    the type it stands for, for the types an enum's underlying type can map to)."""
    return ref.description[0] == "builtin" and ref.description[1] in INTEGER_NAMES


def static_type_table() -> TypeTable[TypeRef]:
    """A fresh table with the builtins and the CUDA vector types, as dynamic binding starts."""
    entries = [(cxx, builtin_ref(name, cxx)) for cxx, name in BUILTIN_NUMBA_NAMES.items()]
    entries += [(cxx, vector_ref(name, cxx)) for cxx, name in vector_type_names().items()]
    return TypeTable(DescribedVocabulary(), entries, STATIC_MISSING_HINT)

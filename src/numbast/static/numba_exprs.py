"""Numba types spelled as Python source, for the generated module's type table.

The generator plans with the same code as dynamic binding (``numbast.declaration_plans``), but
with a :class:`~numbast.cxx_types.TypeTable` of :class:`TypeExpr` instead of Numba type objects,
so that rendering never imports Numba. A TypeExpr is the source of an expression that builds the
type when the generated module's type table is evaluated, in a scope that has ``types``
(``numba.cuda.types``), ``vector_types`` (``numba.cuda.vector_types.vector_types``),
``struct_types`` (the module's struct types, in table order) and ``enums`` (its IntEnums).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from numbast.cxx_types import BUILTIN_NUMBA_NAMES, TypeTable, vector_type_names

# The names the type table's expressions may use (the parameters of the generated function
# that evaluates them, so nothing a header or an Additional Import defines can shadow them).
TYPE_SCOPE = ("types", "vector_types", "struct_types", "enums")

STATIC_MISSING_HINT = (
    "bind the header that declares it too (add it to File List, and do not Exclude it), or "
    "leave this declaration out with Exclude"
)


@dataclass(frozen=True)
class TypeExpr:
    """The Python source of one Numba type, e.g. ``types.CPointer(types.float32)``."""

    source: str
    label: str = field(default="", compare=False)  # for comments in the generated module

    def __str__(self) -> str:
        return self.source


class SpelledVocabulary:
    """Builds pointer, void pointer and tuple types as source."""

    voidptr = TypeExpr("types.voidptr")

    @staticmethod
    def pointer(pointee: TypeExpr) -> TypeExpr:
        return TypeExpr(f"types.CPointer({pointee.source})", pointee.label)

    @staticmethod
    def unituple(element: TypeExpr, count: int) -> TypeExpr:
        return TypeExpr(f"types.UniTuple({element.source}, {count})", element.label)


def builtin_expr(numba_name: str) -> TypeExpr:
    return TypeExpr(f"types.{numba_name}")


def vector_expr(numba_name: str) -> TypeExpr:
    return TypeExpr(f"vector_types[{numba_name!r}]")


def struct_type_expr(index: int, qual_name: str) -> TypeExpr:
    return TypeExpr(f"struct_types[{index}]", qual_name)


def enum_type_expr(index: int, qual_name: str) -> TypeExpr:
    # As dynamic binding: Numba types enum members by their Python value (int64).
    return TypeExpr(f"types.IntEnumMember(enums[{index}], types.int64)", qual_name)


INTEGER_EXPRS = frozenset(
    builtin_expr(f"{sign}int{bits}") for sign in ("", "u") for bits in (8, 16, 32, 64)
)


def is_integer(expr: TypeExpr) -> bool:
    """Whether ``expr`` is a Numba integer type (what ``isinstance(t, types.Integer)`` says of
    the type it builds, for the types an enum's underlying type can map to)."""
    return expr in INTEGER_EXPRS


def static_type_table() -> TypeTable[TypeExpr]:
    """A fresh table with the builtins and the CUDA vector types, as dynamic binding starts."""
    entries = [(cxx, builtin_expr(name)) for cxx, name in BUILTIN_NUMBA_NAMES.items()]
    entries += [(cxx, vector_expr(name)) for cxx, name in vector_type_names().items()]
    return TypeTable(SpelledVocabulary(), entries, STATIC_MISSING_HINT)

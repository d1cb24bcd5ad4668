"""C++ types -> Numba types: the process's table, which dynamic binding fills.

Builtins, the CUDA vector types, ``__half`` and ``__nv_bfloat16`` are known from the start;
bound structs and enums are added as they are bound; users add their own with
``register_cxx_type``. Lookups go through the canonical spelling, so typedefs resolve to what
they name. The way back, a Numba type's C++ spelling (``cxx_spelling_of``), is the runtime's
(``numbast.runtime.cxx_types``), which this table tells the names registered here. The mapping
rules are ``numbast.planning.type_rules``'s, shared with the static generator (which describes
the same types as data instead).
"""

from __future__ import annotations

from numba.cuda import types
from numba.cuda.vector_types import vector_types

from ast_canopy.model import Type
from numbast.planning.type_refs import TypeRef, static_type_table
from numbast.planning.type_rules import (
    BUILTIN_NUMBA_NAMES,
    TypeTable,
    UnsupportedTypeError,
    value_type_name,
    vector_type_names,
)
from numbast.runtime.cxx_types import cxx_spelling_of, remember_spelling

# Canonical C++ builtin spellings (as clang prints them for an LP64 target).
_BUILTINS: dict[str, types.Type] = {
    cxx: getattr(types, name) for cxx, name in BUILTIN_NUMBA_NAMES.items()
}


def _vector_type_table() -> dict[str, types.Type]:
    table = {}
    for cxx_name, numba_name in vector_type_names().items():
        numba_vector = vector_types.get(numba_name)
        if numba_vector is not None:
            table[cxx_name] = numba_vector
    return table


class _NumbaVocabulary:
    voidptr = types.voidptr

    @staticmethod
    def pointer(pointee: types.Type) -> types.Type:
        return types.CPointer(pointee)

    @staticmethod
    def unituple(element: types.Type, count: int) -> types.Type:
        return types.UniTuple(element, count)


_INITIAL: dict[str, types.Type] = {**_BUILTINS, **_vector_type_table()}
# C++ name -> Numba type. Starts with builtins and vector types; grows as things are bound.
NUMBA_TYPE_TABLE: TypeTable[types.Type] = TypeTable(_NumbaVocabulary(), _INITIAL.items())


def in_process_type_table() -> TypeTable[TypeRef]:
    """A planning table of described types (as a generated module's) that also knows every type
    bound or registered in this process: ``bind_header`` plans a header as a module is planned,
    and its declarations may use types bound before it."""
    table = static_type_table()
    for name, numba_type, storage in NUMBA_TYPE_TABLE.items():
        if _INITIAL.get(name) is numba_type:
            continue  # a builtin or vector type: the described table has it
        ref = TypeRef(("object", numba_type), name)
        if storage is None:
            table.register(name, ref)
        else:
            table.register_enum(name, ref, TypeRef(("object", storage), str(storage)))
    return table


def register_cxx_type(cxx_name: str, numba_type: types.Type) -> None:
    """Map the C++ type spelled ``cxx_name`` (qualified, canonical) to ``numba_type``.

    A later registration replaces an earlier one, so binding ``__half`` from cuda_fp16.h
    replaces the built-in mapping to ``float16``.
    """
    if not isinstance(numba_type, types.Type):
        raise TypeError(f"register_cxx_type({cxx_name!r}, ...): expected a Numba type instance")
    NUMBA_TYPE_TABLE.register(cxx_name, numba_type)
    remember_spelling(numba_type, cxx_name)


def register_cxx_enum(cxx_name: str, numba_type: types.Type, storage: types.Integer) -> None:
    """Map a C++ enum to ``numba_type`` (the IntEnumMember type Numba infers for its members,
    which is 64-bit) and remember the ``storage`` integer type of its C++ representation."""
    if not isinstance(numba_type, types.Type):
        raise TypeError(f"register_cxx_enum({cxx_name!r}, ...): expected a Numba type instance")
    NUMBA_TYPE_TABLE.register_enum(cxx_name, numba_type, storage)
    remember_spelling(numba_type, cxx_name)


def enum_storage_type(cxx_type: Type) -> types.Integer | None:
    """The C++ storage integer type when ``cxx_type`` is (a reference to) a bound enum."""
    return NUMBA_TYPE_TABLE.enum_storage(cxx_type)


def storage_numba_type(cxx_type: Type) -> types.Type:
    """The Numba type with the C++ layout of ``cxx_type``: as to_numba_type, except that
    enums are their underlying integer (struct members must match the C++ layout)."""
    return NUMBA_TYPE_TABLE.storage_type(cxx_type)


def registered_numba_type(cxx_name: str) -> types.Type | None:
    return NUMBA_TYPE_TABLE.lookup(cxx_name)


def to_numba_type(cxx_type: Type) -> types.Type:
    """The Numba type that holds a value of ``cxx_type`` (references are looked through).

    Raises UnsupportedTypeError naming the type when there is no mapping.
    """
    return NUMBA_TYPE_TABLE.to_type(cxx_type)


__all__ = [
    "NUMBA_TYPE_TABLE",
    "UnsupportedTypeError",
    "cxx_spelling_of",
    "enum_storage_type",
    "register_cxx_enum",
    "register_cxx_type",
    "registered_numba_type",
    "storage_numba_type",
    "to_numba_type",
    "value_type_name",
]

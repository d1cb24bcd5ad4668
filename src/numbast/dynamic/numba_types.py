"""C++ types -> Numba types: the process's table, which dynamic binding fills.

Builtins, the CUDA vector types, ``__half`` and ``__nv_bfloat16`` are known from the start;
bound structs and enums are added as they are bound; users add their own with
``register_cxx_type``. Lookups go through the canonical spelling, so typedefs resolve to what
they name. The mapping rules are ``numbast.planning.type_rules``'s, shared with the static
generator (which describes the same types as data instead).
"""

from __future__ import annotations

import threading

from numba.cuda import types
from numba.cuda.vector_types import vector_types

from ast_canopy.model import Type
from numbast.planning.type_rules import (
    BUILTIN_NUMBA_NAMES,
    TypeTable,
    UnsupportedTypeError,
    normalize_cxx_name,
    value_type_name,
    vector_type_names,
)

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


# C++ name -> Numba type. Starts with builtins and vector types; grows as things are bound.
NUMBA_TYPE_TABLE: TypeTable[types.Type] = TypeTable(
    _NumbaVocabulary(), {**_BUILTINS, **_vector_type_table()}.items()
)


def register_cxx_type(cxx_name: str, numba_type: types.Type) -> None:
    """Map the C++ type spelled ``cxx_name`` (qualified, canonical) to ``numba_type``.

    A later registration replaces an earlier one, so binding ``__half`` from cuda_fp16.h
    replaces the built-in mapping to ``float16``.
    """
    if not isinstance(numba_type, types.Type):
        raise TypeError(f"register_cxx_type({cxx_name!r}, ...): expected a Numba type instance")
    NUMBA_TYPE_TABLE.register(cxx_name, numba_type)
    _remember_spelling(numba_type, cxx_name)


def register_cxx_enum(cxx_name: str, numba_type: types.Type, storage: types.Integer) -> None:
    """Map a C++ enum to ``numba_type`` (the IntEnumMember type Numba infers for its members,
    which is 64-bit) and remember the ``storage`` integer type of its C++ representation."""
    if not isinstance(numba_type, types.Type):
        raise TypeError(f"register_cxx_enum({cxx_name!r}, ...): expected a Numba type instance")
    NUMBA_TYPE_TABLE.register_enum(cxx_name, numba_type, storage)
    _remember_spelling(numba_type, cxx_name)


# Numba type -> the C++ spelling template arguments are written with (the reverse mapping).
# Several C++ names map to one Numba type (char / signed char, long / long long), so builtins get
# a fixed choice; a type registered later keeps the first name it was registered under (a
# struct's qualified name, not an alias). Only read and written under _SPELLINGS_LOCK.
_SPELLINGS_LOCK = threading.Lock()
_NUMBA_TO_CXX: dict[types.Type, str] = {
    **{numba_type: cxx for cxx, numba_type in _vector_type_table().items()},
    types.boolean: "bool",
    types.int8: "signed char",
    types.uint8: "unsigned char",
    types.int16: "short",
    types.uint16: "unsigned short",
    types.int32: "int",
    types.uint32: "unsigned int",
    types.int64: "long long",
    types.uint64: "unsigned long long",
    types.float32: "float",
    types.float64: "double",
    types.float16: "__half",
    types.bfloat16: "__nv_bfloat16",
}


def _remember_spelling(numba_type: types.Type, cxx_name: str) -> None:
    with _SPELLINGS_LOCK:
        _NUMBA_TO_CXX.setdefault(numba_type, normalize_cxx_name(cxx_name))


def cxx_spelling_of(numba_type: types.Type) -> str:
    """The C++ spelling of a Numba type, the reverse of ``to_numba_type``: how template
    arguments deduced from Numba types are written (``::tmax<float>``). Literal types spell as
    their underlying type. Raises UnsupportedTypeError when there is no C++ counterpart."""
    numba_type = types.unliteral(numba_type)
    if numba_type == types.voidptr:
        return "void *"
    if isinstance(numba_type, types.CPointer):
        pointee = cxx_spelling_of(numba_type.dtype)
        return f"{pointee}*" if pointee.endswith("*") else f"{pointee} *"
    with _SPELLINGS_LOCK:
        found = _NUMBA_TO_CXX.get(numba_type)
    if found is None:
        raise UnsupportedTypeError(
            f"Numba type {numba_type} has no C++ spelling: bind the C++ type it stands for "
            "first (bind_cxx_struct / bind_cxx_enum / a class template) or map it with "
            "register_cxx_type"
        )
    return found


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

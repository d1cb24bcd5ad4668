"""C++ types -> Numba types: one table shared by dynamic binding and the static renderer.

Builtins, the CUDA vector types, ``__half`` and ``__nv_bfloat16`` are known from the start;
bound structs and enums are added as they are bound; users add their own with
``register_cxx_type``. Lookups go through the canonical spelling, so typedefs resolve to what
they name.
"""

from __future__ import annotations

import threading

from numba.cuda import types
from numba.cuda.vector_types import vector_types

from ast_canopy.model import Type, TypeKind

_LOCK = threading.Lock()

# Canonical C++ builtin spellings (as clang prints them for an LP64 target).
_BUILTINS: dict[str, types.Type] = {
    "bool": types.boolean,
    "char": types.int8,
    "signed char": types.int8,
    "unsigned char": types.uint8,
    "short": types.int16,
    "unsigned short": types.uint16,
    "int": types.int32,
    "unsigned int": types.uint32,
    "long": types.int64,
    "unsigned long": types.uint64,
    "long long": types.int64,
    "unsigned long long": types.uint64,
    "float": types.float32,
    "double": types.float64,
    "void": types.void,
    "__half": types.float16,
    "__nv_bfloat16": types.bfloat16,
}

# CUDA vector type prefixes -> the element type name numba-cuda uses for its vector types.
_VECTOR_ELEMENTS = {
    "char": "int8",
    "uchar": "uint8",
    "short": "int16",
    "ushort": "uint16",
    "int": "int32",
    "uint": "uint32",
    "long": "int64",
    "ulong": "uint64",
    "longlong": "int64",
    "ulonglong": "uint64",
    "float": "float32",
    "double": "float64",
}


def _vector_type_table() -> dict[str, types.Type]:
    table = {}
    for cxx_prefix, element in _VECTOR_ELEMENTS.items():
        for count in (1, 2, 3, 4):
            numba_vector = vector_types.get(f"{element}x{count}")
            if numba_vector is not None:
                table[f"{cxx_prefix}{count}"] = numba_vector
    return table


# C++ name -> Numba type. Starts with builtins and vector types; grows as things are bound.
_CXX_TO_NUMBA: dict[str, types.Type] = {**_BUILTINS, **_vector_type_table()}


class UnsupportedTypeError(TypeError):
    """A C++ type has no Numba counterpart (yet). The message says which and why."""


def register_cxx_type(cxx_name: str, numba_type: types.Type) -> None:
    """Map the C++ type spelled ``cxx_name`` (qualified, canonical) to ``numba_type``.

    A later registration replaces an earlier one, so binding ``__half`` from cuda_fp16.h
    replaces the built-in mapping to ``float16``.
    """
    if not isinstance(numba_type, types.Type):
        raise TypeError(f"register_cxx_type({cxx_name!r}, ...): expected a Numba type instance")
    with _LOCK:
        _CXX_TO_NUMBA[_normalize(cxx_name)] = numba_type


# C++ enum name -> the integer type that stores it in C++ (its underlying type).
_ENUM_STORAGE: dict[str, types.Type] = {}


def register_cxx_enum(cxx_name: str, numba_type: types.Type, storage: types.Integer) -> None:
    """Map a C++ enum to ``numba_type`` (the IntEnumMember type Numba infers for its members,
    which is 64-bit) and remember the ``storage`` integer type of its C++ representation."""
    register_cxx_type(cxx_name, numba_type)
    with _LOCK:
        _ENUM_STORAGE[_normalize(cxx_name)] = storage


def enum_storage_type(cxx_type: Type) -> types.Integer | None:
    """The C++ storage integer type when ``cxx_type`` is (a reference to) a bound enum."""
    base = cxx_type.referenced()
    if base.kind is not TypeKind.ENUM:
        return None
    return _ENUM_STORAGE.get(value_type_name(base))


def storage_numba_type(cxx_type: Type) -> types.Type:
    """The Numba type with the C++ layout of ``cxx_type``: as to_numba_type, except that
    enums are their underlying integer (struct members must match the C++ layout)."""
    return enum_storage_type(cxx_type) or to_numba_type(cxx_type)


def registered_numba_type(cxx_name: str) -> types.Type | None:
    return _CXX_TO_NUMBA.get(_normalize(cxx_name))


def _normalize(cxx_name: str) -> str:
    name = cxx_name.strip()
    for prefix in ("struct ", "class ", "union ", "enum "):
        if name.startswith(prefix):
            name = name[len(prefix) :]
    return name.removeprefix("::")


def value_type_name(cxx_type: Type) -> str:
    """The canonical spelling of a type with cv-qualifiers and reference removed."""
    base = cxx_type.referenced()
    name = base.canonical_name
    if base.kind is TypeKind.POINTER:
        # "const int *const" -> drop only the top-level const of the pointer itself.
        return name.removesuffix(" const").strip()
    return _normalize(_strip_cv(name))


def _strip_cv(name: str) -> str:
    words = name.split()
    return " ".join(w for w in words if w not in ("const", "volatile"))


def to_numba_type(cxx_type: Type) -> types.Type:
    """The Numba type that holds a value of ``cxx_type`` (references are looked through).

    Raises UnsupportedTypeError naming the type when there is no mapping.
    """
    base = cxx_type.referenced()
    if base.kind is TypeKind.POINTER:
        if base.pointee is None:
            raise UnsupportedTypeError(f"pointer type {base.name!r} has no pointee information")
        pointee = base.pointee
        if pointee.kind is TypeKind.BUILTIN and value_type_name(pointee) == "void":
            return types.voidptr
        if pointee.kind is TypeKind.FUNCTION:
            raise UnsupportedTypeError(f"function pointer {base.name!r} is not supported")
        return types.CPointer(to_numba_type(pointee))
    if base.kind is TypeKind.ARRAY:
        # A by-value C array only occurs as a field; parameters decay to pointers in clang.
        if base.pointee is None:
            raise UnsupportedTypeError(f"array type {base.name!r} has no element information")
        element = to_numba_type(base.pointee)
        count = 1
        for extent in base.array_extents:
            count *= extent
        return types.UniTuple(element, count)
    if base.kind is TypeKind.DEPENDENT:
        raise UnsupportedTypeError(f"{base.name!r} depends on a template parameter")
    name = value_type_name(base)
    found = _CXX_TO_NUMBA.get(name)
    if found is None:
        found = _CXX_TO_NUMBA.get(_normalize(_strip_cv(base.name)))
    if found is None:
        raise UnsupportedTypeError(
            f"C++ type {name!r} has no Numba type: bind it first (bind_cxx_struct / "
            "bind_cxx_enum) or map it with register_cxx_type"
        )
    return found

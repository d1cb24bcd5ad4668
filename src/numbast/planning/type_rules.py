"""The rules that map C++ types to Numba types, without importing Numba.

Dynamic binding builds Numba type objects with these rules (``numbast.type_mapping``); the
static generator spells the same types as Python source (``numbast.static.numba_exprs``) and
must not pay for importing Numba while it renders. Both go through :class:`TypeTable`, which
is generic over what a "type" is: the table's vocabulary makes pointers, void pointers and
tuples of whatever it holds.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from typing import Generic, Protocol, TypeVar

from ast_canopy.model import Type, TypeKind
from numbast.core.cxx_names import (  # noqa: F401  (re-exported: planning's vocabulary)
    BUILTIN_NUMBA_NAMES,
    VECTOR_ELEMENTS,
    normalize_cxx_name,
    strip_cv,
    vector_type_names,
)

T = TypeVar("T")


class UnsupportedTypeError(TypeError):
    """A C++ type has no Numba counterpart (yet). The message says which and why."""


def value_type_name(cxx_type: Type) -> str:
    """The canonical spelling of a type with cv-qualifiers and reference removed."""
    base = cxx_type.referenced()
    name = base.canonical_name
    if base.kind is TypeKind.POINTER:
        # "const int *const" -> drop only the top-level const of the pointer itself.
        return name.removesuffix(" const").strip()
    return normalize_cxx_name(strip_cv(name))


# The builtins that the host's C library and NVRTC reach by different typedefs: clang parses
# with the host's <stdint.h> (LP64: int64_t is long), NVRTC with libcu++'s (int64_t is long
# long). Same size, distinct types: a shim spelling clang's `unsigned long *` cannot pass
# where the header's `uint64_t *` is `unsigned long long *` under NVRTC.
_HOST_SPELLED_BUILTINS = frozenset({"long", "unsigned long", "long int", "unsigned long int"})


def shim_type_name(cxx_type: Type) -> str:
    """How a shim spells ``cxx_type`` (cv-qualifiers and reference removed): its canonical
    spelling, except where that is (a pointer to) ``long`` or ``unsigned long`` reached through
    a typedef, which keeps the typedef name the header wrote, so that NVRTC reads the type the
    header's declaration has (Random123's ``uint64_t *hip``)."""
    canonical = value_type_name(cxx_type)
    base = cxx_type.referenced()
    innermost = base
    while innermost.kind is TypeKind.POINTER and innermost.pointee is not None:
        innermost = innermost.pointee
    if innermost.kind is not TypeKind.BUILTIN:
        return canonical
    if strip_cv(innermost.canonical_name) not in _HOST_SPELLED_BUILTINS:
        return canonical
    written = base.fully_qualified_name or base.name
    if base.kind is TypeKind.POINTER:
        return written.removesuffix(" const").strip()
    return normalize_cxx_name(strip_cv(written))


class TypeVocabulary(Protocol[T]):
    """How a type table builds the types it does not look up by name."""

    voidptr: T

    def pointer(self, pointee: T) -> T: ...

    def unituple(self, element: T, count: int) -> T: ...


DYNAMIC_MISSING_HINT = (
    "bind it first (bind_cxx_struct / bind_cxx_enum) or map it with register_cxx_type"
)


class TypeTable(Generic[T]):
    """C++ type name -> type, plus the storage type of every bound enum.

    Starts from the entries it is given (builtins and vector types) and grows as structs and
    enums are bound. A later registration replaces an earlier one, so binding ``__half`` from
    cuda_fp16.h replaces the built-in mapping to ``float16``.
    """

    def __init__(
        self,
        vocabulary: TypeVocabulary[T],
        entries: Iterable[tuple[str, T]] = (),
        missing_hint: str = DYNAMIC_MISSING_HINT,
    ) -> None:
        self.vocabulary = vocabulary
        self.missing_hint = missing_hint
        self._types: dict[str, T] = dict(entries)
        self._enum_storage: dict[str, T] = {}
        self._lock = threading.Lock()
        # Types of C++ class template instances nobody bound yet: spelling -> type or None
        # (set by whoever binds class templates: the instance is made when a type names it).
        self.instance_fallbacks: list = []

    def register(self, cxx_name: str, mapped: T) -> None:
        with self._lock:
            self._types[normalize_cxx_name(cxx_name)] = mapped

    def register_enum(self, cxx_name: str, mapped: T, storage: T) -> None:
        """An enum maps to ``mapped`` in signatures and is held as ``storage`` in C++."""
        with self._lock:
            self._types[normalize_cxx_name(cxx_name)] = mapped
            self._enum_storage[normalize_cxx_name(cxx_name)] = storage

    def lookup(self, cxx_name: str) -> T | None:
        return self._types.get(normalize_cxx_name(cxx_name))

    def unregister(self, cxx_name: str) -> None:
        """Forget the mapping of ``cxx_name``; raises KeyError when there is none."""
        with self._lock:
            del self._types[normalize_cxx_name(cxx_name)]

    def names(self) -> list[str]:
        """The C++ names mapped so far (normalized spellings)."""
        with self._lock:
            return list(self._types)

    def items(self) -> list[tuple[str, T, T | None]]:
        """(normalized C++ name, type, an enum's storage type or None) of every mapping."""
        with self._lock:
            return [(n, t, self._enum_storage.get(n)) for n, t in self._types.items()]

    def enum_storage(self, cxx_type: Type) -> T | None:
        """The C++ storage integer type when ``cxx_type`` is (a reference to) a bound enum."""
        base = cxx_type.referenced()
        if base.kind is not TypeKind.ENUM:
            return None
        return self._enum_storage.get(value_type_name(base))

    def storage_type(self, cxx_type: Type) -> T:
        """As :meth:`to_type`, except that enums are their underlying integer (struct members
        must match the C++ layout)."""
        storage = self.enum_storage(cxx_type)
        return storage if storage is not None else self.to_type(cxx_type)

    def to_type(self, cxx_type: Type) -> T:
        """The type that holds a value of ``cxx_type`` (references are looked through).

        Raises UnsupportedTypeError naming the type when there is no mapping.
        """
        base = cxx_type.referenced()
        if base.kind is TypeKind.POINTER:
            if base.pointee is None:
                raise UnsupportedTypeError(f"pointer type {base.name!r} has no pointee information")
            pointee = base.pointee
            if pointee.kind is TypeKind.BUILTIN and value_type_name(pointee) == "void":
                return self.vocabulary.voidptr
            if pointee.kind is TypeKind.FUNCTION:
                raise UnsupportedTypeError(f"function pointer {base.name!r} is not supported")
            return self.vocabulary.pointer(self.to_type(pointee))
        if base.kind is TypeKind.ARRAY:
            # A by-value C array only occurs as a field; parameters decay to pointers in clang.
            # ``T[M][N]`` is M rows of N elements: a tuple of M tuples of N, as C++ lays it out.
            if base.pointee is None:
                raise UnsupportedTypeError(f"array type {base.name!r} has no element information")
            mapped = self.to_type(base.pointee)
            for extent in reversed(base.array_extents):
                mapped = self.vocabulary.unituple(mapped, extent)
            return mapped
        if base.kind is TypeKind.DEPENDENT:
            raise UnsupportedTypeError(f"{base.name!r} depends on a template parameter")
        name = value_type_name(base)
        found = self._types.get(name)
        if found is None:
            found = self._types.get(normalize_cxx_name(strip_cv(base.name)))
        for fallback in self.instance_fallbacks if found is None and "<" in name else ():
            found = fallback(name)
            if found is not None:
                break
        if found is None:
            raise UnsupportedTypeError(f"C++ type {name!r} has no Numba type: {self.missing_hint}")
        return found

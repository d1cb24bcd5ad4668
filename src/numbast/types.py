"""NVIDIA Numbast's ``numbast.types``: C++ type names (strings) -> Numba types.

The names and behaviour follow NVIDIA's module, so code written against it runs unchanged:

- ``CTYPE_MAPS`` is the process's C++ name -> Numba type table, as a mutable mapping. It is a
  view of the one table binding uses (``numbast.dynamic.numba_types``), so a struct bound with
  ``bind_cxx_struct`` appears in it, and an entry set here maps that C++ type in later bindings.
- ``to_numba_type("float[2][12]")`` reads a C++ type spelling: ``T *`` is a pointer, ``T[M][N]``
  nested tuples, and a name nobody mapped is an ``Opaque`` type of that name.
- ``register_cxx_type(name, numba_type, alignof=None)`` maps a name; ``alignof`` records the C++
  alignment of the type (``get_numba_type_alignof``), checked to be a power of two.
- ``CUDA_VECTOR_TYPE_MAPS`` gives the CUDA vector types with their C++ alignment, and
  ``to_c_type_str`` spells a Numba type back in C++.

Our shims align every argument as clang lays out its C++ type, so a recorded ``alignof`` is
information for callers (NVIDIA's shims use it for their temporaries); it changes no binding.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator, MutableMapping

from numba.cuda import types as nbtypes
from numba.cuda.vector_types import vector_types

from numbast.dynamic.numba_types import NUMBA_TYPE_TABLE
from numbast.dynamic.numba_types import register_cxx_type as _register_in_table
from numbast.planning.type_rules import normalize_cxx_name
from numbast.runtime.cxx_types import NoCxxSpelling, cxx_spelling_of

# CUDA vector type prefix -> (Numba element name, C++ alignment by lane count). ``long<N>``
# and ``ulong<N>`` are left out, as NVIDIA does: their width depends on the platform's long.
_VECTOR_SPECS = {
    "char": ("int8", {1: 1, 2: 2, 3: 1, 4: 4}),
    "uchar": ("uint8", {1: 1, 2: 2, 3: 1, 4: 4}),
    "short": ("int16", {1: 2, 2: 4, 3: 2, 4: 8}),
    "ushort": ("uint16", {1: 2, 2: 4, 3: 2, 4: 8}),
    "int": ("int32", {1: 4, 2: 8, 3: 4, 4: 16}),
    "uint": ("uint32", {1: 4, 2: 8, 3: 4, 4: 16}),
    "longlong": ("int64", {1: 8, 2: 16, 3: 8, 4: 16}),
    "ulonglong": ("uint64", {1: 8, 2: 16, 3: 8, 4: 16}),
    "float": ("float32", {1: 4, 2: 8, 3: 4, 4: 16}),
    "double": ("float64", {1: 8, 2: 16, 3: 8, 4: 16}),
}

# C++ vector type name -> (numba-cuda's vector type, C++ alignof).
CUDA_VECTOR_TYPE_MAPS: dict[str, tuple[nbtypes.Type, int]] = {
    f"{prefix}{lanes}": (vector_types[f"{element}x{lanes}"], alignments[lanes])
    for prefix, (element, alignments) in _VECTOR_SPECS.items()
    for lanes in (1, 2, 3, 4)
}


class _TypeTableView(MutableMapping):
    """C++ name -> Numba type, reading and writing the process's binding table."""

    def __getitem__(self, cxx_name: str) -> nbtypes.Type:
        found = NUMBA_TYPE_TABLE.lookup(cxx_name)
        if found is None:
            raise KeyError(cxx_name)
        return found

    def __setitem__(self, cxx_name: str, numba_type: nbtypes.Type) -> None:
        _register_in_table(cxx_name, numba_type)

    def __delitem__(self, cxx_name: str) -> None:
        NUMBA_TYPE_TABLE.unregister(cxx_name)

    def __iter__(self) -> Iterator[str]:
        return iter(NUMBA_TYPE_TABLE.names())

    def __len__(self) -> int:
        return len(NUMBA_TYPE_TABLE.names())

    def __repr__(self) -> str:
        return f"CTYPE_MAPS({dict(self)!r})"


CTYPE_MAPS: MutableMapping[str, nbtypes.Type] = _TypeTableView()
# C++ name -> the alignof it was registered with (only names registered with one).
CTYPE_ALIGNOF_MAPS: dict[str, int] = {}
# Numba type -> the C++ alignof registered for it.
NUMBA_TYPE_ALIGNOF_MAPS: dict[nbtypes.Type, int] = {}
_ALIGNOF_LOCK = threading.RLock()


def _checked_alignof(alignof: int | None) -> int | None:
    if alignof is None:
        return None
    value = int(alignof)
    if value <= 0 or value & (value - 1):
        raise ValueError(f"alignof must be a positive power of two, not {alignof!r}")
    return value


def register_cxx_type(
    cxx_name: str, numba_type: nbtypes.Type, *, alignof: int | None = None
) -> None:
    """Map the C++ type spelled ``cxx_name`` to ``numba_type`` (a later call replaces it).

    ``alignof`` is the C++ alignment of the type, a positive power of two. One Numba type has
    one alignment: registering a type already known under another name with an alignment, or
    with a different alignment than before, raises ValueError; give such a name a Numba type
    object of its own. Registering a name again without ``alignof`` drops the alignment it had.
    """
    alignof = _checked_alignof(alignof)
    with _ALIGNOF_LOCK:
        previous_type = CTYPE_MAPS.get(cxx_name)
        if alignof is not None:
            recorded = get_numba_type_alignof(numba_type)
            if recorded is None:
                owner = _other_name_of(numba_type, cxx_name)
                if owner is not None:
                    raise ValueError(
                        f"register_cxx_type({cxx_name!r}, {numba_type}, alignof={alignof}): "
                        f"{numba_type} is already the type of {owner!r} with its natural "
                        "alignment; an aligned alias needs a distinct Numba type object "
                        f"(e.g. numba.cuda.types.Opaque({cxx_name!r}))"
                    )
            elif recorded != alignof:
                raise ValueError(
                    f"register_cxx_type({cxx_name!r}, ..., alignof={alignof}): {numba_type} "
                    f"already has alignof_={recorded}; give {cxx_name!r} a Numba type object "
                    "of its own"
                )
            NUMBA_TYPE_ALIGNOF_MAPS[numba_type] = alignof
            CTYPE_ALIGNOF_MAPS[cxx_name] = alignof
        else:
            CTYPE_ALIGNOF_MAPS.pop(cxx_name, None)
        _register_in_table(cxx_name, numba_type)
        if previous_type is not None and not any(
            CTYPE_MAPS.get(name) == previous_type for name in CTYPE_ALIGNOF_MAPS
        ):
            # No aligned name maps to the replaced type any more: its alignment goes too.
            NUMBA_TYPE_ALIGNOF_MAPS.pop(previous_type, None)


def _other_name_of(numba_type: nbtypes.Type, cxx_name: str) -> str | None:
    wanted = normalize_cxx_name(cxx_name)
    for name, mapped in CTYPE_MAPS.items():
        if name != wanted and mapped == numba_type:
            return name
    return None


def get_numba_type_alignof(numba_type: nbtypes.Type) -> int | None:
    """The C++ alignment registered for ``numba_type``, or None."""
    try:
        return NUMBA_TYPE_ALIGNOF_MAPS.get(numba_type)
    except TypeError:  # an unhashable stand-in
        return None


def _register_vector_alignments() -> None:
    for cxx_name, (numba_type, alignof) in CUDA_VECTOR_TYPE_MAPS.items():
        NUMBA_TYPE_ALIGNOF_MAPS[numba_type] = alignof
        CTYPE_ALIGNOF_MAPS[cxx_name] = alignof


_register_vector_alignments()

_ARRAY = re.compile(r"^(?P<element>.+?)\s*(?P<extents>(?:\[\s*\d+\s*\])+)$")


def to_numba_type(ty: str) -> nbtypes.Type:
    """The Numba type of the C++ type spelled ``ty``.

    ``T *`` is a pointer (``void *`` Numba's ``voidptr``), ``T (*)[N]`` a pointer to ``T``,
    ``T[M][N]`` a tuple of M tuples of N, and a name with no mapping an ``Opaque`` type of that
    name (as NVIDIA's); cv-qualifiers are ignored.
    """
    text = " ".join(ty.split())
    if text.endswith("*"):
        pointee = text[:-1].strip()
        if pointee.endswith("const"):
            pointee = pointee[: -len("const")].strip()
        if normalize_cxx_name(pointee).removeprefix("const ") == "void":
            return nbtypes.voidptr
        return nbtypes.CPointer(to_numba_type(pointee))
    if "(*)[" in text:
        return nbtypes.CPointer(to_numba_type(text.split("(*)")[0]))
    array = _ARRAY.match(text)
    if array is not None:
        mapped = to_numba_type(array["element"])
        for extent in reversed(re.findall(r"\d+", array["extents"])):
            mapped = nbtypes.UniTuple(mapped, int(extent))
        return mapped
    found = NUMBA_TYPE_TABLE.lookup(text)
    if found is None:
        found = NUMBA_TYPE_TABLE.lookup(" ".join(w for w in text.split() if w != "const"))
    return found if found is not None else nbtypes.Opaque(text)


def to_numba_arg_type(ast_type) -> nbtypes.Type:
    """The Numba type of an ``ast_canopy`` Type, references looked through (as a value)."""
    return to_numba_type(ast_type.unqualified_non_ref_type_name)


_VECTOR_NAMES = {numba_type: cxx for cxx, (numba_type, _a) in CUDA_VECTOR_TYPE_MAPS.items()}


def to_c_type_str(nbty: nbtypes.Type) -> str:
    """The C++ spelling of a Numba type (``float3``, ``float3*``, ``int``, a bound struct's
    qualified name); raises ValueError when it has none."""
    if isinstance(nbty, nbtypes.CPointer):
        return f"{to_c_type_str(nbty.dtype)}*"
    if nbty == nbtypes.void or nbty == nbtypes.none:
        return "void"
    vector = _VECTOR_NAMES.get(nbty)
    if vector is not None:
        return vector
    try:
        return cxx_spelling_of(nbty)
    except NoCxxSpelling as exc:
        raise ValueError(f"Numba type {nbty} has no C++ type: {exc}") from None


def is_c_integral_type(typ_str: str) -> bool:
    return isinstance(NUMBA_TYPE_TABLE.lookup(typ_str), nbtypes.Integer)


def is_c_floating_type(typ_str: str) -> bool:
    return isinstance(NUMBA_TYPE_TABLE.lookup(typ_str), nbtypes.Float)


__all__ = [
    "CTYPE_ALIGNOF_MAPS",
    "CTYPE_MAPS",
    "CUDA_VECTOR_TYPE_MAPS",
    "NUMBA_TYPE_ALIGNOF_MAPS",
    "get_numba_type_alignof",
    "is_c_floating_type",
    "is_c_integral_type",
    "register_cxx_type",
    "to_c_type_str",
    "to_numba_arg_type",
    "to_numba_type",
]

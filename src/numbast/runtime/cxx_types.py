"""C++ spellings of Numba types, both ways, for instantiating templates at run time.

Template arguments deduced from Numba types are written in C++ (``::tmax<float>``), and types a
probe or a specialization names in C++ (``Vec<float, 2>``) are looked up as Numba types. Bound
structs and enums carry their C++ names; builtins and CUDA vector types have fixed spellings;
anything else is registered (``register_spelling``; ``remember_spelling`` for the way back only,
which ``register_cxx_type`` calls). The tables are process-wide, shared by every copy of the
runtime.
"""

from __future__ import annotations

import functools

from numba.cuda import types

from ..core.cxx_names import BUILTIN_NUMBA_NAMES, NUMBA_TO_CXX, normalize_cxx_name, strip_cv
from ..core.cxx_names import vector_type_names as _vector_type_names
from .state import LOCK, shared_table

# normalized C++ spelling -> Numba type, for types bound or registered in this process
_BY_SPELLING: dict[str, types.Type] = shared_table("cxx_spellings", dict)
# Numba type -> C++ spelling, for registered types that do not carry their name
_SPELLING_OF: dict[types.Type, str] = shared_table("cxx_names_of_types", dict)


class NoCxxSpelling(TypeError):
    """A Numba type has no C++ counterpart (so it cannot be a template argument)."""


def canonical_spelling(spelling: str) -> str:
    """A spelling with cv-qualifiers, elaborated keywords, a leading :: and redundant spaces
    removed: how types are keyed."""
    text = normalize_cxx_name(strip_cv(spelling))
    return " ".join(text.replace("< ", "<").replace(" >", ">").split()).replace(":: ", "::")


def register_spelling(spelling: str, numba_type: types.Type) -> None:
    """``spelling`` names ``numba_type`` from now on (the first registration of a type also
    gives its spelling back)."""
    key = canonical_spelling(spelling)
    with LOCK:
        _BY_SPELLING[key] = numba_type
        if not _carries_name(numba_type):
            _SPELLING_OF.setdefault(numba_type, key)


def remember_spelling(numba_type: types.Type, spelling: str) -> None:
    """``numba_type`` is spelled ``spelling`` in C++ unless it has a spelling already (its own
    name, a builtin's or a vector type's fixed one, or an earlier registration): what
    ``register_cxx_type`` records for types that do not carry their C++ name."""
    if _carries_name(numba_type):
        return
    with LOCK:
        _SPELLING_OF.setdefault(numba_type, canonical_spelling(spelling))


def _carries_name(numba_type: types.Type) -> bool:
    return getattr(numba_type, "cxx_qual_name", None) is not None or isinstance(
        numba_type, types.IntEnumMember
    )


@functools.cache
def _vector_types() -> dict[str, types.Type]:
    from numba.cuda.vector_types import vector_types

    return {cxx: vector_types[name] for cxx, name in _vector_type_names().items()}


def numba_type_of(spelling: str) -> types.Type | None:
    """The Numba type a C++ spelling names (pointers included), or None."""
    text = canonical_spelling(spelling)
    if text.endswith("*"):
        pointee = text[:-1].strip()
        if strip_cv(pointee) == "void":
            return types.voidptr
        inner = numba_type_of(pointee)
        return None if inner is None else types.CPointer(inner)
    found = _BY_SPELLING.get(text)
    if found is not None:
        return found
    builtin = BUILTIN_NUMBA_NAMES.get(text)
    if builtin is not None and builtin != "void":
        return getattr(types, builtin)
    if text[-1:].isdigit():
        return _vector_types().get(text)
    return None


def cxx_spelling_of(numba_type: types.Type) -> str:
    """The C++ spelling of a Numba type (literals as their underlying type); raises NoCxxSpelling
    when it has none."""
    numba_type = types.unliteral(numba_type)
    if numba_type == types.voidptr:
        return "void *"
    if isinstance(numba_type, types.Boolean):
        return "bool"  # Numba names it "bool", not "boolean" (NUMBA_TO_CXX's key)
    if isinstance(numba_type, types.CPointer):
        pointee = cxx_spelling_of(numba_type.dtype)
        return f"{pointee}*" if pointee.endswith("*") else f"{pointee} *"
    named = getattr(numba_type, "cxx_qual_name", None) or getattr(numba_type, "cxx_spelling", None)
    if named is not None:
        return named
    if isinstance(numba_type, types.IntEnumMember):
        cxx_name = getattr(numba_type.instance_class, "_cxx_name_", None)
        if cxx_name is not None:
            return cxx_name
    builtin = NUMBA_TO_CXX.get(getattr(numba_type, "name", ""))
    if builtin is not None and getattr(types, numba_type.name, None) == numba_type:
        return builtin
    for cxx, vector in _vector_types().items():
        if vector == numba_type:
            return cxx
    registered = _SPELLING_OF.get(numba_type)
    if registered is not None:
        return registered
    raise NoCxxSpelling(
        f"Numba type {numba_type} has no C++ spelling: bind the C++ type it stands for first "
        "(a struct, an enum or a class template instance), or map it with register_cxx_type"
    )

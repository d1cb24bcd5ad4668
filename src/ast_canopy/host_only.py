"""Which declarations device code cannot use because of the types they name.

clang parses a CUDA header with the host's C++ standard library in view, so a header can
declare ``inline std::ostream& operator<<(std::ostream&, BlockScanAlgorithm)`` (CUB does, for
logging) or a struct holding a ``std::string``. Device code has no such library: NVRTC, which
compiles every shim, has no ``<ostream>`` at all, and a shim that names ``std::basic_ostream``
fails to compile. A declaration that names a type of namespace ``std`` (not ``cuda::std``,
libcu++'s device-capable namespace) is host-only, whatever its execution space says.

Plain queries on the model; no clang needed.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from ast_canopy.kinds import TypeKind
from ast_canopy.model import Function, Struct, Type

# `std::` that begins a qualified name: not preceded by a name (`cuda::std::`) or by `::` that
# follows one; a leading `::std::` counts.
_HOST_LIBRARY_NAME = re.compile(r"(?<![\w:])(?:::)?std::")
_NAMED_KINDS = (TypeKind.RECORD, TypeKind.ENUM)


def _innermost(t: Type | None) -> Type | None:
    while t is not None and t.kind in (
        TypeKind.POINTER,
        TypeKind.LVALUE_REFERENCE,
        TypeKind.RVALUE_REFERENCE,
        TypeKind.ARRAY,
    ):
        t = t.pointee
    return t


def is_host_library_name(canonical_name: str) -> bool:
    """True when a canonical C++ spelling names something of namespace ``std`` (also as a
    template argument: ``cuda::std::pair<std::string, int>``)."""
    return _HOST_LIBRARY_NAME.search(canonical_name) is not None


def host_library_type(types: Iterable[Type | None]) -> str | None:
    """The canonical spelling of the first of ``types`` that is (or points to, refers to, holds
    as a template argument) a type of the host C++ standard library; None if none is."""
    for t in types:
        inner = _innermost(t)
        if inner is None or inner.kind not in _NAMED_KINDS:
            continue
        if is_host_library_name(inner.canonical_name):
            return inner.canonical_name.removeprefix("const ").strip()
    return None


def function_host_library_type(func: Function) -> str | None:
    """The host standard library type a function's signature names, if any."""
    return host_library_type([func.return_type, *(p.type_ for p in func.params)])


def struct_host_library_type(struct: Struct) -> str | None:
    """The host standard library type a struct is, holds or derives from, if any."""
    if is_host_library_name(struct.qual_name):
        return struct.qual_name
    return host_library_type([*(f.type_ for f in struct.fields), *(b.type_ for b in struct.bases)])


__all__ = [
    "function_host_library_type",
    "host_library_type",
    "is_host_library_name",
    "struct_host_library_type",
]

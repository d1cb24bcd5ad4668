"""NVIDIA Numbast's ``numbast.static.types``: C++ type spellings -> Numba type expressions.

``to_numba_type_str("float[2][12]")`` is ``"UniTuple(UniTuple(float32, 12), 2)"``: the Numba
type as Python source in ``numba.cuda.types`` terms, for the builtin and CUDA vector types,
pointers and fixed-size arrays. The generator itself writes types as data
(``numbast.planning.type_refs``); nothing here imports Numba.
"""

from __future__ import annotations

import re

from numbast.core.cxx_names import BUILTIN_NUMBA_NAMES, normalize_cxx_name, vector_type_names
from numbast.planning.type_rules import UnsupportedTypeError

_ARRAY = re.compile(r"^(?P<element>.+?)\s*(?P<extents>(?:\[\s*\d+\s*\])+)$")


def to_numba_type_str(ty: str) -> str:
    """The Numba type of the C++ type spelled ``ty`` as an expression (``CPointer(int32)``,
    ``UniTuple(float32, 4)``, ``float32x2``); raises UnsupportedTypeError for other types."""
    text = " ".join(ty.split())
    if text.endswith("*"):
        pointee = text[:-1].strip().removesuffix(" const")
        if normalize_cxx_name(pointee).removeprefix("const ") == "void":
            return "voidptr"
        return f"CPointer({to_numba_type_str(pointee)})"
    if "(*)[" in text:
        return f"CPointer({to_numba_type_str(text.split('(*)')[0])})"
    array = _ARRAY.match(text)
    if array is not None:
        expression = to_numba_type_str(array["element"])
        for extent in reversed(re.findall(r"\d+", array["extents"])):
            expression = f"UniTuple({expression}, {extent})"
        return expression
    name = normalize_cxx_name(" ".join(w for w in text.split() if w not in ("const", "volatile")))
    builtin = BUILTIN_NUMBA_NAMES.get(name)
    if builtin is not None:
        return builtin
    vector = vector_type_names().get(name)
    if vector is not None:
        return vector
    raise UnsupportedTypeError(
        f"C++ type {ty!r} is not a builtin, CUDA vector, pointer or array type; the static "
        "generator maps the header's own types itself"
    )


def reset_types() -> None:
    """NVIDIA's reset of the generator's type table between runs. The generator here keeps no
    process-wide type state (each run plans with a table of its own), so there is nothing to
    reset."""


__all__ = ["reset_types", "to_numba_type_str"]

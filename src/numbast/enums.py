"""Bind C++ enums as Python ``IntEnum`` classes usable in kernels and as kernel arguments."""

from __future__ import annotations

import enum
import keyword
import logging
from collections.abc import Iterable

from numba.cuda import types

from ast_canopy.model import Enum_
from numbast.diagnostics import warn_skipped
from numbast.type_mapping import UnsupportedTypeError, register_cxx_enum, to_numba_type

logger = logging.getLogger(__name__)


def _python_member_name(name: str) -> str:
    return f"{name}_" if keyword.iskeyword(name) else name


def bind_cxx_enum(enum_decl: Enum_, python_name: str | None = None) -> type[enum.IntEnum] | None:
    """An IntEnum with the C++ enumerators and values; the C++ type maps to it in signatures."""
    try:
        underlying = to_numba_type(enum_decl.underlying_type)
    except UnsupportedTypeError as exc:
        warn_skipped("enum", enum_decl.qual_name, str(exc))
        return None
    if not isinstance(underlying, types.Integer):
        warn_skipped("enum", enum_decl.qual_name, f"underlying type {underlying} is not integral")
        return None
    members = {
        _python_member_name(name): value
        for name, value in zip(enum_decl.enumerators, enum_decl.enumerator_values, strict=True)
    }
    py_enum = enum.IntEnum(python_name or enum_decl.name, members)
    py_enum.__doc__ = f"C++ enum {enum_decl.qual_name} (bound by numbast)."
    # Numba types enum members by their Python value (int64); shims convert to and from the
    # C++ underlying type at the boundary.
    register_cxx_enum(enum_decl.qual_name, types.IntEnumMember(py_enum, types.int64), underlying)
    return py_enum


def bind_cxx_enums(enum_decls: Iterable[Enum_]) -> list[type[enum.IntEnum]]:
    bound = []
    for decl in enum_decls:
        result = bind_cxx_enum(decl)
        if result is not None:
            bound.append(result)
    return bound

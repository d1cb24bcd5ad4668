"""Bind C++ enums as Python ``IntEnum`` classes usable in kernels and as kernel arguments."""

from __future__ import annotations

import enum
import logging
from collections.abc import Iterable

from numba.cuda import types

from ast_canopy.model import Enum_
from numbast.declaration_plans import enum_members, python_member_name
from numbast.diagnostics import warn_skipped
from numbast.type_mapping import UnsupportedTypeError, register_cxx_enum, to_numba_type

logger = logging.getLogger(__name__)


# Shared with the static generator (numbast.declaration_plans).
_python_member_name = python_member_name


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
    members = enum_members(enum_decl)
    py_enum = enum.IntEnum(python_name or enum_decl.name, members)
    py_enum.__doc__ = f"C++ enum {enum_decl.qual_name} (bound by numbast)."
    py_enum._cxx_name_ = enum_decl.qual_name
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

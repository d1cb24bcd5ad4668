"""Bind C++ enums as Python ``IntEnum`` classes usable in kernels and as kernel arguments."""

from __future__ import annotations

import enum
from collections.abc import Iterable

from numba.cuda import types

from ast_canopy.model import Enum_
from numbast.dynamic.numba_types import NUMBA_TYPE_TABLE, register_cxx_enum
from numbast.planning.declarations import plan_enum
from numbast.planning.descriptions import location_of
from numbast.planning.diagnostics import BindingError, warn_skipped
from numbast.planning.type_rules import UnsupportedTypeError
from numbast.runtime.apply import enum_member_type, make_enum


def bind_cxx_enum(enum_decl: Enum_, *, python_name: str | None = None) -> type[enum.IntEnum] | None:
    """An IntEnum with the C++ enumerators and values; the C++ type maps to it in signatures.
    None when the enum cannot be bound (one BindingSkippedWarning says why)."""
    try:
        row, underlying = plan_enum(
            enum_decl, NUMBA_TYPE_TABLE, lambda t: isinstance(t, types.Integer), python_name
        )
    except (BindingError, UnsupportedTypeError) as exc:
        warn_skipped("enum", enum_decl.qual_name, str(exc), location_of(enum_decl))
        return None
    py_enum = make_enum(row)
    register_cxx_enum(enum_decl.qual_name, enum_member_type(py_enum), underlying)
    return py_enum


def bind_cxx_enums(enums: Iterable[Enum_]) -> list[type[enum.IntEnum]]:
    """Bind every enum; returns the IntEnums made, in order (skipped ones left out)."""
    bound = []
    for decl in enums:
        result = bind_cxx_enum(decl)
        if result is not None:
            bound.append(result)
    return bound

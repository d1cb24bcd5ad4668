"""Assemble one bound call from the values that cross its shim: its shim text and arguments.

Planning (declarations parsed by clang) and the runtime (template instances, made while Numba
types a kernel) both describe a call as values that cross the shim (``ShimValue``: the value's
type as the caller holds it, its C++ spelling, how it crosses) and a statement; this turns them
into a ``CallPlan``, which the row writer indexes or the runtime resolves into a ``Call``.
Numba-free: planning imports it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

from .rows import COPY, POINTER, ArgumentRow
from .shim_text import ShimParam, render_shim

# The C++ spelling of the type enum values cross the shim boundary in (Numba's int64).
ENUM_TRANSPORT = "long long"

# How a shim body is produced from its parameters: (params, returns_value) -> C++ statement.
BodyFactory = Callable[[Sequence[ShimParam], bool], str]


class ShimValue(NamedTuple):
    """One value crossing a shim (an argument, or the result)."""

    type: Any  # the value's type as the caller holds it (a Numba type, or a description)
    spelling: str  # its C++ type, without cv-qualifiers or reference
    mode: str = COPY  # rows.COPY / POINTER / HIDDEN_OUT
    align: int | None = None  # the C++ alignment when it exceeds Numba's
    enum: bool = False  # a C++ enum: crosses as ENUM_TRANSPORT and is cast at the boundary
    rvalue: bool = False  # the C++ parameter is T&&: pass an xvalue
    pointer: bool = False  # a C++ pointer parameter fed with a kernel pointer: pass it on
    # a C++ reference to an array (``T (&)[N]``) fed with a pointer to its first element: the
    # array's extents, outermost first
    array: tuple[int, ...] = ()


class CallPlan(NamedTuple):
    shim_name: str
    shim_text: str
    arguments: tuple[ArgumentRow, ...]  # one per shim parameter, object first for methods
    cxx_result: Any | None  # the C++ return value's type; None for void
    result_align: int | None
    returns_first_argument: bool = False  # compound assignment: return the updated operand


class _EnumParam(ShimParam):
    """An enum passed as Numba's int64: the shim casts it to the C++ enum type."""

    def __init__(self, enum_type: str) -> None:
        super().__init__(ENUM_TRANSPORT)
        object.__setattr__(self, "enum_type", enum_type)

    def argument(self, index: int) -> str:
        return f"static_cast<{self.enum_type}>(*a{index})"


class _PointerParam(ShimParam):
    """A C++ pointer parameter fed from a kernel pointer: the shim forwards ``a<i>`` itself."""

    def argument(self, index: int) -> str:
        return f"a{index}"


class _ArrayParam(ShimParam):
    """A C++ reference to an array fed from a pointer to its first element."""

    def __init__(self, element_type: str, extents: tuple[int, ...]) -> None:
        super().__init__(element_type)
        object.__setattr__(self, "extents", extents)

    def argument(self, index: int) -> str:
        bounds = "".join(f"[{extent}]" for extent in self.extents)
        return f"(*reinterpret_cast<{self.value_type} (*){bounds}>(a{index}))"


def shim_param(value: ShimValue) -> ShimParam:
    if value.enum:
        return _EnumParam(value.spelling)
    if value.array:
        return _ArrayParam(value.spelling, value.array)
    if value.pointer:
        return _PointerParam(value.spelling)
    return ShimParam(value.spelling, rvalue=value.rvalue)


def assemble_call(
    shim_name: str,
    values: Sequence[ShimValue],
    result: ShimValue | None,
    body: BodyFactory,
    returns_first_argument: bool = False,
) -> CallPlan:
    """The plan of a call whose shim takes ``values`` and returns ``result`` (None: void);
    ``body`` writes the statement calling the C++ entity from the shim's parameters."""
    params = [shim_param(value) for value in values]
    statement = body(params, result is not None)
    result_spelling = None if result is None else result.spelling
    if result is not None and result.enum:
        # Enums come back as Numba's int64: the stored result converts to it (store_result).
        result_spelling = ENUM_TRANSPORT
    return CallPlan(
        shim_name=shim_name,
        shim_text=render_shim(shim_name, result_spelling, params, statement),
        arguments=tuple(ArgumentRow(v.type, v.mode, v.align) for v in values),
        cxx_result=None if result is None else result.type,
        result_align=None if result is None else result.align,
        returns_first_argument=returns_first_argument,
    )


__all__ = ["COPY", "POINTER", "CallPlan", "ENUM_TRANSPORT", "ShimValue", "assemble_call"]

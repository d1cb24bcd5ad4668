"""Plan one bound C++ callable: how each argument crosses its shim, the shim's text, and what
the call returns.

Free functions, methods, constructors, conversion operators and operators all reduce to a
``CallPlan``. Planning imports no Numba: the plan's types are whatever the type table holds
(Numba types in dynamic binding, type descriptions in the static generator), and the runtime
turns the plan into a Numba signature and lowering (``numbast.runtime.calls``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ast_canopy.model import Type, TypeKind
from numbast.planning.diagnostics import BindingError
from numbast.planning.intents import ArgIntent
from numbast.planning.type_rules import TypeTable, UnsupportedTypeError, value_type_name
from numbast.runtime.rows import COPY, HIDDEN_OUT, POINTER, ArgumentRow
from numbast.runtime.shim_text import ShimParam, render_shim

# How a shim body is produced from its parameters: (params, returns_value) -> C++ statement.
BodyFactory = Callable[[Sequence[ShimParam], bool], str]


@dataclass(frozen=True)
class CallPlan:
    shim_name: str
    shim_text: str
    arguments: tuple[ArgumentRow, ...]  # one per shim parameter, object first for methods
    cxx_result: Any | None  # the C++ return value's type; None for void
    result_align: int | None
    returns_first_argument: bool = False  # compound assignment: return the updated operand


def _argument_for(
    cxx_type: Type, intent: ArgIntent, type_table: TypeTable
) -> tuple[ArgumentRow, ShimParam]:
    referenced = cxx_type.referenced()
    if intent in (ArgIntent.INOUT_PTR, ArgIntent.OUT_PTR):
        # The kernel passes a pointer to the value the C++ reference or pointer designates.
        target = referenced.pointee if referenced.is_pointer else referenced
        if target is None:
            raise BindingError(f"cannot take a pointer intent on {cxx_type.name!r}")
        mapped = type_table.to_type(target)
        shim_param = ShimParam(value_type_name(target))
        if referenced.is_pointer:
            # The C++ parameter is itself a pointer: pass the pointer value through.
            return ArgumentRow(mapped, POINTER, target.alignof_), _PointerParam(
                shim_param.value_type
            )
        return ArgumentRow(mapped, POINTER, target.alignof_), shim_param
    mapped = type_table.to_type(cxx_type)
    if type_table.enum_storage(cxx_type) is not None:
        if intent is not ArgIntent.IN or cxx_type.is_reference and not referenced.is_const:
            raise BindingError(f"enum parameter {cxx_type.name!r} is only bound as an input")
        # Numba holds enum members as int64: the shim takes that and converts.
        return ArgumentRow(mapped, COPY, None), _EnumParam(
            ENUM_TRANSPORT, enum_type=value_type_name(cxx_type)
        )
    mode = HIDDEN_OUT if intent is ArgIntent.OUT_RETURN else COPY
    shim_param = ShimParam(value_type_name(cxx_type), rvalue=cxx_type.is_rvalue_reference)
    return ArgumentRow(mapped, mode, referenced.alignof_), shim_param


# The C++ spelling of the type enum values cross the shim boundary in (Numba's int64).
ENUM_TRANSPORT = "long long"


@dataclass(frozen=True)
class _EnumParam(ShimParam):
    """An enum passed as Numba's int64: the shim casts it to the C++ enum type."""

    enum_type: str = ""

    def argument(self, index: int) -> str:
        return f"static_cast<{self.enum_type}>(*a{index})"


@dataclass(frozen=True)
class _PointerParam(ShimParam):
    """A C++ pointer parameter fed from a kernel pointer: the shim forwards ``a<i>`` itself."""

    def argument(self, index: int) -> str:
        return f"a{index}"


def plan_call(
    shim_name: str,
    params: Sequence[tuple[Type, ArgIntent]],
    return_type: Type | None,
    body: BodyFactory,
    *,
    object_type: tuple[Any, str, int | None] | None = None,
    returns_first_argument: bool = False,
    type_table: TypeTable,
) -> CallPlan:
    """Build the plan for a callable with C++ ``params`` and ``return_type``.

    ``object_type`` is (Numba type, C++ spelling, alignment) of the object a method is called
    on; it becomes the first shim parameter. ``type_table`` maps the C++ types. Raises
    BindingError / UnsupportedTypeError.
    """
    arguments: list[ArgumentRow] = []
    shim_params: list[ShimParam] = []
    if object_type is not None:
        object_mapped, cxx_object, object_align = object_type
        arguments.append(ArgumentRow(object_mapped, COPY, object_align))
        shim_params.append(ShimParam(cxx_object))
    for cxx_type, intent in params:
        argument, shim_param = _argument_for(cxx_type, intent, type_table)
        arguments.append(argument)
        shim_params.append(shim_param)

    returns_value = return_type is not None and not _is_void(return_type)
    cxx_result = type_table.to_type(return_type) if returns_value else None
    result_spelling = value_type_name(return_type) if returns_value else None
    statement = body(shim_params, returns_value)
    if returns_value and type_table.enum_storage(return_type) is not None:
        # Enums come back as Numba's int64.
        result_spelling = ENUM_TRANSPORT
        expression = statement.removeprefix("*nbi_ret = ").removesuffix(";")
        statement = f"*nbi_ret = static_cast<{ENUM_TRANSPORT}>({expression});"
    text = render_shim(shim_name, result_spelling, shim_params, statement)
    return CallPlan(
        shim_name=shim_name,
        shim_text=text,
        arguments=tuple(arguments),
        cxx_result=cxx_result,
        result_align=return_type.referenced().alignof_ if returns_value else None,
        returns_first_argument=returns_first_argument,
    )


def _is_void(cxx_type: Type) -> bool:
    return cxx_type.kind is TypeKind.BUILTIN and value_type_name(cxx_type) == "void"


__all__ = ["CallPlan", "plan_call", "UnsupportedTypeError"]

"""Plan and lower one bound C++ callable: its Numba signature, its shim and its lowering.

Free functions, methods, constructors, conversion operators and operators all reduce to a
``CallPlan``: which arguments the kernel passes and how, what the shim looks like, and what the
call returns to Numba.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple

from ast_canopy.model import Type, TypeKind
from numbast.cxx_types import TypeTable, UnsupportedTypeError, value_type_name
from numbast.diagnostics import BindingError
from numbast.intents import ArgIntent
from numbast.shims import ShimParam, render_shim

if TYPE_CHECKING:
    from numba.cuda import types
    from numba.cuda.typing.templates import Signature

    from numbast.shim_writer import ShimWriterBase

# Planning imports no Numba (the static generator plans without it), so the argument record and
# its modes are defined here with the same fields and values as in numbast.runtime, whose
# functions read them by attribute; tests/test_static_planning.py checks that they agree.
COPY = "copy"  # the kernel passes a value; the shim gets a pointer to an aligned copy
POINTER = "pointer"  # the kernel passes a pointer (inout_ptr / out_ptr); passed through
HIDDEN_OUT = "hidden_out"  # out_return: not a kernel argument; written by the shim, returned


class ShimArgument(NamedTuple):
    numba_type: Any  # the value's type (for POINTER: the pointee's type)
    mode: str = COPY
    align: int | None = None  # the C++ alignment when it exceeds Numba's


# How a shim body is produced from its parameters: (params, returns_value) -> C++ statement.
BodyFactory = Callable[[Sequence[ShimParam], bool], str]


def _numba_type_table() -> TypeTable:
    from numbast.type_mapping import NUMBA_TYPE_TABLE

    return NUMBA_TYPE_TABLE


@dataclass(frozen=True)
class CallPlan:
    shim_name: str
    shim_text: str
    arguments: tuple[ShimArgument, ...]  # one per shim parameter, object first for methods
    cxx_result: types.Type | None  # the C++ return value's Numba type; None for void
    result_align: int | None
    returns_first_argument: bool = False  # compound assignment: return the updated operand

    # The members below need Numba types in the plan (dynamic binding), hence the local imports.
    @property
    def visible_args(self) -> tuple[types.Type, ...]:
        from numbast.runtime import visible_argument_types

        return visible_argument_types(self.arguments)

    @property
    def numba_return_type(self) -> types.Type:
        from numbast.runtime import call_return_type

        return call_return_type(self.arguments, self.cxx_result, self.returns_first_argument)

    def signature(self, receiver: types.Type | None = None) -> Signature:
        from numba.cuda.typing.templates import signature

        return signature(self.numba_return_type, *self.visible_args, recvr=receiver)

    def lowering(self, shims: ShimWriterBase, returns_updated_object: bool = False):
        """A Numba lowering that writes the shim (once) and calls it."""
        from numbast.runtime import shim_lowering

        return shim_lowering(
            shims,
            self.shim_name,
            self.shim_text,
            self.arguments,
            self.cxx_result,
            self.result_align,
            self.returns_first_argument,
            returns_updated_object,
        )


def _argument_for(
    cxx_type: Type, intent: ArgIntent, type_table: TypeTable
) -> tuple[ShimArgument, ShimParam]:
    referenced = cxx_type.referenced()
    if intent in (ArgIntent.INOUT_PTR, ArgIntent.OUT_PTR):
        # The kernel passes a pointer to the value the C++ reference or pointer designates.
        target = referenced.pointee if referenced.is_pointer else referenced
        if target is None:
            raise BindingError(f"cannot take a pointer intent on {cxx_type.name!r}")
        numba_type = type_table.to_type(target)
        shim_param = ShimParam(value_type_name(target))
        if referenced.is_pointer:
            # The C++ parameter is itself a pointer: pass the pointer value through.
            return ShimArgument(numba_type, POINTER, target.alignof_), _PointerParam(
                shim_param.value_type
            )
        return ShimArgument(numba_type, POINTER, target.alignof_), shim_param
    numba_type = type_table.to_type(cxx_type)
    if type_table.enum_storage(cxx_type) is not None:
        if intent is not ArgIntent.IN or cxx_type.is_reference and not referenced.is_const:
            raise BindingError(f"enum parameter {cxx_type.name!r} is only bound as an input")
        # Numba holds enum members as int64: the shim takes that and converts.
        return ShimArgument(numba_type, COPY, None), _EnumParam(
            ENUM_TRANSPORT, enum_type=value_type_name(cxx_type)
        )
    mode = HIDDEN_OUT if intent is ArgIntent.OUT_RETURN else COPY
    shim_param = ShimParam(value_type_name(cxx_type), rvalue=cxx_type.is_rvalue_reference)
    return ShimArgument(numba_type, mode, referenced.alignof_), shim_param


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
    type_table: TypeTable | None = None,
) -> CallPlan:
    """Build the plan for a callable with C++ ``params`` and ``return_type``.

    ``object_type`` is (Numba type, C++ spelling, alignment) of the object a method is called
    on; it becomes the first shim parameter. ``type_table`` maps the C++ types (default:
    Numba's, as bound so far). Raises BindingError / UnsupportedTypeError.
    """
    if type_table is None:
        type_table = _numba_type_table()
    arguments: list[ShimArgument] = []
    shim_params: list[ShimParam] = []
    if object_type is not None:
        numba_object, cxx_object, object_align = object_type
        arguments.append(ShimArgument(numba_object, COPY, object_align))
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

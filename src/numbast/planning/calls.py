"""Plan one bound C++ callable: how each argument crosses its shim, the shim's text, and what
the call returns.

Free functions, methods, constructors, conversion operators and operators all reduce to a
``CallPlan``. Planning imports no Numba: the plan's types are whatever the type table holds
(Numba types in dynamic binding, type descriptions in the static generator), and the runtime
turns the plan into a Numba signature and lowering (``numbast.runtime.calls``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ast_canopy.model import Type, TypeKind
from numbast.core.call_plans import (
    ENUM_TRANSPORT,
    BodyFactory,
    CallPlan,
    ShimValue,
    assemble_call,
)
from numbast.core.rows import COPY, HIDDEN_OUT, POINTER
from numbast.planning.diagnostics import BindingError
from numbast.planning.intents import ArgIntent
from numbast.planning.type_rules import (
    TypeTable,
    UnsupportedTypeError,
    shim_type_name,
    value_type_name,
)


def _value_for(cxx_type: Type, intent: ArgIntent, type_table: TypeTable) -> ShimValue:
    referenced = cxx_type.referenced()
    if intent in (ArgIntent.INOUT_PTR, ArgIntent.OUT_PTR):
        # The kernel passes a pointer to the value the C++ reference or pointer designates.
        target = referenced.pointee if referenced.is_pointer else referenced
        if target is None:
            raise BindingError(f"cannot take a pointer intent on {cxx_type.name!r}")
        mapped = type_table.to_type(target)
        # A C++ pointer parameter gets the kernel's pointer value itself.
        return ShimValue(
            mapped, shim_type_name(target), POINTER, target.alignof_, pointer=referenced.is_pointer
        )
    mapped = type_table.to_type(cxx_type)
    if type_table.enum_storage(cxx_type) is not None:
        if intent is not ArgIntent.IN or cxx_type.is_reference and not referenced.is_const:
            raise BindingError(f"enum parameter {cxx_type.name!r} is only bound as an input")
        # Numba holds enum members as int64: the shim takes that and converts.
        return ShimValue(mapped, value_type_name(cxx_type), enum=True)
    mode = HIDDEN_OUT if intent is ArgIntent.OUT_RETURN else COPY
    return ShimValue(
        mapped,
        shim_type_name(cxx_type),
        mode,
        referenced.alignof_,
        rvalue=cxx_type.is_rvalue_reference,
    )


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

    ``object_type`` is (its type in ``type_table``, C++ spelling, alignment) of the object a
    method is called on; it becomes the first shim parameter. ``type_table`` maps the C++
    types. Raises BindingError / UnsupportedTypeError.
    """
    values: list[ShimValue] = []
    if object_type is not None:
        object_mapped, cxx_object, object_align = object_type
        values.append(ShimValue(object_mapped, cxx_object, COPY, object_align))
    values += [_value_for(cxx_type, intent, type_table) for cxx_type, intent in params]
    result = None
    if return_type is not None and not _is_void(return_type):
        result = ShimValue(
            type_table.to_type(return_type),
            shim_type_name(return_type),
            align=return_type.referenced().alignof_,
            enum=type_table.enum_storage(return_type) is not None,
        )
    return assemble_call(shim_name, values, result, body, returns_first_argument)


def _is_void(cxx_type: Type) -> bool:
    return cxx_type.kind is TypeKind.BUILTIN and value_type_name(cxx_type) == "void"


__all__ = ["CallPlan", "ENUM_TRANSPORT", "plan_call", "UnsupportedTypeError"]

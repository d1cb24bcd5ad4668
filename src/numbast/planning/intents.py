"""Argument intents for reference and pointer parameters (Numbast's Function Argument Intents).

- ``in`` (default): the kernel passes a value; the C++ function sees a reference to a copy.
- ``inout_ptr``: the kernel passes a pointer (e.g. ``ffi.from_buffer`` / array element pointer);
  the C++ function reads and writes the pointee.
- ``out_ptr``: as ``inout_ptr``, for pointees the C++ function only writes.
- ``out_return``: the parameter disappears from the Python signature; the value the C++ function
  writes is returned (after the C++ return value, as a tuple when there are several).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from enum import Enum
from typing import Any

from ast_canopy.model import ParamVar, Type, TypeKind
from numbast.planning.diagnostics import BindingError


class ArgIntent(str, Enum):
    IN = "in"
    INOUT_PTR = "inout_ptr"
    OUT_PTR = "out_ptr"
    OUT_RETURN = "out_return"


IntentSpec = Mapping[str | int, str | ArgIntent | Mapping[str, str]]
# Methods' intents as NVIDIA writes them: {"Struct.method": spec} or {"Struct": {"method": spec}}.
MethodIntents = Mapping[str, Any]


def resolve_intents(
    function_name: str, params: Sequence[ParamVar], spec: IntentSpec | None
) -> list[ArgIntent]:
    """One intent per parameter from a spec keyed by parameter name or index.

    Values are intent names or ``{"intent": name}``. Unknown parameters or intents raise
    BindingError naming the function, so typos are not silently ignored.
    """
    intents = [ArgIntent.IN] * len(params)
    for index, intent in given_intents(function_name, params, spec).items():
        intents[index] = intent
    return intents


def given_intents(
    function_name: str, params: Sequence[ParamVar], spec: IntentSpec | None
) -> dict[int, ArgIntent]:
    """The intents ``spec`` gives, by parameter index (see :func:`resolve_intents`)."""
    intents: dict[int, ArgIntent] = {}
    if not spec:
        return intents
    names = [p.name for p in params]
    for key, value in spec.items():
        if isinstance(key, int):
            if not 0 <= key < len(params):
                raise BindingError(
                    f"intent for {function_name}: parameter index {key} out of range "
                    f"(it has {len(params)} parameters)"
                )
            index = key
        elif key in names:
            index = names.index(key)
        else:
            raise BindingError(
                f"intent for {function_name}: no parameter named {key!r} "
                f"(parameters: {', '.join(n or '<unnamed>' for n in names)})"
            )
        raw = value.get("intent") if isinstance(value, Mapping) else value
        try:
            intent = ArgIntent(raw)
        except ValueError:
            allowed = ", ".join(i.value for i in ArgIntent)
            raise BindingError(
                f"intent for {function_name}, parameter {key!r}: {raw!r} is not one of {allowed}"
            ) from None
        param_type = params[index].type_
        if intent is not ArgIntent.IN and not (param_type.is_reference or param_type.is_pointer):
            raise BindingError(
                f"intent {intent.value} for {function_name}, parameter {key!r}: only reference "
                f"or pointer parameters take intents, this one is {param_type.name!r}"
            )
        intents[index] = intent
    return intents


def method_intent_spec(
    arg_intent: MethodIntents | None, struct_names: Iterable[str], method_name: str
) -> IntentSpec | None:
    """The intents given for method ``method_name`` of the struct or class template known by
    ``struct_names``: under ``"Struct.method"`` (NVIDIA's struct form) or ``{"Struct":
    {"method": ...}}`` (its class template form, and the import config's nested tables)."""
    if not arg_intent:
        return None
    for struct_name in struct_names:
        spec = arg_intent.get(f"{struct_name}.{method_name}")
        if spec is not None:
            return spec
        per_class = arg_intent.get(struct_name)
        if isinstance(per_class, Mapping) and isinstance(per_class.get(method_name), Mapping):
            return per_class[method_name]
    return None


def default_member_intent(
    cxx_type: Type, *, constructor: bool, returns_void: bool, own_parameter: bool
) -> ArgIntent:
    """The intent of a member's parameter that no intent was given for.

    A non-const lvalue reference is never passed a copy (a write through it would be lost): an
    array reference (``T (&)[N]``) takes the kernel's array or a pointer; a constructor's
    reference (CUB's ``TempStorage &``, which the object keeps) a pointer; the reference of a
    ``void`` method is an output, returned (``out_return``), unless it is of the method
    template's own parameter type (a functor the method updates: a pointer).
    """
    if not cxx_type.is_lvalue_reference:
        return ArgIntent.IN
    referenced = cxx_type.referenced()
    if referenced.is_const:
        return ArgIntent.IN
    if referenced.kind is TypeKind.ARRAY or constructor:
        return ArgIntent.INOUT_PTR
    if returns_void and not own_parameter:
        return ArgIntent.OUT_RETURN
    return ArgIntent.INOUT_PTR


def member_intents(
    method_name: str,
    params: Sequence[ParamVar],
    spec: IntentSpec | None,
    *,
    constructor: bool,
    returns_void: bool,
    own_parameters: Collection[int] = (),
) -> tuple[str, ...]:
    """The intent of each parameter of a member: as ``spec`` gives it, else the default
    (:func:`default_member_intent`); ``own_parameters`` are the indices of parameters whose
    type is one of a member template's own template parameters."""
    given = given_intents(method_name, params, spec)
    intents = []
    for index, param in enumerate(params):
        intent = given.get(index) or default_member_intent(
            param.type_,
            constructor=constructor,
            returns_void=returns_void,
            own_parameter=index in own_parameters,
        )
        intents.append(intent.value)
    return tuple(intents)


def function_template_intents(
    function_name: str, params: Sequence[ParamVar], spec: IntentSpec | None
) -> tuple[str, ...]:
    """The intent of each parameter of a function template: as ``spec`` gives it; an array
    reference (``T (&items)[N]``, CUB's ``LoadDirectBlocked``) that is not given one takes the
    kernel's array or a pointer (``inout_ptr``: a copy would lose what the function writes);
    empty when every parameter is ``in``."""
    given = given_intents(function_name, params, spec)
    intents = []
    for index, param in enumerate(params):
        intent = given.get(index)
        if intent is None:
            referenced = param.type_.referenced() if param.type_.is_lvalue_reference else None
            is_array = referenced is not None and referenced.kind is TypeKind.ARRAY
            intent = ArgIntent.INOUT_PTR if is_array and not referenced.is_const else ArgIntent.IN
        intents.append(intent.value)
    return tuple(intents) if any(i != ArgIntent.IN.value for i in intents) else ()

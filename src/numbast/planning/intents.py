"""Argument intents for reference and pointer parameters (Numbast's Function Argument Intents).

- ``in`` (default): the kernel passes a value; the C++ function sees a reference to a copy.
- ``inout_ptr``: the kernel passes a pointer (e.g. ``ffi.from_buffer`` / array element pointer);
  the C++ function reads and writes the pointee.
- ``out_ptr``: as ``inout_ptr``, for pointees the C++ function only writes.
- ``out_return``: the parameter disappears from the Python signature; the value the C++ function
  writes is returned (after the C++ return value, as a tuple when there are several).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from enum import Enum

from ast_canopy.model import ParamVar
from numbast.planning.diagnostics import BindingError


class ArgIntent(str, Enum):
    IN = "in"
    INOUT_PTR = "inout_ptr"
    OUT_PTR = "out_ptr"
    OUT_RETURN = "out_return"


IntentSpec = Mapping[str | int, str | ArgIntent | Mapping[str, str]]


def resolve_intents(
    function_name: str, params: Sequence[ParamVar], spec: IntentSpec | None
) -> list[ArgIntent]:
    """One intent per parameter from a spec keyed by parameter name or index.

    Values are intent names or ``{"intent": name}``. Unknown parameters or intents raise
    BindingError naming the function, so typos are not silently ignored.
    """
    intents = [ArgIntent.IN] * len(params)
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

"""Free functions whose parameter is a pointer to a bound struct take the struct itself.

C++ passes state by address: ``curand_init(seed, i, 0, &state)`` and ``curand_uniform(&state)``
update ``state`` through the pointer. Numba values have no address, so a kernel passes the struct
value (``curand_uniform(state)``, ``curand_uniform(states[i])``) and gets the update back: a
rewrite before type inference turns ``r = f(a, s)``, for functions with such a parameter, into

    t = numbast_updating_f(<positions>, a, s); r = t[0]; s = t[1]

(and stores ``s`` back into ``states[i]`` when it was read from there), and the updating call
hands the shim a pointer to a copy of ``s`` and returns the copy after the call. A call that
types as written (a pointer from ``element_pointer(arr, i)``, or an overload taking the struct
by value) is made exactly as written and returns its arguments unchanged.

As for non-const methods (``members``), the tables live in the process-wide registration
state, shared by every copy of the runtime.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from numba.cuda import types
from numba.cuda.core.errors import TypingError
from numba.cuda.typing.templates import AbstractTemplate, signature

from .call_rewrites import (
    called_stub,
    install_call_rewrite,
    new_updating_stub,
    rewrite_into_updating_call,
)
from .calls import stack_slot
from .deferred import run_lookups
from .overloads import DEFAULT_REGISTRIES, Registries
from .state import LOCK, shared_table
from .structs import is_struct_value, struct_pointer_positions  # noqa: F401  (used by callers)

# function stub -> positions of its parameters that are pointers to bound structs (any overload)
_POSITIONS: dict[Callable, set[int]] = shared_table("struct_pointer_positions", dict)
# function stub -> the stub of its updating call
_UPDATERS: dict[Callable, Callable] = shared_table("struct_pointer_updaters", dict)
_REWRITE_INSTALLED: list = shared_table("struct_pointer_rewrite", list)


def _typing_errors() -> tuple[type[Exception], ...]:
    # Function types may come from numba.core (when numba is installed), whose TypingError is
    # not numba-cuda's.
    try:
        from numba.core.errors import TypingError as CoreTypingError
    except ImportError:
        return (TypingError,)
    return (TypingError, CoreTypingError)


_TYPING_ERRORS = _typing_errors()


def add_struct_pointer_parameters(
    function_stub: Callable,
    positions: Iterable[int],
    registries: Registries = DEFAULT_REGISTRIES,
) -> None:
    """Let kernels pass a struct value where ``function_stub`` has a pointer to a bound struct
    (at ``positions`` of one of its overloads) and get the updated value back."""
    _install_rewrite()
    updater = new_updating_stub(function_stub, positions, _POSITIONS, _UPDATERS)
    if updater is None:
        return
    template = type(
        f"numbast_updating_{function_stub.__name__}",
        (_UpdatingCall,),
        {"key": updater, "function_stub": staticmethod(function_stub)},
    )
    registries.typing.register_global(updater, types.Function(template))
    registries.lowering.lower(updater, types.VarArg(types.Any))(_updating_lowering(function_stub))


def expect_struct_pointer_parameters(function_stub: Callable, positions: Iterable[int]) -> None:
    """``function_stub`` has a pointer to a bound struct at ``positions`` of an overload that
    waits for the stub's first lookup (``deferred.LazyOverloads``). This rewrite runs
    before Numba looks anything up, so it learns of such functions now; it runs their
    registrations (which make the updating call) when it first meets a call of one."""
    _install_rewrite()
    with LOCK:
        _POSITIONS.setdefault(function_stub, set()).update(positions)


# -- typing and lowering of the updating call -------------------------------------------------


def _signature_for(context, function_stub: Callable, mask: int, args: Sequence[types.Type]):
    """:func:`signature_with_struct_addresses` in numba-cuda's typing."""
    function_type = context.resolve_value_type(function_stub)
    return signature_with_struct_addresses(
        lambda trial: _resolve(context, function_type, trial), types.CPointer, mask, args
    )


def signature_with_struct_addresses(
    resolve: Callable[[Sequence[Any]], Any],
    pointer: Callable[[Any], Any],
    mask: int,
    args: Sequence[Any],
) -> tuple[Any, tuple[int, ...], list[int]]:
    """(signature of the C++ call or None, positions where a struct value is passed by address,
    positions whose value the updating call returns): the call typed as written (``resolve``),
    else with ``pointer(struct type)`` for each struct at the positions ``mask`` names. Shared
    with numba-cuda-mlir's backend, in its own types."""
    positions = [p for p in range(len(args)) if mask >> p & 1]
    sig = resolve(args)
    if sig is not None:
        return sig, (), positions
    substituted = tuple(p for p in positions if is_struct_value(args[p]))
    if not substituted:
        return None, (), positions
    trial = [pointer(a) if p in substituted else a for p, a in enumerate(args)]
    return resolve(trial), substituted, positions


def no_overload_message(function_stub: Callable, actual: Sequence[Any], advice: str) -> str:
    """Why an updating call does not type, with the function's C++ declarations."""
    declarations = getattr(function_stub, "_numbast_declarations_", ())
    listed = "".join(f"\n    {d}" for d in declarations)
    return (
        f"no overload of {function_stub._numbast_qual_name_} takes "
        f"({', '.join(map(str, actual))}); a pointer parameter to a bound struct takes "
        f"{advice}. Declarations:{listed}"
    )


def _resolve(context, function_type: types.Type, args: Sequence[types.Type]):
    try:
        return context.resolve_function_type(function_type, tuple(args), {})
    except _TYPING_ERRORS:
        return None


class _UpdatingCall(AbstractTemplate):
    function_stub: Callable

    def generic(self, args, kws):
        if kws or not args or not isinstance(args[0], types.IntegerLiteral):
            return None  # the positions arrive as a literal: typed again with literals
        mask, actual = args[0].literal_value, [types.unliteral(a) for a in args[1:]]
        sig, _substituted, positions = _signature_for(
            self.context, self.function_stub, mask, actual
        )
        if sig is None:
            advice = "the struct (updated in place) or a pointer to it (numbast.element_pointer)"
            raise TypingError(no_overload_message(self.function_stub, actual, advice))
        outputs = types.Tuple((sig.return_type, *(actual[p] for p in positions)))
        return signature(outputs, args[0], *actual)


def _updating_lowering(function_stub: Callable) -> Callable:
    def lower_updating_call(context, builder, sig, args):
        typing = context.typing_context
        mask, actual = sig.args[0].literal_value, sig.args[1:]
        inner, substituted, positions = _signature_for(typing, function_stub, mask, actual)
        slots = {}
        values = []
        arguments = zip(args[1:], actual, inner.args, strict=True)
        for index, (value, given, formal) in enumerate(arguments):
            if index in substituted:
                slots[index] = _copy_to_stack(context, builder, given, value)
                values.append(slots[index])
            else:
                values.append(context.cast(builder, value, given, formal))
        function_type = typing.resolve_value_type(function_stub)
        result = context.get_function(function_type, inner)(builder, values)
        if inner.return_type == types.none:
            result = context.get_dummy_value()
        outputs = [
            _load_from_stack(context, builder, actual[p], slots[p]) if p in slots else args[1 + p]
            for p in positions
        ]
        return context.make_tuple(builder, sig.return_type, [result, *outputs])

    return lower_updating_call


def _copy_to_stack(context, builder, numba_type: types.Type, value):
    """A stack copy of ``value`` in its in-memory form (what a C++ pointer points to)."""
    model = context.data_model_manager[numba_type]
    data = model.as_data(builder, value)
    slot = stack_slot(context, builder, data.type, getattr(numba_type, "alignof_", 0))
    builder.store(data, slot)
    return slot


def _load_from_stack(context, builder, numba_type: types.Type, slot):
    return context.data_model_manager[numba_type].from_data(builder, builder.load(slot))


# -- the rewrite --------------------------------------------------------------------------------


def _install_rewrite() -> None:
    install_call_rewrite(
        _REWRITE_INSTALLED, "RewriteStructPointerArguments", _pick_call, _call_updater
    )


def _pick_call(call, known: dict[str, Any], definitions: dict[str, Any]):
    """The function stub a call calls, when it has struct pointer parameters."""
    callee = called_stub(call, known, definitions)
    if callee is None or not _POSITIONS.get(callee):
        return None
    if callee not in _UPDATERS:  # expected: its overloads wait for a lookup
        run_lookups([callee])
    return callee if callee in _UPDATERS else None


def _call_updater(block, scope, inst, stub, definitions: dict[str, Any]) -> None:
    """``r = f(a, s)`` -> ``t = numbast_updating_f(<positions>, a, s); r = t[0]; s = t[1]``."""
    rewrite_into_updating_call(block, scope, inst, _UPDATERS[stub], _POSITIONS[stub], definitions)

"""Functions whose parameter is a pointer to a bound struct take the struct itself in
numba-cuda-mlir kernels too: ``curand_init(seed, i, 0, state)`` on a local ``state``.

numba-cuda's counterpart (``numbast.runtime.struct_pointers``) says why: Numba values have no
address, so a kernel passes the struct and gets the update back. The same rewrite runs before
type inference in numba-cuda-mlir's copy of Numba's front end (``call_rewrites``, with that
copy's IR): ``r = f(a, s)`` becomes

    t = numbast_updating_f(<positions>, a, s); r = t[0]; s = t[1]

The updating call's lowering copies ``s`` to a stack slot at the struct's C++ alignment, calls
the overload taking the pointer with the slot's address (through that overload's own lowering:
the same shim as numba-cuda's) and returns the copy as it is after the call. A call that types
as written (an overload taking the struct by value) is made as written and returns its
arguments unchanged.

Every function's registration here is eager (``registration``), so the positions are known
before any kernel compiles. The tables live in the process-wide registration state.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from numba_cuda_mlir import types as mlir_types
from numba_cuda_mlir._mlir import ir
from numba_cuda_mlir.extending import lowering_registry, typing_registry
from numba_cuda_mlir.numba_cuda.core.errors import TypingError
from numba_cuda_mlir.numba_cuda.types import unliteral
from numba_cuda_mlir.numba_cuda.typing.templates import AbstractTemplate, signature

from ..runtime.call_rewrites import (
    called_stub,
    install_call_rewrite,
    new_updating_stub,
    rewrite_into_updating_call,
)
from ..runtime.state import shared_table
from ..runtime.struct_pointers import no_overload_message, signature_with_struct_addresses
from .calls import load_value, stack_slot, store_value
from .overloads import OverloadSet, find_overload_set

MLIR_CORE = "numba_cuda_mlir.numba_cuda.core"

# function stub -> positions of its parameters that are pointers to bound structs (any overload)
_POSITIONS: dict[Callable, set[int]] = shared_table("mlir_struct_pointer_positions", dict)
# function stub -> the stub of its updating call
_UPDATERS: dict[Callable, Callable] = shared_table("mlir_struct_pointer_updaters", dict)
_REWRITE_INSTALLED: list = shared_table("mlir_struct_pointer_rewrite", list)


def add_struct_pointer_parameters(function_stub: Callable, positions: Iterable[int]) -> None:
    """Let numba-cuda-mlir kernels pass a struct where ``function_stub`` has a pointer to a
    bound struct (at ``positions`` of one of its overloads) and get the updated struct back."""
    install_call_rewrite(
        _REWRITE_INSTALLED, "RewriteStructPointerArgumentsMlir", _pick_call, _call_updater,
        core=MLIR_CORE,
    )  # fmt: skip
    updater = new_updating_stub(function_stub, positions, _POSITIONS, _UPDATERS)
    if updater is None:
        return
    template = type(
        f"numbast_mlir_updating_{function_stub.__name__}",
        (_UpdatingCall,),
        {"key": updater, "function_stub": staticmethod(function_stub)},
    )
    typing_registry.register_global(updater, mlir_types.Function(template))
    lowering_registry.lower(updater, mlir_types.VarArg(mlir_types.Any))(
        _updating_lowering(function_stub)
    )


def _signature_for(typing_context, overloads: OverloadSet, mask: int, args: Sequence[Any]):
    """(the overload's signature or None, positions where a struct is passed by address,
    positions whose value the updating call returns), as numba-cuda's typing has them."""
    return signature_with_struct_addresses(
        lambda trial: overloads.resolve(typing_context, list(trial)), mlir_types.CPointer,
        mask, args,
    )  # fmt: skip


class _UpdatingCall(AbstractTemplate):
    function_stub: Callable

    def generic(self, args, kws):
        if kws or not args or not isinstance(args[0], mlir_types.IntegerLiteral):
            return None  # the positions arrive as a literal: typed again with literals
        mask, actual = args[0].literal_value, [unliteral(a) for a in args[1:]]
        overloads = find_overload_set(self.function_stub)
        sig = None
        if overloads is not None:
            sig, _substituted, positions = _signature_for(self.context, overloads, mask, actual)
        if sig is None:  # numba-cuda-mlir kernels have no struct arrays to point into
            advice = "the struct (updated in place) in numba-cuda-mlir kernels"
            raise TypingError(no_overload_message(self.function_stub, actual, advice))
        outputs = mlir_types.Tuple((sig.return_type, *(actual[p] for p in positions)))
        return signature(outputs, args[0], *actual)


def _updating_lowering(function_stub: Callable) -> Callable:
    def lower_updating_call(builder, target, args, kws) -> None:
        overloads = find_overload_set(function_stub)
        mask = builder.get_numba_type(args[0].name).literal_value
        given = [builder.get_numba_type(arg.name) for arg in args[1:]]
        actual = [unliteral(t) for t in given]
        typing_context = builder.context.typing_context
        inner, substituted, positions = _signature_for(typing_context, overloads, mask, actual)
        values, passed, slots = [], [], {}
        for index, arg in enumerate(args[1:]):
            value = builder.load_var(arg)
            if index in substituted:  # the struct's address: a copy at its C++ alignment
                slots[index] = stack_slot(builder, actual[index], None)
                store_value(builder, actual[index], value, slots[index])
                values.append(slots[index])
                passed.append(inner.args[index])
            else:
                values.append(value)
                passed.append(given[index])
        result = overloads.lower_values(builder, inner, values, passed)
        if result is None:  # a void function: numba-cuda-mlir's value of None in a tuple
            result = ir.NoneType.get()
        outputs = [
            load_value(builder, actual[p], slots[p]) if p in slots else values[p] for p in positions
        ]
        builder.store_var(target, (result, *outputs))

    return lower_updating_call


# -- the rewrite --------------------------------------------------------------------------------


def _pick_call(call, known: dict[str, Any], definitions: dict[str, Any]):
    """The function stub a call calls, when it has struct pointer parameters."""
    callee = called_stub(call, known, definitions)
    return callee if callee is not None and callee in _UPDATERS else None


def _call_updater(block, scope, inst, stub, definitions: dict[str, Any]) -> None:
    rewrite_into_updating_call(
        block, scope, inst, _UPDATERS[stub], _POSITIONS[stub], definitions, core=MLIR_CORE
    )

"""Lowering of a call to a shim: the one calling convention all bound callables share.

Values the kernel passes by value are copied into stack slots aligned as C++ requires, and the
shim receives pointers to them; pointer arguments (``inout_ptr`` / ``out_ptr`` intents) are
passed through; hidden ``out_return`` slots are allocated here and read back after the call.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum

from llvmlite import ir
from numba.cuda import cgutils, types


class PassMode(str, Enum):
    COPY = "copy"  # the kernel passes a value; the shim gets a pointer to a copy
    POINTER = "pointer"  # the kernel passes a pointer; the shim gets it as is
    HIDDEN_OUT = "hidden_out"  # not a kernel argument; the shim writes it, the call returns it


@dataclass(frozen=True)
class ShimArgument:
    numba_type: types.Type  # the value's type (for POINTER: the pointee type)
    mode: PassMode = PassMode.COPY
    align: int | None = None  # C++ alignment of the value, when it exceeds Numba's


@dataclass
class ShimCallResult:
    value: ir.Value | None  # the shim's result, None for void
    hidden_outputs: list[ir.Value]  # values written to HIDDEN_OUT slots, in order
    slots: list[ir.Value]  # the pointer passed for each shim argument, in order


def _stack_slot(context, builder: ir.IRBuilder, numba_type: types.Type, align: int | None):
    llvm_type = context.get_value_type(numba_type)
    slot = cgutils.alloca_once(builder, llvm_type)
    abi_align = context.get_abi_alignment(llvm_type)
    slot.align = max(abi_align, align or 0)
    return slot


def call_shim(
    context,
    builder: ir.IRBuilder,
    shim_name: str,
    return_type: types.Type | None,
    arguments: Sequence[ShimArgument],
    values: Sequence[ir.Value],
    return_align: int | None = None,
) -> ShimCallResult:
    """Emit ``shim_name(&ret, &arg0, ...)`` and return what it produced.

    ``values`` holds one LLVM value for each argument that is not HIDDEN_OUT, in order.
    """
    slots: list[ir.Value] = []
    hidden_slots: list[tuple[ir.Value, types.Type]] = []
    given = iter(values)
    for argument in arguments:
        if argument.mode is PassMode.COPY:
            slot = _stack_slot(context, builder, argument.numba_type, argument.align)
            builder.store(next(given), slot)
        elif argument.mode is PassMode.POINTER:
            slot = next(given)
            wanted = context.get_value_type(argument.numba_type).as_pointer()
            if slot.type != wanted:
                slot = builder.bitcast(slot, wanted)
        else:
            slot = _stack_slot(context, builder, argument.numba_type, argument.align)
            builder.store(context.get_constant_null(argument.numba_type), slot)
            hidden_slots.append((slot, argument.numba_type))
        slots.append(slot)

    if return_type is None or return_type == types.void:
        result_slot = ir.Constant(ir.IntType(8).as_pointer(), None)
    else:
        result_slot = _stack_slot(context, builder, return_type, return_align)
    function_type = ir.FunctionType(ir.IntType(32), [result_slot.type] + [s.type for s in slots])
    function = cgutils.get_or_insert_function(builder.module, function_type, shim_name)
    builder.call(function, [result_slot] + slots)

    value = None if return_type is None or return_type == types.void else builder.load(result_slot)
    return ShimCallResult(
        value=value,
        hidden_outputs=[builder.load(slot) for slot, _ in hidden_slots],
        slots=slots,
    )

"""One bound C++ call: its Numba signature and the lowering that calls its shim.

Every shim has the same shape, ``int shim(R *result, T0 *a0, T1 *a1, ...)``: arguments and the
result cross by pointer, so one routine lowers every function, method, constructor, conversion
and operator.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from llvmlite import ir
from numba.cuda import cgutils, types
from numba.cuda.typing.templates import Signature, signature

from ..core.rows import COPY, HIDDEN_OUT, POINTER, ArgumentRow


class Call:
    """A call row with its type and shim indices resolved.

    Its signature is written in ``numba_types`` with ``make_signature``: numba-cuda's; another
    backend's subclass names its own (``numbast.runtime_mlir``)."""

    numba_types: Any = types
    make_signature: Callable[..., Signature] = staticmethod(signature)

    __slots__ = (
        "shim_name",
        "shim_text",
        "arguments",
        "cxx_result",
        "result_align",
        "returns_first_argument",
    )

    def __init__(self, row: Sequence, types_: Sequence[Any], shims: Sequence[tuple[str, str]]):
        """``row`` is a CallRow; ``types_`` and ``shims`` are the tables its indices refer to."""
        shim, arguments, result, result_align, returns_first = row
        self.shim_name, self.shim_text = shims[shim]
        self.arguments = tuple(ArgumentRow(types_[t], mode, align) for t, mode, align in arguments)
        self.cxx_result = None if result < 0 else types_[result]  # None: void
        self.result_align = result_align
        self.returns_first_argument = returns_first

    @classmethod
    def from_plan(cls, plan: Any) -> Call:
        """The call a CallPlan describes (its types already resolved): for calls planned while
        Numba types a kernel, which never go through a module's tables."""
        call = cls.__new__(cls)
        call.shim_name, call.shim_text = plan.shim_name, plan.shim_text
        call.arguments = tuple(ArgumentRow(*argument) for argument in plan.arguments)
        call.cxx_result = plan.cxx_result
        call.result_align = plan.result_align
        call.returns_first_argument = plan.returns_first_argument
        return call

    @property
    def visible_args(self) -> tuple[types.Type, ...]:
        """The argument types a kernel passes (hidden outputs are not passed)."""
        return tuple(
            self.numba_types.CPointer(a.type) if a.mode == POINTER else a.type
            for a in self.arguments
            if a.mode != HIDDEN_OUT
        )

    @property
    def numba_return_type(self) -> types.Type:
        """What the call returns to Numba: the C++ result, then out_return values."""
        if self.returns_first_argument:
            return self.arguments[0].type
        outputs = [self.cxx_result] if self.cxx_result is not None else []
        outputs += [a.type for a in self.arguments if a.mode == HIDDEN_OUT]
        if not outputs:
            return self.numba_types.none
        return outputs[0] if len(outputs) == 1 else self.numba_types.Tuple(outputs)

    def signature(self, receiver: types.Type | None = None) -> Signature:
        return self.make_signature(self.numba_return_type, *self.visible_args, recvr=receiver)

    def lowering(self, library: Any, returns_updated_object: bool = False) -> Callable:
        """A Numba lowering that records the shim with ``library`` and calls it.

        ``returns_updated_object`` (non-const methods): return ``(result, object after the
        call)`` so that the caller can store the object back where it came from. ``library``
        is the ShimLibrary the shim is compiled from (``write_to_shim`` and ``link_object``).
        """
        call = self
        library.declare_shim(call.shim_text, call.shim_name)
        visible = self.visible_args
        return_type = self.numba_return_type

        def lower_bound_call(context, builder, sig, args):
            library.write_to_shim(call.shim_text, call.shim_name)
            context.active_code_library.add_linking_file(library.link_object_for(call.shim_name))
            values = [
                context.cast(builder, value, actual, formal)
                for value, actual, formal in zip(args, sig.args, visible, strict=True)
            ]
            result, outputs, slots = _call_shim(context, builder, call, values)
            if call.returns_first_argument:
                return builder.load(slots[0])
            produced = ([result] if call.cxx_result is not None else []) + outputs
            if returns_updated_object:
                value = produced[0] if produced else context.get_dummy_value()
                pair_type = types.Tuple((return_type, call.arguments[0].type))
                return context.make_tuple(builder, pair_type, [value, builder.load(slots[0])])
            if not produced:
                return context.get_dummy_value()
            if len(produced) == 1:
                return produced[0]
            return context.make_tuple(builder, return_type, produced)

        return lower_bound_call


# (id of a target data layout, LLVM type as text) -> the type's ABI alignment in that layout
_ABI_ALIGNMENTS: dict[tuple[int, str], int] = {}


def stack_slot(context, builder, llvm_type: ir.Type, align: int | None):
    """A stack slot for ``llvm_type``, aligned for it and at least to ``align`` (C++'s)."""
    slot = cgutils.alloca_once(builder, llvm_type)
    # Asked once per type: llvmlite answers by parsing a module declaring a global of the type
    # (~0.3 ms; a kernel's bound calls ask for each argument). The global ir context names each
    # identified struct once, so a type's text says its layout.
    key = (id(context.target_data), str(llvm_type))
    if key not in _ABI_ALIGNMENTS:
        _ABI_ALIGNMENTS[key] = context.get_abi_alignment(llvm_type)
    slot.align = max(_ABI_ALIGNMENTS[key], align or 0)
    return slot


def _call_shim(context, builder, call: Call, values):
    """Emit ``shim(&result, &arg0, ...)``; returns (result, hidden outputs, argument slots).

    ``values`` holds one LLVM value per argument that is not HIDDEN_OUT, in order.
    """
    slots, hidden = [], []
    given = iter(values)
    for argument in call.arguments:
        if argument.mode == COPY:
            slot = stack_slot(
                context, builder, context.get_value_type(argument.type), argument.align
            )
            builder.store(next(given), slot)
        elif argument.mode == POINTER:
            slot = next(given)
            wanted = context.get_value_type(argument.type).as_pointer()
            if slot.type != wanted:
                slot = builder.bitcast(slot, wanted)
        else:
            slot = stack_slot(
                context, builder, context.get_value_type(argument.type), argument.align
            )
            builder.store(context.get_constant_null(argument.type), slot)
            hidden.append(slot)
        slots.append(slot)
    if call.cxx_result is None:
        result_slot = ir.Constant(ir.IntType(8).as_pointer(), None)
    else:
        result_slot = stack_slot(
            context, builder, context.get_value_type(call.cxx_result), call.result_align
        )
    function_type = ir.FunctionType(ir.IntType(32), [result_slot.type] + [s.type for s in slots])
    function = cgutils.get_or_insert_function(builder.module, function_type, call.shim_name)
    builder.call(function, [result_slot] + slots)
    result = None if call.cxx_result is None else builder.load(result_slot)
    return result, [builder.load(slot) for slot in hidden], slots

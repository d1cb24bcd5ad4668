"""One bound call lowered to MLIR: ``shim(&result, &arg0, ...)``, as numba-cuda's lowering
(``numbast.runtime.calls``) emits it in LLVM IR.

Every shim has the shape ``int shim(R *result, T0 *a0, ...)``: each argument crosses in a stack
slot of its C++ layout (numba-cuda-mlir's data type of the value, at the C++ alignment), pointer
arguments pass through, hidden outputs are slots the shim writes. numba-cuda-mlir lowers a call
from the variables of the call site, not from values already converted to the overload's
parameter types (as numba-cuda does), so the lowering converts each argument itself
(:func:`convert`), including the implicit conversions into bound structs.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from numba_cuda_mlir import types as mlir_types
from numba_cuda_mlir._mlir import ir
from numba_cuda_mlir._mlir.dialects import func, llvm
from numba_cuda_mlir.lowering_utilities import get_or_insert_function, i64_of
from numba_cuda_mlir.models import mlir_data_manager
from numba_cuda_mlir.numba_cuda.types import unliteral
from numba_cuda_mlir.numba_cuda.typing.templates import signature

from ..core.rows import COPY, POINTER, ArgumentRow
from ..runtime.calls import Call
from .links import link_object
from .type_translation import mlir_type

# (builder, target variable or None, argument values) -> the call's result value
Lowering = Callable[[Any, Any, Sequence[Any]], Any]


class MlirCall(Call):
    """A bound call with numba-cuda-mlir types (translated from the numba-cuda call row)."""

    numba_types = mlir_types
    make_signature = staticmethod(signature)

    @classmethod
    def of(cls, call: Call) -> MlirCall:
        translated = cls.__new__(cls)
        translated.shim_name, translated.shim_text = call.shim_name, call.shim_text
        translated.arguments = tuple(
            ArgumentRow(mlir_type(a.type), a.mode, a.align) for a in call.arguments
        )
        translated.cxx_result = None if call.cxx_result is None else mlir_type(call.cxx_result)
        translated.result_align = call.result_align
        translated.returns_first_argument = call.returns_first_argument
        return translated

    def lowering(self, library: Any, returns_updated_object: bool = False) -> Lowering:
        """``lower(builder, values)`` -> the call's value (a tuple for several outputs; with
        ``returns_updated_object``, ``(result, the object after the call)``), ``values`` being
        the visible arguments already of the types of :attr:`visible_args`."""
        call = self
        library.declare_shim(call.shim_text, call.shim_name)

        def lower_bound_call(builder, values: Sequence[Any]) -> Any:
            library.write_to_shim(call.shim_text, call.shim_name)
            arch = builder.metadata["gpu_target"]["linker_arch"]
            builder.link_external_item(link_object(library, call.shim_name, arch))
            result, outputs, slots = _call_shim(builder, call, values)
            if call.returns_first_argument:
                return load_value(builder, call.arguments[0].type, slots[0])
            produced = ([result] if call.cxx_result is not None else []) + outputs
            if returns_updated_object:
                value = produced[0] if produced else None
                return (value, load_value(builder, call.arguments[0].type, slots[0]))
            if not produced:
                return None
            return produced[0] if len(produced) == 1 else tuple(produced)

        return lower_bound_call


def _model(numba_type: Any) -> Any:
    return mlir_data_manager.lookup(numba_type)


def stack_slot(builder, numba_type: Any, align: int | None) -> Any:
    data_type = _model(numba_type).get_data_type()
    wanted = max(align or 1, getattr(numba_type, "alignof_", None) or 1)
    with builder.alloca_insertion_point():  # in the entry block: once per call site, not loop
        return llvm.alloca(llvm.PointerType.get(), i64_of(1), data_type, alignment=wanted)


def store_value(builder, numba_type: Any, value: Any, slot: Any) -> None:
    llvm.store(_model(numba_type).as_data(builder, value), slot)


def load_value(builder, numba_type: Any, slot: Any) -> Any:
    model = _model(numba_type)
    return model.from_data(builder, llvm.load(model.get_data_type(), slot))


def _call_shim(builder, call: MlirCall, values: Sequence[Any]):
    """Emit ``shim(&result, &arg0, ...)``; returns (result, hidden outputs, argument slots)."""
    slots, hidden = [], []
    given = iter(values)
    for argument in call.arguments:
        if argument.mode == COPY:
            slot = stack_slot(builder, argument.type, argument.align)
            store_value(builder, argument.type, next(given), slot)
        elif argument.mode == POINTER:
            slot = next(given)
        else:
            slot = stack_slot(builder, argument.type, argument.align)
            zero = llvm.mlir_zero(_model(argument.type).get_data_type())
            llvm.store(zero, slot)
            hidden.append((argument.type, slot))
        slots.append(slot)
    pointer = llvm.PointerType.get()
    if call.cxx_result is None:
        result_slot = llvm.mlir_zero(pointer)
    else:
        result_slot = stack_slot(builder, call.cxx_result, call.result_align)
    status = ir.IntegerType.get_signless(32)
    function_type = ir.FunctionType.get([pointer] * (1 + len(slots)), [status])
    function = get_or_insert_function(call.shim_name, function_type, builder.mlir_gpu_module)
    func.call([status], function.name.value, [result_slot, *slots])
    result = None if call.cxx_result is None else load_value(builder, call.cxx_result, result_slot)
    return result, [load_value(builder, t, slot) for t, slot in hidden], slots


def convert(builder, value: Any, actual: Any, formal: Any) -> Any:
    """``value`` of type ``actual`` as ``formal``: numba-cuda-mlir's casts (numbers, and the
    conversions bindings register), and into a bound struct through a non-explicit converting
    constructor after one standard conversion (a float64 to ``__half(float)``), as C++ and the
    typing (``can_convert_from``) allow."""
    actual = unliteral(actual) if actual != formal else actual
    if actual == formal:
        return value
    sources = getattr(formal, "implicit_from", ())
    if sources and actual not in sources:
        typing_context = builder.context.typing_context
        for source in sources:
            if typing_context.can_convert(actual, source) is not None:
                value = builder.lower_cast(actual, source, value)
                actual = source
                break
    return builder.lower_cast(actual, formal, value)

"""Plan and lower one bound C++ callable: its Numba signature, its shim and its lowering.

Free functions, methods, constructors, conversion operators and operators all reduce to a
``CallPlan``: which arguments the kernel passes and how, what the shim looks like, and what the
call returns to Numba.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from numba.cuda import types
from numba.cuda.typing.templates import Signature, signature

from ast_canopy.model import Type, TypeKind
from numbast.callconv import PassMode, ShimArgument, call_shim
from numbast.diagnostics import BindingError
from numbast.intents import ArgIntent
from numbast.shim_writer import ShimWriterBase
from numbast.shims import ShimParam, render_shim
from numbast.type_mapping import UnsupportedTypeError, to_numba_type, value_type_name

# How a shim body is produced from its parameters: (params, returns_value) -> C++ statement.
BodyFactory = Callable[[Sequence[ShimParam], bool], str]


@dataclass(frozen=True)
class CallPlan:
    shim_name: str
    shim_text: str
    arguments: tuple[ShimArgument, ...]  # one per shim parameter, object first for methods
    visible_args: tuple[types.Type, ...]  # what the kernel passes
    cxx_result: types.Type | None  # the C++ return value's Numba type; None for void
    result_align: int | None
    returns_first_argument: bool = False  # compound assignment: return the updated operand

    @property
    def numba_return_type(self) -> types.Type:
        outputs = self._output_types()
        if not outputs:
            return types.none
        if len(outputs) == 1:
            return outputs[0]
        return types.Tuple(outputs)

    def _output_types(self) -> list[types.Type]:
        if self.returns_first_argument:
            return [self.arguments[0].numba_type]
        outputs = [self.cxx_result] if self.cxx_result is not None else []
        outputs += [a.numba_type for a in self.arguments if a.mode is PassMode.HIDDEN_OUT]
        return outputs

    def signature(self, receiver: types.Type | None = None) -> Signature:
        return signature(self.numba_return_type, *self.visible_args, recvr=receiver)

    def lowering(self, shim_writer: ShimWriterBase):
        """A Numba lowering function that writes the shim (once) and calls it."""
        plan = self

        def lower_bound_call(context, builder, sig, args):
            shim_writer.write_to_shim(plan.shim_text, plan.shim_name)
            context.active_code_library.add_linking_file(shim_writer.link_object())
            values = [
                context.cast(builder, value, actual, formal)
                for value, actual, formal in zip(args, sig.args, plan.visible_args, strict=True)
            ]
            result = call_shim(
                context,
                builder,
                plan.shim_name,
                plan.cxx_result,
                plan.arguments,
                values,
                return_align=plan.result_align,
            )
            if plan.returns_first_argument:
                return builder.load(result.slots[0])
            outputs = ([result.value] if plan.cxx_result is not None else []) + list(
                result.hidden_outputs
            )
            if not outputs:
                return context.get_dummy_value()
            if len(outputs) == 1:
                return outputs[0]
            return context.make_tuple(builder, plan.numba_return_type, outputs)

        return lower_bound_call


def _argument_for(cxx_type: Type, intent: ArgIntent) -> tuple[ShimArgument, ShimParam]:
    referenced = cxx_type.referenced()
    if intent in (ArgIntent.INOUT_PTR, ArgIntent.OUT_PTR):
        # The kernel passes a pointer to the value the C++ reference or pointer designates.
        target = referenced.pointee if referenced.is_pointer else referenced
        if target is None:
            raise BindingError(f"cannot take a pointer intent on {cxx_type.name!r}")
        numba_type = to_numba_type(target)
        shim_param = ShimParam(value_type_name(target))
        if referenced.is_pointer:
            # The C++ parameter is itself a pointer: pass the pointer value through.
            return ShimArgument(numba_type, PassMode.POINTER, target.alignof_), _PointerParam(
                shim_param.value_type
            )
        return ShimArgument(numba_type, PassMode.POINTER, target.alignof_), shim_param
    numba_type = to_numba_type(cxx_type)
    mode = PassMode.HIDDEN_OUT if intent is ArgIntent.OUT_RETURN else PassMode.COPY
    shim_param = ShimParam(value_type_name(cxx_type), rvalue=cxx_type.is_rvalue_reference)
    return ShimArgument(numba_type, mode, referenced.alignof_), shim_param


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
    object_type: tuple[types.Type, str, int | None] | None = None,
    returns_first_argument: bool = False,
) -> CallPlan:
    """Build the plan for a callable with C++ ``params`` and ``return_type``.

    ``object_type`` is (Numba type, C++ spelling, alignment) of the object a method is called
    on; it becomes the first shim parameter. Raises BindingError / UnsupportedTypeError.
    """
    arguments: list[ShimArgument] = []
    shim_params: list[ShimParam] = []
    if object_type is not None:
        numba_object, cxx_object, object_align = object_type
        arguments.append(ShimArgument(numba_object, PassMode.COPY, object_align))
        shim_params.append(ShimParam(cxx_object))
    for cxx_type, intent in params:
        argument, shim_param = _argument_for(cxx_type, intent)
        arguments.append(argument)
        shim_params.append(shim_param)

    returns_value = return_type is not None and not _is_void(return_type)
    cxx_result = to_numba_type(return_type) if returns_value else None
    result_spelling = value_type_name(return_type) if returns_value else None
    text = render_shim(shim_name, result_spelling, shim_params, body(shim_params, returns_value))
    visible = tuple(
        types.CPointer(a.numba_type) if a.mode is PassMode.POINTER else a.numba_type
        for a in arguments
        if a.mode is not PassMode.HIDDEN_OUT
    )
    return CallPlan(
        shim_name=shim_name,
        shim_text=text,
        arguments=tuple(arguments),
        visible_args=visible,
        cxx_result=cxx_result,
        result_align=return_type.referenced().alignof_ if returns_value else None,
        returns_first_argument=returns_first_argument,
    )


def _is_void(cxx_type: Type) -> bool:
    return cxx_type.kind is TypeKind.BUILTIN and value_type_name(cxx_type) == "void"


__all__ = ["CallPlan", "plan_call", "UnsupportedTypeError"]

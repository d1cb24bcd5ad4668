"""What bindings do inside Numba at registration and lowering time, with only numba-cuda.

This module is the run-time half of every binding. Dynamic binding (``bind_cxx_*``) calls it
directly; the static generator copies its source into each generated module, so generated
bindings behave exactly like dynamic ones while importing nothing but numba-cuda. Keep it
self-contained: no imports from numbast, ast_canopy or clang, and no module-level side effects
beyond defining names.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable, Hashable, Sequence
from types import ModuleType
from typing import Any, NamedTuple

from llvmlite import ir
from numba.cuda import cgutils, types
from numba.cuda.cudadecl import registry as default_typing_registry
from numba.cuda.cudaimpl import registry as default_lowering_registry
from numba.cuda.datamodel.models import PrimitiveModel, StructModel
from numba.cuda.extending import as_numba_type, lower_cast, make_attribute_wrapper, register_model
from numba.cuda.typeconv import Conversion
from numba.cuda.typing.templates import (
    AttributeTemplate,
    ConcreteTemplate,
    Signature,
    signature,
)

# How an argument reaches the shim (every shim parameter is a pointer).
COPY = "copy"  # the kernel passes a value; the shim gets a pointer to an aligned copy
POINTER = "pointer"  # the kernel passes a pointer (inout_ptr / out_ptr); passed through
HIDDEN_OUT = "hidden_out"  # out_return: not a kernel argument; written by the shim, returned


class ShimArgument(NamedTuple):
    numba_type: types.Type  # the value's type (for POINTER: the pointee's type)
    mode: str = COPY
    align: int | None = None  # the C++ alignment when it exceeds Numba's


# -- the call ---------------------------------------------------------------------------------


def _stack_slot(context, builder, numba_type: types.Type, align: int | None):
    llvm_type = context.get_value_type(numba_type)
    slot = cgutils.alloca_once(builder, llvm_type)
    slot.align = max(context.get_abi_alignment(llvm_type), align or 0)
    return slot


def call_shim(context, builder, shim_name, result_type, arguments, values, result_align=None):
    """Emit ``shim_name(&result, &arg0, ...)``; returns (result, hidden outputs, arg pointers).

    ``values`` holds one LLVM value per argument that is not HIDDEN_OUT, in order.
    """
    slots, hidden = [], []
    given = iter(values)
    for argument in arguments:
        if argument.mode == COPY:
            slot = _stack_slot(context, builder, argument.numba_type, argument.align)
            builder.store(next(given), slot)
        elif argument.mode == POINTER:
            slot = next(given)
            wanted = context.get_value_type(argument.numba_type).as_pointer()
            if slot.type != wanted:
                slot = builder.bitcast(slot, wanted)
        else:
            slot = _stack_slot(context, builder, argument.numba_type, argument.align)
            builder.store(context.get_constant_null(argument.numba_type), slot)
            hidden.append(slot)
        slots.append(slot)
    if result_type is None:
        result_slot = ir.Constant(ir.IntType(8).as_pointer(), None)
    else:
        result_slot = _stack_slot(context, builder, result_type, result_align)
    function_type = ir.FunctionType(ir.IntType(32), [result_slot.type] + [s.type for s in slots])
    function = cgutils.get_or_insert_function(builder.module, function_type, shim_name)
    builder.call(function, [result_slot] + slots)
    result = None if result_type is None else builder.load(result_slot)
    return result, [builder.load(slot) for slot in hidden], slots


def call_return_type(arguments, result_type, returns_first_argument=False) -> types.Type:
    """What a bound call returns to Numba: the C++ result, then out_return values."""
    if returns_first_argument:
        return arguments[0].numba_type
    outputs = [result_type] if result_type is not None else []
    outputs += [a.numba_type for a in arguments if a.mode == HIDDEN_OUT]
    if not outputs:
        return types.none
    return outputs[0] if len(outputs) == 1 else types.Tuple(outputs)


def visible_argument_types(arguments) -> tuple[types.Type, ...]:
    """The argument types a kernel passes (hidden outputs are not passed)."""
    return tuple(
        types.CPointer(a.numba_type) if a.mode == POINTER else a.numba_type
        for a in arguments
        if a.mode != HIDDEN_OUT
    )


def shim_lowering(
    shims,
    shim_name: str,
    shim_text: str,
    arguments: Sequence[ShimArgument],
    result_type: types.Type | None,
    result_align: int | None = None,
    returns_first_argument: bool = False,
    returns_updated_object: bool = False,
) -> Callable:
    """A Numba lowering that records the shim with ``shims`` and calls it.

    ``returns_updated_object`` (non-const methods): return ``(result, object after the call)``
    so that the caller can store the object back where it came from.

    ``shims`` provides ``write_to_shim(text, name)`` and ``link_object()``: a shim writer for
    dynamic bindings, the module's precompiled shim library for static ones.
    """
    visible = visible_argument_types(arguments)
    return_type = call_return_type(arguments, result_type, returns_first_argument)

    def lower_bound_call(context, builder, sig, args):
        shims.write_to_shim(shim_text, shim_name)
        context.active_code_library.add_linking_file(shims.link_object())
        values = [
            context.cast(builder, value, actual, formal)
            for value, actual, formal in zip(args, sig.args, visible, strict=True)
        ]
        result, outputs, slots = call_shim(
            context, builder, shim_name, result_type, arguments, values, result_align
        )
        if returns_first_argument:
            return builder.load(slots[0])
        produced = ([result] if result_type is not None else []) + outputs
        if returns_updated_object:
            value = produced[0] if produced else context.get_dummy_value()
            pair_type = types.Tuple((return_type, arguments[0].numba_type))
            return context.make_tuple(builder, pair_type, [value, builder.load(slots[0])])
        if not produced:
            return context.get_dummy_value()
        if len(produced) == 1:
            return produced[0]
        return context.make_tuple(builder, return_type, produced)

    return lower_bound_call


# -- registration -----------------------------------------------------------------------------


class Registries(NamedTuple):
    typing: Any = default_typing_registry
    lowering: Any = default_lowering_registry


DEFAULT_REGISTRIES = Registries()


def _process_state() -> dict[str, Any]:
    """Registration state shared by every copy of this runtime in the process.

    Each generated static module embeds its own copy of this file; overloads of one Python
    operator, the float()/int() conversions of a type and the non-const method table must still
    be one per process, or two modules would shadow each other. The state lives in a
    placeholder module, versioned by layout.
    """
    holder = sys.modules.get(_STATE_MODULE)
    if holder is None:
        holder = sys.modules.setdefault(_STATE_MODULE, ModuleType(_STATE_MODULE))
    if not hasattr(holder, "state"):
        holder.state = {
            "lock": threading.RLock(),
            "overloads": {},  # (id(typing registry), key) -> ConcreteTemplate class
            "builtin_conversions": {},  # (type class, builtin) -> chosen target type
            "mutators": {},  # (type class, method name) -> [(signature, lowering)]
            "mutating_stubs": {},  # method name -> stub global
            "rewrite": [],  # the installed rewrite class, once per process
            "static_members": {},  # (struct stub, name) -> function stub of a static method
            "static_attribute": [],  # the installed attribute template, once per process
            "static_lowered": set(),  # (struct stub, name) with a getattr lowering
        }
    return holder.state


_STATE_MODULE = "_numbast_runtime_state_v1"
_STATE = _process_state()


def shared_state() -> dict[str, Any]:
    """The process-wide registration state (numbast/runtime_members.py keeps its tables here)."""
    return _STATE


_LOCK = _STATE["lock"]
_OVERLOADS: dict[tuple[int, Hashable], type[ConcreteTemplate]] = _STATE["overloads"]


def is_bound_type(numba_type: types.Type) -> bool:
    """True for the Numba types of bound C++ structs (and of bound C++ enums)."""
    if getattr(numba_type, "cxx_qual_name", None) is not None:
        return True
    return isinstance(numba_type, types.IntEnumMember) and hasattr(
        numba_type.instance_class, "_cxx_name_"
    )


class _OverloadsOfBuiltin(ConcreteTemplate):
    """Overloads added to a Python operator or builtin (``operator.lt``, ``float``...).

    As in C++, an overloaded operator is considered only when an operand has a bound class or
    enum type: otherwise implicit converting constructors would capture ``i < n`` on plain
    integers (converting both to, say, ``__half``).
    """

    def apply(self, args, kws):
        if not any(is_bound_type(a) for a in args):
            return None
        return super().apply(args, kws)


def add_overload(
    key: Hashable,
    sig: Signature,
    lowering: Callable,
    label: str,
    registries: Registries = DEFAULT_REGISTRIES,
) -> bool:
    """Make ``key(*sig.args)`` type as ``sig`` and lower with ``lowering``.

    All overloads of one key share one ConcreteTemplate, so Numba picks among them by overload
    resolution (exact matches first) rather than by registration order. Returns False when the
    exact signature was bound already (the first binding stays). For keys that are not our own
    stubs (operators, Python builtins) an overload applies only to bound-type operands.
    """
    with _LOCK:
        template = _OVERLOADS.get((id(registries.typing), key))
        if template is None:
            base = ConcreteTemplate if _is_binding_stub(key) else _OverloadsOfBuiltin
            template = type(f"numbast_{label}_overloads", (base,), {"key": key})
            template.cases = []
            _OVERLOADS[(id(registries.typing), key)] = template
            registries.typing.register_global(key, types.Function(template))
        if any(case.args == sig.args for case in template.cases):
            return False
        template.cases.append(sig)
    registries.lowering.lower(key, *sig.args)(lowering)
    return True


def _is_binding_stub(key: Hashable) -> bool:
    # An attribute, not isinstance: every runtime copy has its own BoundCxxStruct class.
    return getattr(key, "_numbast_stub_", False)


def make_function_stub(qual_name: str, python_name: str) -> Callable[..., Any]:
    """The Python object kernels call for a bound C++ function."""

    def stub(*args: Any) -> Any:
        raise TypeError(
            f"{qual_name} is a CUDA device function bound from C++: call it inside a "
            "@cuda.jit kernel or device function"
        )

    stub.__name__ = stub.__qualname__ = python_name
    stub.__doc__ = f"Device function {qual_name} (bound from C++)."
    stub._numbast_stub_ = True
    return stub


# -- structs ----------------------------------------------------------------------------------


class BoundCxxStruct:
    """Base of the Python objects that stand for bound C++ structs in kernels.

    ``MyStruct(args)`` inside a kernel runs a C++ constructor; outside a kernel there is no
    device object to make, so instantiation says so.
    """

    _numba_type_: types.Type
    _cxx_name_: str

    def __new__(cls, *args: Any, **kwargs: Any) -> Any:
        raise TypeError(
            f"{cls._cxx_name_} is a CUDA C++ type bound from C++: construct it inside a "
            "@cuda.jit kernel or device function"
        )


def make_struct_type(parent_type, qual_name: str, sizeof: int, alignof: int) -> types.Type:
    """A new Numba type class derived from ``parent_type`` and its one instance.

    Implicit conversions into the type come from ``instance.implicit_from`` (argument types of
    non-explicit converting constructors): exact sources convert safely, numbers that convert
    to a source first (one standard conversion, as C++ allows) convert unsafely.
    """
    if not (isinstance(parent_type, type) and issubclass(parent_type, types.Type)):
        raise TypeError(f"parent type {parent_type!r} for {qual_name} is not a Numba type class")

    def __init__(self) -> None:
        parent_type.__init__(self, name=qual_name)

    def can_convert_from(self, typingctx, other):
        if other in self.implicit_from:
            return Conversion.safe
        for source in self.implicit_from:
            if isinstance(other, types.Number) and isinstance(source, types.Number):
                if typingctx.can_convert(other, source) is not None:
                    return Conversion.unsafe
        return None

    type_class = type(
        f"{qual_name.replace('::', '_')}_NumbaType",
        (parent_type,),
        {"__init__": __init__, "can_convert_from": can_convert_from},
    )
    instance = type_class()
    instance.implicit_from = set()
    instance.sizeof_ = sizeof
    instance.alignof_ = alignof
    instance.cxx_qual_name = qual_name
    return instance


def _opaque_llvm_type(size: int) -> ir.Type:
    if size in (1, 2, 4, 8, 16):
        return ir.IntType(size * 8)
    return ir.ArrayType(ir.IntType(8), size)


def register_struct_model(numba_type, data_model, members=None, public_fields=()) -> None:
    """Register the data model: StructModel with ``members`` (C++ layout, fields readable) or
    an opaque model of the C++ size when ``members`` is None or the model is PrimitiveModel."""
    type_class = type(numba_type)
    if issubclass(data_model, StructModel) and members:
        member_list = list(members)

        class BoundStructModel(StructModel):
            def __init__(self, dmm, fe_type):
                super().__init__(dmm, fe_type, member_list)

        register_model(type_class)(BoundStructModel)
        for field in public_fields:
            make_attribute_wrapper(type_class, field, field)
        return
    if issubclass(data_model, (StructModel, PrimitiveModel)):
        backing = _opaque_llvm_type(numba_type.sizeof_)

        class BoundOpaqueModel(PrimitiveModel):
            def __init__(self, dmm, fe_type):
                super().__init__(dmm, fe_type, backing)

        register_model(type_class)(BoundOpaqueModel)
        return
    register_model(type_class)(data_model)


def make_struct_stub(python_name: str, qual_name: str, numba_type: types.Type) -> type:
    stub = type(
        python_name,
        (BoundCxxStruct,),
        {
            "_numba_type_": numba_type,
            "_cxx_name_": qual_name,
            "_numbast_stub_": True,
            "__doc__": f"CUDA C++ type {qual_name} (bound from C++).",
        },
    )
    as_numba_type.register(stub, numba_type)
    return stub


def add_implicit_constructor(numba_type, source_type, lowering: Callable) -> None:
    """A non-explicit converting constructor: ``source_type`` converts to ``numba_type``."""
    numba_type.implicit_from.add(source_type)

    @lower_cast(source_type, numba_type)
    def implicit_conversion(context, builder, fromty, toty, val):
        return lowering(context, builder, signature(toty, fromty), [val])


def _builtin_for(target: types.Type):
    """The Python builtin a conversion to ``target`` serves: float(), int() or bool()."""
    if isinstance(target, types.Float):
        return float, types.float64
    if isinstance(target, types.Integer):
        return int, types.int64
    if isinstance(target, types.Boolean):
        return bool, types.boolean
    return None


def _conversion_rank(target: types.Type) -> int:
    return getattr(target, "bitwidth", 0)


_BUILTIN_CONVERSIONS: dict[tuple[type, Any], types.Type] = _STATE["builtin_conversions"]


def add_conversion(
    numba_type, target, lowering: Callable, registries: Registries = DEFAULT_REGISTRIES
) -> None:
    """A conversion operator: casts to ``target`` (``types.float64(x)``), and Python's
    ``float(x)`` / ``int(x)`` / ``bool(x)`` through the widest conversion of that kind (a C++
    type often converts to float, short, int...: ``float(x)`` must use ``operator float``)."""

    @lower_cast(numba_type, target)
    def conversion(context, builder, fromty, toty, val):
        return lowering(context, builder, signature(toty, fromty), [val])

    builtin = _builtin_for(target)
    if builtin is None:
        return
    python_builtin, result = builtin
    slot = (type(numba_type), python_builtin)
    current = _BUILTIN_CONVERSIONS.get(slot)
    if current is not None and _conversion_rank(current) >= _conversion_rank(target):
        return
    _BUILTIN_CONVERSIONS[slot] = target

    def lower_builtin_call(context, builder, sig, args):
        chosen = _BUILTIN_CONVERSIONS[slot]
        converted = context.cast(builder, args[0], numba_type, chosen)
        return context.cast(builder, converted, chosen, result)

    add_overload(
        python_builtin,
        signature(result, numba_type),
        lower_builtin_call,
        python_builtin.__name__,
        registries,
    )


def add_methods(
    numba_type,
    qual_name: str,
    methods: dict[str, list[tuple[tuple[types.Type, ...], types.Type, Callable]]],
    registries: Registries = DEFAULT_REGISTRIES,
) -> None:
    """Methods by name -> overloads as (argument types without the object, return, lowering)."""
    templates: dict[str, type[ConcreteTemplate]] = {}
    for name, overloads in methods.items():
        key = f"{qual_name}.{name}"
        cases = [signature(ret, *args, recvr=numba_type) for args, ret, _ in overloads]
        templates[name] = type(
            f"numbast_method_{name}", (ConcreteTemplate,), {"key": key, "cases": cases}
        )
        for args, _ret, lowering in overloads:
            registries.lowering.lower(key, numba_type, *args)(lowering)

    class MethodAttributes(AttributeTemplate):
        # Keyed on the type's class: Numba consults class-keyed templates only when no
        # instance-keyed one exists, and field attributes are keyed on the class.
        key = type(numba_type)

        def generic_resolve(self, value_type, attr):
            template = templates.get(attr)
            return types.BoundFunction(template, value_type) if template else None

    registries.typing.register_attr(MethodAttributes)

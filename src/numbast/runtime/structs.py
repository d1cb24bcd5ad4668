"""Bound C++ structs in Numba: a type per struct, its data model, the Python stub kernels call
as its constructor, and its conversions and methods."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from llvmlite import ir
from numba.cuda import types
from numba.cuda.datamodel.models import PrimitiveModel, StructModel
from numba.cuda.extending import as_numba_type, lower_cast, make_attribute_wrapper, register_model
from numba.cuda.typeconv import Conversion
from numba.cuda.typing.templates import AttributeTemplate, ConcreteTemplate, signature

from .overloads import DEFAULT_REGISTRIES, Registries, add_overload, apply_with_arrays_decayed
from .state import LOCK, shared_table


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
        # ``mutable``: Numba lowers ``x += y`` on an immutable type with ``+``; C++ structs
        # have their own ``operator+=`` (returning the updated object, assigned back to x).
        {"__init__": __init__, "can_convert_from": can_convert_from, "mutable": True},
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


def make_struct_stub(
    python_name: str,
    qual_name: str,
    numba_type: types.Type,
    module_name: str = "",
    metaclass: type = type,
) -> type:
    """The Python class kernels construct ``qual_name`` with. Made for module ``module_name``,
    it names that module as its own, so that serializers (as Dask uses) refer to
    it there by name: a copy of the class made in another process would be unknown to Numba.
    ``metaclass``: the class's (class template instances answer their member types)."""
    stub = metaclass(
        python_name,
        (BoundCxxStruct,),
        {
            "_numba_type_": numba_type,
            "_nbtype": numba_type,  # NVIDIA Numbast's name for it
            "_cxx_name_": qual_name,
            "_numbast_stub_": True,
            "__doc__": f"CUDA C++ type {qual_name} (bound from C++).",
        },
    )
    if module_name:
        stub.__module__ = module_name
    as_numba_type.register(stub, numba_type)
    return stub


# Bound struct type -> its stub, and conversions to it whose stub did not exist yet: a
# conversion operator ``S::operator T()`` to a bound struct T is also ``T(s)`` in kernels.
_STUBS_BY_TYPE: dict = shared_table("struct_stubs_by_type", dict)
_PENDING_CONVERSIONS: dict = shared_table("pending_struct_conversions", dict)


def add_struct_stub(numba_type, stub: type, registries: Registries = DEFAULT_REGISTRIES) -> None:
    """Record ``stub`` as the constructor kernels call for ``numba_type``, and give it the
    conversions to the type that were bound before it."""
    with LOCK:
        _STUBS_BY_TYPE[numba_type] = stub
        pending = _PENDING_CONVERSIONS.pop(numba_type, [])
    for source, lowering, pending_registries in pending:
        _add_struct_conversion(stub, source, numba_type, lowering, pending_registries)


def stub_of_type(numba_type) -> type | None:
    """The stub kernels call for the bound struct ``numba_type`` (None: not bound yet)."""
    with LOCK:
        return _STUBS_BY_TYPE.get(numba_type)


def add_conversion_to_struct(
    source, target, lowering: Callable, registries: Registries = DEFAULT_REGISTRIES
) -> None:
    """``S::operator T()`` for a bound struct ``T``: ``T(s)`` in kernels calls it."""
    with LOCK:
        stub = _STUBS_BY_TYPE.get(target)
        if stub is None:
            _PENDING_CONVERSIONS.setdefault(target, []).append((source, lowering, registries))
            return
    _add_struct_conversion(stub, source, target, lowering, registries)


def _add_struct_conversion(stub, source, target, lowering: Callable, registries) -> None:
    add_overload(stub, signature(target, source), lowering, stub.__name__, registries)


def add_implicit_constructor(numba_type, source_type, lowering: Callable) -> None:
    """A non-explicit converting constructor: ``source_type`` converts to ``numba_type``."""
    numba_type.implicit_from.add(source_type)

    @lower_cast(source_type, numba_type)
    def implicit_conversion(context, builder, fromty, toty, val):
        return lowering(context, builder, signature(toty, fromty), [val])

    if isinstance(source_type, types.Number):
        lowerings = numba_type.__dict__.setdefault("_number_constructors", {})
        if not lowerings:
            lower_cast(types.Number, numba_type)(_number_then_constructor)
        lowerings[source_type] = lowering


def _number_then_constructor(context, builder, fromty, toty, val):
    """A number that typing let convert to a constructor's source first (``Meter(3) == 4``
    through ``Meter(int)``): the standard conversion, then that constructor; the source is
    the one the number converts to best (a promotion before a narrowing, as C++ ranks them)."""
    typingctx = context.typing_context
    ranked = [
        (conversion, index, source, lowering)
        for index, (source, lowering) in enumerate(toty._number_constructors.items())
        if (conversion := typingctx.can_convert(fromty, source)) is not None
    ]
    if not ranked:
        raise TypeError(f"no converting constructor of {toty} takes {fromty}")
    _conversion, _index, source, lowering = min(ranked, key=lambda r: (r[0], r[1]))
    converted = context.cast(builder, val, fromty, source)
    return lowering(context, builder, signature(toty, source), [converted])


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


# (type class, builtin) -> the conversion target float() / int() / bool() use
_BUILTIN_CONVERSIONS: dict[tuple[type, Any], types.Type] = shared_table("builtin_conversions", dict)


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


# (struct type, method name) -> the overload set of its plain methods of that name; struct type
# -> the names it also has member function templates of (their typing tries both)
_METHOD_OVERLOADS: dict = shared_table("method_overloads", dict)
_MEMBER_TEMPLATE_NAMES: dict = shared_table("member_template_names", dict)


def method_overloads(numba_type: types.Type, name: str) -> type[ConcreteTemplate] | None:
    """The overload set of ``numba_type``'s plain methods named ``name``, or None."""
    return _METHOD_OVERLOADS.get((numba_type, name))


def add_member_template_names(numba_type: types.Type, names: Any) -> None:
    """``numba_type`` has member function templates of these names: their typing answers the
    attribute and tries the plain methods of the same name first (C++'s preference)."""
    with LOCK:
        _MEMBER_TEMPLATE_NAMES.setdefault(numba_type, set()).update(names)


class _MethodOverloads(ConcreteTemplate):
    """The overloads of one method name; arrays pass as pointers to their elements."""

    def apply(self, args, kws):
        return apply_with_arrays_decayed(super().apply, args, kws)


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
            f"numbast_method_{name}", (_MethodOverloads,), {"key": key, "cases": cases}
        )
        for args, _ret, lowering in overloads:
            registries.lowering.lower(key, numba_type, *args)(lowering)
            if name == "__call__":
                # ``f(args)`` on a functor: Numba types it through ``__call__`` and lowers
                # it under the functor's type.
                registries.lowering.lower(numba_type, numba_type, *args)(lowering)

    with LOCK:
        _METHOD_OVERLOADS.update({(numba_type, name): t for name, t in templates.items()})

    class MethodAttributes(AttributeTemplate):
        # Keyed on the type's class: Numba consults class-keyed templates only when no
        # instance-keyed one exists, and field attributes are keyed on the class.
        key = type(numba_type)

        def generic_resolve(self, value_type, attr):
            template = templates.get(attr)
            if template is None or attr in _MEMBER_TEMPLATE_NAMES.get(value_type, ()):
                return None  # member templates of the name answer (plain overloads first)
            return types.BoundFunction(template, value_type)

    registries.typing.register_attr(MethodAttributes)


def is_struct_value(numba_type: types.Type) -> bool:
    """True for the type of a bound C++ struct (not an enum, not a pointer)."""
    return getattr(numba_type, "cxx_qual_name", None) is not None


def struct_pointer_positions(argument_types: Sequence[types.Type]) -> list[int]:
    """Positions of the arguments that are pointers to bound structs."""
    return [
        index
        for index, argument in enumerate(argument_types)
        if isinstance(argument, types.CPointer) and is_struct_value(argument.dtype)
    ]

"""Struct members that need more than a typing template: non-const methods, which update
their object in place, and static methods (``MyType.create(args)``). Their tables live in the
process-wide registration state, shared by every copy of the runtime."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Collection
from typing import Any

from numba.cuda import types
from numba.cuda.typing.templates import (
    AbstractTemplate,
    AttributeTemplate,
    Signature,
    signature,
)

from ..core.shim_text import SETITEM
from .call_rewrites import install_call_rewrite, store_back_into_source
from .overloads import (
    DEFAULT_REGISTRIES,
    Registries,
    add_overload,
    make_function_stub,
    overload_template,
)
from .state import LOCK, shared_table

# -- non-const methods ------------------------------------------------------------------------
#
# Numba values are immutable, so a C++ method that modifies its object cannot change the
# caller's variable by itself. A rewrite before type inference turns ``r = obj.m(args)``, for
# method names that some bound type declares non-const, into
#     t = numbast_mutating_m(obj, args); r = t[0]; obj = t[1]
# (and stores ``obj`` back into ``arr[i]`` when it was read from there). When the overload the
# call resolves to is const, or the type binds no non-const ``m``, the helper calls the method
# normally and returns ``obj`` unchanged.

# (type class, method name) -> [(signature, lowering)]
_MUTATORS: dict[tuple[type, str], list[tuple[Signature, Callable]]] = shared_table("mutators", dict)
# method name -> the stub the rewrite calls
_MUTATING_STUBS: dict[str, Callable] = shared_table("mutating_stubs", dict)


def add_mutating_methods(
    numba_type,
    methods: dict[str, list[tuple[tuple[types.Type, ...], types.Type, Callable]]],
    registries: Registries = DEFAULT_REGISTRIES,
) -> None:
    """Non-const methods by name -> overloads as (argument types without the object, C++
    result type, lowering returning ``(result, updated object)``)."""
    _install_mutation_rewrite()
    if SETITEM in methods:  # v[i] = x through operator[]'s reference
        from .element_assignment import enable_element_assignment

        enable_element_assignment(registries)
    for name, overloads in methods.items():
        cases = _MUTATORS.setdefault((type(numba_type), name), [])
        for args, ret, lowering in overloads:
            pair = types.Tuple((ret, numba_type))
            cases.append((signature(pair, numba_type, *args), lowering))
        _mutating_stub(name, registries)


def _mutating_stub(name: str, registries: Registries) -> Callable:
    stub = _MUTATING_STUBS.get(name)
    if stub is not None:
        return stub
    stub = make_function_stub(f"<mutating call of .{name}()>", f"numbast_mutating_{name}")

    class MutatingCall(AbstractTemplate):
        key = stub

        def generic(self, args, kws):
            if not args:
                return None
            # Every method of the name, const ones too (``real() const`` beside a non-const
            # ``real(float)``), in one overload set whose non-const overloads come first, so
            # that a tie goes to the non-const one, as C++ picks for a non-const object. The
            # lowering tells the non-const overload chosen from a const one by its arguments.
            method = self.context.resolve_getattr(args[0], name)
            if method is None:
                return None
            sig = self.context.resolve_function_type(method, tuple(args[1:]), kws)
            if sig is None:
                return None
            result = signature(types.Tuple((sig.return_type, args[0])), args[0], *sig.args)
            if sig.pysig is not None:  # keywords (a member template's arguments by name)
                this = inspect.Parameter("numbast_object", inspect.Parameter.POSITIONAL_ONLY)
                pysig = inspect.Signature([this, *sig.pysig.parameters.values()])
                result = result.replace(pysig=pysig)
            return result

    def lower_mutating_call(context, builder, sig, args):
        object_type = sig.args[0]
        for case, lowering in _MUTATORS.get((type(object_type), name), ()):
            if case.args == sig.args:
                return lowering(context, builder, case, args)
        method = context.typing_context.resolve_getattr(object_type, name)
        if isinstance(method, types.Function):  # a static member: the object is no argument
            method_sig = signature(sig.return_type.types[0], *sig.args[1:])
            result = context.get_function(method, method_sig)(builder, args[1:])
        else:
            method_sig = signature(sig.return_type.types[0], object_type, *sig.args[1:])
            result = context.get_function(method, method_sig)(builder, args)
        return context.make_tuple(builder, sig.return_type, [result, args[0]])

    registries.typing.register_global(stub, types.Function(MutatingCall))
    registries.lowering.lower(stub, types.VarArg(types.Any))(lower_mutating_call)
    _MUTATING_STUBS[name] = stub
    return stub


_REWRITE_INSTALLED: list = shared_table("rewrite", list)  # the rewrite class, once


def _install_mutation_rewrite() -> None:
    install_call_rewrite(
        _REWRITE_INSTALLED, "RewriteMutatingMethodCalls", _mutating_callee, _call_mutating_stub
    )


def _mutating_callee(call, known: dict[str, Any], definitions: dict[str, Any]):
    """The ``obj.m`` expression a call calls, when some bound type declares a non-const ``m``
    and ``obj`` is no global (``MyType.create()`` mutates nothing)."""
    callee = definitions.get(call.func.name)
    if (
        callee is not None
        and callee.op == "getattr"
        and callee.attr in _MUTATING_STUBS
        and callee.value.name not in known
    ):
        return callee
    return None


def _call_mutating_stub(block, scope, inst, callee, definitions: dict[str, Any]) -> None:
    """``r = obj.m(args)`` -> ``t = numbast_mutating_m(obj, args); r = t[0]; obj = t[1]``."""
    from numba.cuda.core import ir

    loc = inst.loc
    obj = callee.value
    stub = _MUTATING_STUBS[callee.attr]
    stub_var = scope.redefine("$numbast_mutator", loc)
    block.append(ir.Assign(ir.Global(stub.__name__, stub, loc), stub_var, loc))
    pair = scope.redefine("$numbast_mutated", loc)
    call = ir.Expr.call(stub_var, [obj, *inst.value.args], inst.value.kws, loc)
    block.append(ir.Assign(call, pair, loc))
    block.append(ir.Assign(ir.Expr.static_getitem(pair, 0, None, loc), inst.target, loc))
    block.append(ir.Assign(ir.Expr.static_getitem(pair, 1, None, loc), obj, loc))
    store_back_into_source(block, definitions, obj, loc)


# -- static methods ---------------------------------------------------------------------------
#
# ``MyType.create(args)`` in a kernel: ``MyType`` is typed as the Function of its constructors,
# and one attribute template on Function types answers ``.create`` with the static method's own
# function stub, whose overloads are ordinary bound calls. As in C++, an object reaches its
# type's static members too (``block.sync()`` for cooperative_groups' static
# ``thread_block::sync()``): an attribute template on the struct type answers with the same stub,
# and the object is not an argument.

# (struct stub, name) -> the function stub of its static method
_STATIC_MEMBERS: dict[tuple[Any, str], Callable] = shared_table("static_members", dict)
# (struct stub, name) pairs with a getattr lowering
_STATIC_LOWERED: set = shared_table("static_lowered", set)
# ids of the typing registries that have the static-member attribute template
_STATIC_ATTRIBUTE: list = shared_table("static_attribute", list)


def add_static_methods(
    struct_stub: type,
    qual_name: str,
    methods: dict[str, list[tuple[Signature, Callable]]],
    registries: Registries = DEFAULT_REGISTRIES,
) -> None:
    """Static methods by name -> overloads as (signature, lowering)."""
    _ensure_global(struct_stub, registries)
    _install_static_member_attribute(registries)
    for name, overloads in methods.items():
        with LOCK:
            function_stub = _STATIC_MEMBERS.get((struct_stub, name))
            if function_stub is None:
                function_stub = make_function_stub(f"{qual_name}::{name}", name)
                _STATIC_MEMBERS[(struct_stub, name)] = function_stub
            first = (struct_stub, name) not in _STATIC_LOWERED
            _STATIC_LOWERED.add((struct_stub, name))
        for sig, lowering in overloads:
            add_overload(function_stub, sig, lowering, name, registries)
        if first:
            _lower_static_member(struct_stub, name, registries)
        setattr(struct_stub, name, function_stub)
    _install_static_members_of_objects(struct_stub, registries)


def inherit_static_members(
    derived_stub: type,
    base_type: types.Type,
    hidden: Collection[str],
    registries: Registries = DEFAULT_REGISTRIES,
) -> None:
    """The static members of ``base_type`` (a bound struct) reached through ``derived_stub``
    (``numeric_limits<float>::max()``, its base's), but for the names in ``hidden``."""
    from .deferred import run_pending
    from .structs import stub_of_type

    run_pending()  # the base's members are registered
    base_stub = stub_of_type(base_type)
    if base_stub is None:
        return
    _ensure_global(derived_stub, registries)
    inherited = [
        (name, function_stub)
        for (stub, name), function_stub in list(_STATIC_MEMBERS.items())
        if stub is base_stub and name not in hidden
    ]
    for name, function_stub in inherited:
        with LOCK:
            if (derived_stub, name) in _STATIC_MEMBERS:
                continue
            _STATIC_MEMBERS[(derived_stub, name)] = function_stub
            _STATIC_LOWERED.add((derived_stub, name))
        _lower_static_member(derived_stub, name, registries)
        setattr(derived_stub, name, function_stub)
    if inherited:
        _install_static_members_of_objects(derived_stub, registries)


def _lower_static_member(struct_stub: type, name: str, registries: Registries) -> None:
    # The attribute is a function: a compile-time value, nothing to compute.
    registries.lowering.lower_getattr(types.Function, name)(_no_value)
    registries.lowering.lower_getattr(type(struct_stub._numba_type_), name)(_no_value)


def _no_value(context, builder, typ, value):
    return context.get_dummy_value()


def _ensure_global(struct_stub: type, registries: Registries) -> None:
    """Make the struct's stub a typed global even when it has no bound constructor."""
    overload_template(struct_stub, struct_stub.__name__, registries)


def _install_static_member_attribute(registries: Registries) -> None:
    installed = _STATIC_ATTRIBUTE
    if id(registries.typing) in installed:
        return

    class StaticMemberAttributes(AttributeTemplate):
        key = types.Function

        def generic_resolve(self, value_type, attr):
            function_stub = _STATIC_MEMBERS.get((value_type.typing_key, attr))
            if function_stub is None:
                return None
            return self.context.resolve_value_type(function_stub)

    registries.typing.register_attr(StaticMemberAttributes)
    installed.append(id(registries.typing))


def _install_static_members_of_objects(struct_stub: type, registries: Registries) -> None:
    """``obj.create(args)``: the static members of ``struct_stub`` reached through an object."""
    numba_type = struct_stub._numba_type_

    class StaticMembersOfObjects(AttributeTemplate):
        # Keyed on the type's class, as its methods are (see structs.add_methods).
        key = type(numba_type)

        def generic_resolve(self, value_type, attr):
            function_stub = _STATIC_MEMBERS.get((struct_stub, attr))
            if function_stub is None:
                return None
            return self.context.resolve_value_type(function_stub)

    registries.typing.register_attr(StaticMembersOfObjects)

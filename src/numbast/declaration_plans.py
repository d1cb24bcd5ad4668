"""What binding one declaration means, decided without Numba.

Dynamic binding (``bind_cxx_function``, ``bind_cxx_struct``) and the static generator both ask
here which Python operator or stub a declaration binds to, which shim it calls and how each
argument crosses the shim. Dynamic binding then registers the plans with Numba at once; the
static generator writes them into a module as data. Keeping the decisions in one place is what
makes a generated module behave exactly like dynamic bindings.

Every planner raises BindingError or UnsupportedTypeError with the reason a declaration cannot
be bound; callers report it as a skip.
"""

from __future__ import annotations

import functools
import keyword
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import Enum
from typing import Any

from ast_canopy.model import Access, Enum_, Function, Method, MethodKind, Struct, Type, TypeKind
from numbast.callables import CallPlan, plan_call
from numbast.cxx_types import TypeTable
from numbast.diagnostics import BindingError
from numbast.intents import ArgIntent, IntentSpec, resolve_intents
from numbast.operators import COMPOUND, python_operator_for
from numbast.shims import (
    constructor_body,
    conversion_body,
    function_call_body,
    method_call_body,
    operator_body,
    shim_name_for,
)

# -- free functions and free operators --------------------------------------------------------


@dataclass(frozen=True)
class FunctionPlan:
    call: CallPlan
    operator: Callable | None  # the ``operator`` function a C++ operator binds to, else None
    label: str  # names the typing template ("operator_add", or the function's name)


def plan_function(
    func: Function,
    arg_intents: IntentSpec | None = None,
    type_table: TypeTable | None = None,
) -> FunctionPlan:
    """The plan for a free function or free operator (``type_table`` None: Numba's)."""
    if not func.exec_space.is_device_callable:
        raise BindingError(f"it is a {func.exec_space.value} function, not callable on the device")
    if func.is_deleted:
        raise BindingError("it is deleted")
    if func.is_variadic:
        raise BindingError("variadic functions cannot be bound")

    intents = resolve_intents(func.qual_name, func.params, arg_intents)
    params = [(p.type_, intent) for p, intent in zip(func.params, intents, strict=True)]
    shim_name = shim_name_for(func.mangled_name, signature_text(func))

    if func.operator is None:
        plan = plan_call(
            shim_name,
            params,
            func.return_type,
            functools.partial(function_call_body, callee_spelling(func)),
            type_table=type_table,
        )
        return FunctionPlan(plan, None, func.name)

    key = python_operator_for(func.operator, len(func.params))
    if key is None:
        raise BindingError(
            f"operator{func.operator} with {len(func.params)} operand(s) has no Python counterpart"
        )
    compound = func.operator in COMPOUND
    if compound and not func.params[0].type_.is_lvalue_reference:
        raise BindingError(f"operator{func.operator} does not take its left operand by &")
    plan = plan_call(
        shim_name,
        params,
        None if compound else func.return_type,
        functools.partial(operator_body, func.operator),
        returns_first_argument=compound,
        type_table=type_table,
    )
    return FunctionPlan(plan, key, f"operator_{key.__name__}")


def callee_spelling(func: Function) -> str:
    # Qualified with a leading :: so a same-named shim-local name can never capture the call.
    return f"::{func.qual_name}" if not func.qual_name.startswith("::") else func.qual_name


def signature_text(func: Function) -> str:
    params = ", ".join(p.type_.canonical_name for p in func.params)
    return f"{func.qual_name}({params})"


def method_text(method: Method) -> str:
    params = ", ".join(p.type_.canonical_name for p in method.params)
    const = " const" if method.is_const else ""
    return f"{method.qual_name}({params}){const}"


def location_of(decl: Any) -> str:
    return f"{decl.file}:{decl.line}" if getattr(decl, "file", "") else ""


# -- struct members ---------------------------------------------------------------------------


class MemberKind(str, Enum):
    CONSTRUCTOR = "constructor"
    CONVERSION = "conversion"  # operator T(): a cast to the call's result type
    OPERATOR = "operator"  # a member operator, bound to a Python operator like a free one
    METHOD = "method"
    STATIC_METHOD = "static_method"  # called on the type: ``MyType.create(args)``


@dataclass(frozen=True)
class MemberPlan:
    kind: MemberKind
    call: CallPlan
    name: str = ""  # the method's name (METHOD, STATIC_METHOD)
    operator: Callable | None = None  # the ``operator`` function (OPERATOR)
    implicit: bool = False  # CONSTRUCTOR: non-explicit converting, so also a conversion
    mutates: bool = False  # METHOD: non-const, so it updates its object in place


def plan_member(
    decl: Struct,
    method: Method,
    object_type: tuple[Any, str, int | None],
    type_table: TypeTable | None = None,
) -> MemberPlan | None:
    """The plan for one member of ``decl``; None for members that are not bound by design
    (non-public, deleted, copy/move constructors, destructors).

    ``object_type`` is (the struct's type, its C++ spelling, its alignment).
    """
    if method.access is not Access.PUBLIC or method.is_deleted:
        return None
    kind = method.kind
    if kind in (MethodKind.COPY_CONSTRUCTOR, MethodKind.MOVE_CONSTRUCTOR, MethodKind.DESTRUCTOR):
        return None  # Numba copies values bitwise and runs no destructors
    if not method.exec_space.is_device_callable:
        raise BindingError(f"it is a {method.exec_space.value} function")
    if method.is_variadic:
        raise BindingError("variadic methods cannot be bound")
    params = [(p.type_, ArgIntent.IN) for p in method.params]

    def shim_name(role: str = "") -> str:
        return shim_name_for(method.mangled_name, method_text(method), role)

    if kind.is_constructor:
        plan = plan_call(
            shim_name("ctor"),
            params,
            struct_value_type(decl),
            lambda shim_params, _returns: constructor_body(decl.qual_name, shim_params),
            type_table=type_table,
        )
        implicit = kind is MethodKind.CONVERTING_CONSTRUCTOR and not method.is_explicit
        return MemberPlan(MemberKind.CONSTRUCTOR, plan, implicit=implicit)
    if kind is MethodKind.CONVERSION_FUNCTION:
        target_type = method.return_type
        plan = plan_call(
            shim_name("conv"),
            [],
            target_type,
            lambda _params, _returns: conversion_body(target_type.canonical_name),
            object_type=object_type,
            type_table=type_table,
        )
        return MemberPlan(MemberKind.CONVERSION, plan)
    if kind is MethodKind.MEMBER_OPERATOR:
        symbol = method.operator or ""
        key = python_operator_for(symbol, len(method.params) + 1)
        if key is None:
            raise BindingError(f"operator{symbol} has no Python counterpart")
        compound = symbol in COMPOUND
        plan = plan_call(
            shim_name(),
            params,
            None if compound else method.return_type,
            functools.partial(operator_body, symbol),
            object_type=object_type,
            returns_first_argument=compound,
            type_table=type_table,
        )
        return MemberPlan(MemberKind.OPERATOR, plan, operator=key)
    if kind is MethodKind.METHOD:
        plan = plan_call(
            shim_name(),
            params,
            method.return_type,
            functools.partial(method_call_body, method.name),
            object_type=object_type,
            type_table=type_table,
        )
        return MemberPlan(MemberKind.METHOD, plan, name=method.name, mutates=not method.is_const)
    if kind is MethodKind.STATIC_METHOD:
        plan = plan_call(
            shim_name(),
            params,
            method.return_type,
            functools.partial(function_call_body, f"::{decl.qual_name}::{method.name}"),
            type_table=type_table,
        )
        return MemberPlan(MemberKind.STATIC_METHOD, plan, name=method.name)
    raise BindingError(f"{kind.value} members are not bound yet")


def struct_value_type(decl: Struct) -> Type:
    """The struct itself as a Type (what its constructors produce)."""
    return Type(
        name=decl.qual_name,
        canonical_name=decl.qual_name,
        unqualified_non_ref_type_name=decl.qual_name,
        kind=TypeKind.RECORD,
        sizeof_=decl.sizeof_,
        alignof_=decl.alignof_,
    )


# -- enums ------------------------------------------------------------------------------------


def python_member_name(name: str) -> str:
    return f"{name}_" if keyword.iskeyword(name) else name


def enum_members(enum_decl: Enum_) -> Mapping[str, int]:
    """The IntEnum members of a C++ enum: enumerator -> value (keywords get a trailing _)."""
    return {
        python_member_name(name): value
        for name, value in zip(enum_decl.enumerators, enum_decl.enumerator_values, strict=True)
    }

"""Bind C++ structs: ``bind_cxx_struct`` / ``bind_cxx_structs``.

A bound struct gets a Numba type (derived from the caller's parent type) with a data model of
the C++ size and layout, and a Python stub whose call inside a kernel runs a C++ constructor.
Converting constructors become implicit conversions, conversion operators become casts
(``types.float64(x)``, ``float(x)``, ``int(x)``), public fields become attributes, methods
become bound methods, and member operators bind to Python operators like free ones.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Iterable, Mapping
from typing import Any

from numba.cuda import types
from numba.cuda.datamodel.models import StructModel
from numba.cuda.typing.templates import signature

from ast_canopy.model import Access, Method, MethodKind, Struct, Type, TypeKind
from numbast.callables import CallPlan, plan_call
from numbast.diagnostics import BindingError, warn_skipped
from numbast.intents import ArgIntent
from numbast.operators import COMPOUND, python_operator_for
from numbast.runtime import (
    add_conversion,
    add_implicit_constructor,
    add_methods,
    add_mutating_methods,
    add_overload,
    make_struct_stub,
    make_struct_type,
    register_struct_model,
)
from numbast.shim_writer import ShimWriterBase
from numbast.shims import (
    constructor_body,
    conversion_body,
    method_call_body,
    operator_body,
    shim_name_for,
)
from numbast.struct_layout import struct_members
from numbast.type_mapping import UnsupportedTypeError, register_cxx_type

logger = logging.getLogger(__name__)


def bind_cxx_struct(
    shim_writer: ShimWriterBase,
    struct_decl: Struct,
    parent_type: type[types.Type] = types.Type,
    data_model: type = StructModel,
    aliases: Iterable[str] = (),
    python_name: str | None = None,
) -> type | None:
    """Bind ``struct_decl``; returns its Python stub (callable in kernels as the constructor).

    ``parent_type`` is the Numba type class the new type derives from (``types.Number`` for
    number-like types, so ``types.float64(x)`` works); ``data_model`` is ``StructModel`` (fields
    as members, C++ layout) or ``PrimitiveModel`` (an opaque bit pattern of the C++ size).
    """
    decl = struct_decl
    if decl.sizeof_ is None or decl.alignof_ is None:
        warn_skipped(
            "struct", decl.qual_name, "its size is unknown (incomplete type)", _where(decl)
        )
        return None
    try:
        numba_type = make_struct_type(parent_type, decl.qual_name, decl.sizeof_, decl.alignof_)
    except TypeError as exc:
        warn_skipped("struct", decl.qual_name, str(exc), _where(decl))
        return None
    members = None
    if isinstance(data_model, type) and issubclass(data_model, StructModel):
        members, reason = struct_members(decl)
        if members is None:
            logger.info("%s gets an opaque data model: %s", decl.qual_name, reason)
    public_fields = [f.name for f in decl.fields if f.access is Access.PUBLIC]
    register_struct_model(numba_type, data_model, members, public_fields if members else ())
    register_cxx_type(decl.qual_name, numba_type)
    for alias in aliases:
        register_cxx_type(alias, numba_type)
    stub = make_struct_stub(python_name or decl.name, decl.qual_name, numba_type)

    binder = _StructBinder(shim_writer, decl, numba_type, stub)
    for method in decl.methods:
        binder.bind_method(method)
    binder.finish()
    return stub


def bind_cxx_structs(
    shim_writer: ShimWriterBase,
    struct_decls: Iterable[Struct],
    parent_types: Mapping[str, type[types.Type]] | None = None,
    data_models: Mapping[str, type] | None = None,
    exclude: Iterable[str] = (),
) -> dict[str, type]:
    """Bind several structs; per-struct parent types and data models are looked up by name."""
    excluded = set(exclude)
    bound: dict[str, type] = {}
    for decl in struct_decls:
        if decl.name in excluded:
            continue
        parent = (parent_types or {}).get(decl.name, types.Type)
        model = (data_models or {}).get(decl.name, StructModel)
        stub = bind_cxx_struct(shim_writer, decl, parent, model)
        if stub is not None:
            bound[decl.name] = stub
    return bound


def _where(decl: Any) -> str:
    return f"{decl.file}:{decl.line}" if getattr(decl, "file", "") else ""


class _StructBinder:
    """Binds the members of one struct; collects method overloads before registering them."""

    def __init__(
        self, shim_writer: ShimWriterBase, decl: Struct, numba_type: types.Type, stub: type
    ) -> None:
        self.shim_writer = shim_writer
        self.decl = decl
        self.numba_type = numba_type
        self.stub = stub
        self.methods: dict[str, list[CallPlan]] = {}
        self.mutating: dict[str, list[CallPlan]] = {}

    # -- members --------------------------------------------------------------------------
    def bind_method(self, method: Method) -> None:
        if method.access is not Access.PUBLIC or method.is_deleted:
            return
        kind = method.kind
        if kind in (
            MethodKind.COPY_CONSTRUCTOR,
            MethodKind.MOVE_CONSTRUCTOR,
            MethodKind.DESTRUCTOR,
        ):
            return  # Numba copies values bitwise and runs no destructors
        try:
            if not method.exec_space.is_device_callable:
                raise BindingError(f"it is a {method.exec_space.value} function")
            if method.is_variadic:
                raise BindingError("variadic methods cannot be bound")
            if kind.is_constructor:
                self._bind_constructor(method)
            elif kind is MethodKind.CONVERSION_FUNCTION:
                self._bind_conversion(method)
            elif kind is MethodKind.MEMBER_OPERATOR:
                self._bind_member_operator(method)
            elif kind is MethodKind.METHOD:
                self._plan_method(method)
            else:
                raise BindingError(f"{kind.value} members are not bound yet")
        except (BindingError, UnsupportedTypeError) as exc:
            warn_skipped("method", _method_text(method), str(exc), _where(method))

    def _object(self) -> tuple[types.Type, str, int | None]:
        return (self.numba_type, self.decl.qual_name, self.decl.alignof_)

    def _shim_name(self, method: Method, role: str = "") -> str:
        return shim_name_for(method.mangled_name, _method_text(method), role)

    def _bind_constructor(self, method: Method) -> None:
        params = [(p.type_, ArgIntent.IN) for p in method.params]
        plan = plan_call(
            self._shim_name(method, "ctor"),
            params,
            _value_type_of(self.decl),
            lambda shim_params, _returns: constructor_body(self.decl.qual_name, shim_params),
        )
        sig = signature(self.numba_type, *plan.visible_args)
        add_overload(self.stub, sig, plan.lowering(self.shim_writer), self.decl.name)
        if method.kind is MethodKind.CONVERTING_CONSTRUCTOR and not method.is_explicit:
            add_implicit_constructor(
                self.numba_type, plan.visible_args[0], plan.lowering(self.shim_writer)
            )

    def _bind_conversion(self, method: Method) -> None:
        target_type = method.return_type
        plan = plan_call(
            self._shim_name(method, "conv"),
            [],
            target_type,
            lambda _params, _returns: conversion_body(target_type.canonical_name),
            object_type=self._object(),
        )
        add_conversion(self.numba_type, plan.cxx_result, plan.lowering(self.shim_writer))

    def _bind_member_operator(self, method: Method) -> None:
        symbol = method.operator or ""
        key = python_operator_for(symbol, len(method.params) + 1)
        if key is None:
            raise BindingError(f"operator{symbol} has no Python counterpart")
        compound = symbol in COMPOUND
        params = [(p.type_, ArgIntent.IN) for p in method.params]
        plan = plan_call(
            self._shim_name(method),
            params,
            None if compound else method.return_type,
            functools.partial(operator_body, symbol),
            object_type=self._object(),
            returns_first_argument=compound,
        )
        add_overload(key, plan.signature(), plan.lowering(self.shim_writer), key.__name__)

    def _plan_method(self, method: Method) -> None:
        params = [(p.type_, ArgIntent.IN) for p in method.params]
        plan = plan_call(
            self._shim_name(method),
            params,
            method.return_type,
            functools.partial(method_call_body, method.name),
            object_type=self._object(),
        )
        self.methods.setdefault(method.name, []).append(plan)
        if not method.is_const:
            self.mutating.setdefault(method.name, []).append(plan)

    # -- registration ---------------------------------------------------------------------
    def finish(self) -> None:
        if not self.methods:
            return
        overloads = {
            name: [
                (plan.visible_args[1:], plan.numba_return_type, plan.lowering(self.shim_writer))
                for plan in plans
            ]
            for name, plans in self.methods.items()
        }
        add_methods(self.numba_type, self.decl.qual_name, overloads)
        if self.mutating:
            mutators = {
                name: [
                    (
                        plan.visible_args[1:],
                        plan.numba_return_type,
                        plan.lowering(self.shim_writer, returns_updated_object=True),
                    )
                    for plan in plans
                ]
                for name, plans in self.mutating.items()
            }
            add_mutating_methods(self.numba_type, mutators)


def _value_type_of(decl: Struct) -> Type:
    return Type(
        name=decl.qual_name,
        canonical_name=decl.qual_name,
        unqualified_non_ref_type_name=decl.qual_name,
        kind=TypeKind.RECORD,
        sizeof_=decl.sizeof_,
        alignof_=decl.alignof_,
    )


def _method_text(method: Method) -> str:
    params = ", ".join(p.type_.canonical_name for p in method.params)
    const = " const" if method.is_const else ""
    return f"{method.qual_name}({params}){const}"


__all__ = ["bind_cxx_struct", "bind_cxx_structs"]

"""Bind C++ structs: ``bind_cxx_struct`` / ``bind_cxx_structs``.

A bound struct gets a Numba type (derived from the caller's parent type) with a data model of
the C++ size and layout, and a Python stub whose call inside a kernel runs a C++ constructor.
Converting constructors become implicit conversions, conversion operators become casts
(``types.float64(x)``, ``float(x)``, ``int(x)``), public fields become attributes, methods
become bound methods, and member operators bind to Python operators like free ones.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping

from numba.cuda import types
from numba.cuda.datamodel.models import StructModel
from numba.cuda.typing.templates import signature

from ast_canopy.model import Access, Method, Struct
from numbast.callables import CallPlan
from numbast.declaration_plans import (
    MemberKind,
    location_of,
    method_text,
    plan_member,
    struct_value_type,
)
from numbast.diagnostics import BindingError, warn_skipped
from numbast.runtime import (
    add_conversion,
    add_implicit_constructor,
    add_methods,
    add_overload,
    make_struct_stub,
    make_struct_type,
    register_struct_model,
)
from numbast.runtime_members import add_mutating_methods, add_static_methods
from numbast.shim_writer import ShimWriterBase
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


# Shared with the static generator (numbast.declaration_plans), like the member planning.
_where = location_of
_value_type_of = struct_value_type
_method_text = method_text


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
        self.static_methods: dict[str, list[CallPlan]] = {}

    # -- members --------------------------------------------------------------------------
    def bind_method(self, method: Method) -> None:
        try:
            planned = plan_member(self.decl, method, self._object())
        except (BindingError, UnsupportedTypeError) as exc:
            warn_skipped("method", _method_text(method), str(exc), _where(method))
            return
        if planned is None:
            return  # not bound by design (non-public, deleted, copy/move, destructor)
        plan = planned.call
        if planned.kind is MemberKind.CONSTRUCTOR:
            sig = signature(self.numba_type, *plan.visible_args)
            add_overload(self.stub, sig, plan.lowering(self.shim_writer), self.decl.name)
            if planned.implicit:
                add_implicit_constructor(
                    self.numba_type, plan.visible_args[0], plan.lowering(self.shim_writer)
                )
        elif planned.kind is MemberKind.CONVERSION:
            add_conversion(self.numba_type, plan.cxx_result, plan.lowering(self.shim_writer))
        elif planned.kind is MemberKind.OPERATOR:
            key = planned.operator
            add_overload(key, plan.signature(), plan.lowering(self.shim_writer), key.__name__)
        elif planned.kind is MemberKind.STATIC_METHOD:
            self.static_methods.setdefault(planned.name, []).append(plan)
        else:
            self.methods.setdefault(planned.name, []).append(plan)
            if planned.mutates:
                self.mutating.setdefault(planned.name, []).append(plan)

    def _object(self) -> tuple[types.Type, str, int | None]:
        return (self.numba_type, self.decl.qual_name, self.decl.alignof_)

    # -- registration ---------------------------------------------------------------------
    def finish(self) -> None:
        if self.static_methods:
            statics = {
                name: [(plan.signature(), plan.lowering(self.shim_writer)) for plan in plans]
                for name, plans in self.static_methods.items()
            }
            add_static_methods(self.stub, self.decl.qual_name, statics)
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


__all__ = ["bind_cxx_struct", "bind_cxx_structs"]

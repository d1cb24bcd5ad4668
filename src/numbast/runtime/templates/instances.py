"""The making of one class template instance: which row's members it has (a partial
specialization's or the primary template's), its layout and the member types only the compiler
can tell (asked of it once, recorded in the instance store), and its struct body: fields at the
compiler's offsets with padding where LLVM would not pad as C++ does, and one call row per
member. ``template_classes`` binds what this makes.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Mapping, Sequence
from typing import Any

from numba.cuda import types

from ...core import rows
from ...core.call_plans import ShimValue
from ...core.rows import MemberRow, StructBodyRow
from ...core.shim_text import (
    SETITEM,
    constructor_body,
    conversion_body,
    element_assignment_body,
    function_call_body,
    method_call_body,
    operator_body,
    operator_expression,
)
from ...core.struct_padding import FieldSlot, padded_members
from ...core.template_rows import ClassTemplateRow, TemplateCallableRow
from ..cxx_types import cxx_spelling_of
from .args import TemplateArgument, substitute
from .calls import (
    COMPOUND_OPERATORS,
    declared_values,
    intent_modes,
    needs_compiler_for_result,
    plan_instance_call,
)
from .context import NEEDS_COMPILER, TemplateContext
from .probe import NO_COUNTERPART, Probe, ProbeAnswer, TemplateInstantiationError

logger = logging.getLogger(__name__)

_NO_OFFSETOF: list = []  # set once NVRTC turns out to lack __builtin_offsetof


def instance_layout(
    context: TemplateContext,
    row: ClassTemplateRow,
    arguments: list[TemplateArgument],
    spelling: str,
) -> dict:
    """The layout of the instance ``spelling`` of ``row`` (size, alignment, offsets of the
    public fields) and the types only the compiler can tell, asked of it once: recorded in the
    context's instance store."""
    instance = f"::{spelling}"
    unknown = _unknown_types(context, row, arguments, instance)
    # The public member types (``TempStorage``) are asked with the rest: declaring them is
    # part of instantiating the class, so asking costs nothing more and cannot fail alone.
    unknown.update({f"y{i}": f"typename {instance}::{name}" for i, name in
                    enumerate(row.member_types)})  # fmt: skip

    def ask() -> dict:
        constants = {"size": f"sizeof({instance})", "align": f"alignof({instance})"}
        offsets = {
            f"off{i}": f"__builtin_offsetof({instance}, {name})"
            for i, name in enumerate(row.public_fields)
        }
        answer = None
        if not _NO_OFFSETOF:
            try:
                answer = _layout_probe(context, {**constants, **offsets}, unknown, instance)
            except TemplateInstantiationError as exc:
                if "__builtin_offsetof" not in str(exc):
                    raise
                # This NVRTC (CUDA 13.0's) has no offsetof builtin: the layout is then
                # checked by size and alignment only.
                _NO_OFFSETOF.append(True)
        if answer is None:
            answer = _layout_probe(context, constants, unknown, instance)
        return {
            "sizeof": answer.constants["size"],
            "alignof": answer.constants["align"],
            "offsets": {
                name: answer.constants[f"off{i}"]
                for i, name in enumerate(row.public_fields)
                if f"off{i}" in answer.constants
            },
            "types": context.described(answer, unknown),
        }

    record = dict(context.recorded(["class", row.declaration, spelling], ask))
    types_ = record["types"]
    record["member_types"] = {
        name: types_[f"y{i}"] for i, name in enumerate(row.member_types) if f"y{i}" in types_
    }
    return record


def _layout_probe(
    context: TemplateContext, constants: dict, unknown: dict, instance: str
) -> ProbeAnswer:
    """The layout probe. Member types written with the class's own names (CUTLASS's
    ``Storage storage[kElements]``, ``reference at(size_type)``) name nothing at global
    scope: when the probe fails with them, they are asked again inside the class (a class
    derived from the instance, in its namespace), and when that fails too, left unknown (the
    members using them are left out, the fields make an opaque model): the instance binds."""
    try:
        return context.probe(Probe(constants, unknown, optional=unknown), instance)
    except TemplateInstantiationError as exc:
        if not unknown or "__builtin_offsetof" in str(exc):
            raise
        first = exc
    try:
        return context.probe(Probe(constants, unknown, optional=unknown, scope=instance), instance)
    except TemplateInstantiationError:
        pass
    answer = context.probe(Probe(constants), instance)  # the class itself must compile
    logger.info("%s: member types left unknown, as the compiler reads them: %s", instance, first)
    answer.types.update({slot: NO_COUNTERPART for slot in unknown})
    return answer


def _unknown_types(
    context: TemplateContext,
    row: ClassTemplateRow,
    arguments: list[TemplateArgument],
    instance: str,
) -> dict:
    """Slots (name -> C++ type-id) for the member types only the compiler can tell."""
    unknown = {}
    evaluate = context.evaluate
    public = set(row.public_fields)
    for index, (name, type_row) in enumerate(row.fields):
        # A probe cannot name a private member type (``_TempStorage &``); such a field
        # stays unknown and the instance gets an opaque model of its size.
        if name in public and evaluate(type_row.pattern, arguments) is NEEDS_COMPILER:
            unknown[f"f{index}"] = substitute(type_row.spelling, arguments)
    for m, member in enumerate(row.members):
        if member.own_params:
            continue  # member function templates are instantiated when called
        for p, (_name, type_row, _default) in enumerate(member.params):
            if evaluate(type_row.pattern, arguments) is NEEDS_COMPILER:
                unknown[f"m{m}p{p}"] = substitute(type_row.spelling, arguments)
        result = member.result
        if result is not None and member.kind != rows.CONSTRUCTOR:
            if needs_compiler_for_result(result):
                unknown[f"m{m}r"] = _result_expression(member, arguments, instance)
            elif evaluate(result.pattern, arguments) is NEEDS_COMPILER:
                unknown[f"m{m}r"] = substitute(result.spelling, arguments)
    return unknown


def instance_body(
    context: TemplateContext,
    row: ClassTemplateRow,
    arguments: list[TemplateArgument],
    numba_type: types.Type,
    spelling: str,
    layout: dict,
) -> StructBodyRow:
    """The struct body of the instance ``spelling`` with its
    members from ``row``: fields at the offsets of ``layout``, a call row per member that binds
    (the others are logged and left out), and the member templates."""
    answered = {slot: context.undescribe(d) for slot, d in layout["types"].items()}

    def resolved(slot: str, type_row) -> Any:
        found = context.evaluate(type_row.pattern, arguments)
        return answered.get(slot) if found is NEEDS_COMPILER else found

    fields = [(name, resolved(f"f{i}", t)) for i, (name, t) in enumerate(row.fields)]
    members: list[MemberRow] = []
    member_templates = tuple(member for member in row.members if member.own_params)
    for m, member in enumerate(row.members):
        if member.own_params:
            continue
        try:
            for shortened in with_defaults_left_out(member):
                members.append(
                    _member(
                        context, shortened, m, arguments, numba_type, spelling, resolved, answered
                    )  # fmt: skip
                )
        except (TypeError, TemplateInstantiationError) as exc:
            logger.info("%s: member %s is not bound: %s", spelling, member.declaration, exc)
    return StructBodyRow(
        _natural_fields(fields, layout),
        tuple(row.public_fields),
        tuple(members),
        member_templates,
    )


def ambiguous_constructor_arguments(members: Sequence[MemberRow]) -> set[tuple]:
    """The argument types that more than one constructor of the instance takes
    (``Ambig(T)`` beside ``Ambig(const T &)``): C++ cannot choose between them, so a
    kernel constructing from them is an error at typing, not at link time."""
    seen: set[tuple] = set()
    ambiguous: set[tuple] = set()
    for member in members:
        if member.kind != rows.CONSTRUCTOR:
            continue
        taken = tuple(
            types.CPointer(a.type) if a.mode == rows.POINTER else a.type
            for a in member.call.arguments
            if a.mode != rows.HIDDEN_OUT
        )
        if taken in seen:
            ambiguous.add(taken)
        seen.add(taken)
    return ambiguous


def with_defaults_left_out(member: TemplateCallableRow) -> list[TemplateCallableRow]:
    """``member`` as each call may give it: without some of its trailing parameters that have
    defaults (``Sort(keys)`` for ``Sort(KeyT (&)[N], int begin_bit = 0, int end_bit = ...)``),
    whose values C++ fills in; all of them last."""
    count = len(member.params)
    first = count
    while first > 0 and member.params[first - 1][2]:
        first -= 1
    return [
        member._replace(params=member.params[:arity], intents=member.intents[:arity])
        for arity in range(first, count + 1)
    ]


def _member(
    context: TemplateContext,
    member: TemplateCallableRow,
    m: int,
    arguments: list[TemplateArgument],
    numba_type: types.Type,
    spelling: str,
    resolved,
    answered: Mapping[str, Any],
) -> MemberRow:
    params = [resolved(f"m{m}p{p}", t) for p, (_n, t, _d) in enumerate(member.params)]
    result = None
    if member.result is not None:
        if needs_compiler_for_result(member.result):
            result = answered[f"m{m}r"]
        else:
            result = resolved(f"m{m}r", member.result)
    if NO_COUNTERPART in (*params, result):
        raise TypeError("a type it uses has no Numba counterpart (bind the C++ type first)")
    instance = f"::{spelling}"
    this = ShimValue(numba_type, spelling, align=numba_type.alignof_)
    kind = member.kind
    modes = intent_modes(member.intents, len(member.params))
    plan = functools.partial(plan_instance_call, member, params, callee=instance, modes=modes)
    if kind == rows.CONSTRUCTOR:
        body = functools.partial(_constructor, instance)
        call = plan(numba_type, body)
    elif kind == rows.CONVERSION:
        call = plan(
            result, lambda _p, _r: conversion_body(cxx_spelling_of(result)), object_value=this
        )
    elif kind == rows.OPERATOR:
        compound = member.name in COMPOUND_OPERATORS
        body = functools.partial(operator_body, member.cxx_name)
        call = plan(
            None if compound else result, body, object_value=this, returns_first_argument=compound
        )
    elif kind == rows.STATIC_METHOD:
        body = functools.partial(function_call_body, f"{instance}::{member.cxx_name}")
        call = plan(result, body)
    elif member.name == SETITEM:  # v[i] = x through operator[]'s reference
        call = plan(None, element_assignment_body, object_value=this)
    else:
        body = functools.partial(method_call_body, member.cxx_name)
        call = plan(result, body, object_value=this)
    return MemberRow(kind, member.name, call, member.flag)


def _constructor(instance: str, params, _returns: bool) -> str:
    return constructor_body(instance, params)


def _result_expression(
    member: TemplateCallableRow, arguments: list[TemplateArgument], instance: str
) -> str:
    """``decltype`` of calling ``member`` on an instance, for results only the compiler knows."""
    values = declared_values(substitute(t.spelling, arguments) for _n, t, _d in member.params)
    if member.kind == rows.STATIC_METHOD:
        return f"decltype({instance}::{member.cxx_name}({values}))"
    target = f"nbi_probe::declval<{instance} &>()"
    if member.kind == rows.CONVERSION:
        return substitute(member.result.spelling, arguments)
    if member.kind == rows.OPERATOR:
        operands = [target, values] if values else [target]
        return f"decltype({operator_expression(member.cxx_name, operands)})"
    return f"decltype({target}.{member.cxx_name}({values}))"


def _size_and_align(numba_type: types.Type) -> tuple[int, int] | None:
    if isinstance(numba_type, (types.Boolean, types.Integer, types.Float)):
        size = 1 if isinstance(numba_type, types.Boolean) else numba_type.bitwidth // 8
        return size, size
    if isinstance(numba_type, (types.CPointer,)) or numba_type == types.voidptr:
        return 8, 8
    if getattr(numba_type, "cxx_qual_name", None) is not None:
        return numba_type.sizeof_, numba_type.alignof_
    if isinstance(numba_type, types.UniTuple):
        inner = _size_and_align(numba_type.dtype)
        return None if inner is None else (inner[0] * numba_type.count, inner[1])
    count, base = getattr(numba_type, "num_elements", None), getattr(numba_type, "base_type", None)
    if count is not None and base is not None:
        element = base.bitwidth // 8
        return element * count, min(element * count, 16) if count in (2, 4) else element
    return None


def _natural_fields(fields: list, layout: dict) -> tuple | None:
    """The fields as StructModel members at the compiler's offsets and size, with padding
    members where LLVM would not pad as C++ does (``planning.struct_layout``); else None (the
    instance gets an opaque model of its size)."""
    if not fields:
        return None
    slots = []
    offset = 0
    for name, numba_type in fields:
        measured, storage_align = _size_and_align(numba_type), _storage_align(numba_type)
        if measured is None or storage_align is None:
            return None
        size, align = measured
        known = layout["offsets"].get(name)
        offset = known if known is not None else (offset + align - 1) // align * align
        slots.append(FieldSlot(name, offset, size, storage_align))
        offset += size
    order, _why_not = padded_members(slots, layout["sizeof"])
    if order is None:
        return None
    by_name = dict(fields)
    members, position = [], 0
    for item, slot in _with_slots(order, slots):
        if isinstance(item, int):
            members.append((f"_numbast_pad{position}", types.UniTuple(types.uint8, item)))
            position += item
        else:
            members.append((item, by_name[item]))
            position = slot.offset + slot.size
    return tuple(members)


def _with_slots(order: list, slots: list[FieldSlot]):
    named = {slot.name: slot for slot in slots}
    return [(item, None if isinstance(item, int) else named[item]) for item in order]


def _storage_align(numba_type: types.Type) -> int | None:
    """The alignment of ``numba_type`` in an LLVM struct; 1 for bound structs (not known here:
    padding then places them), None for types this does not know."""
    if isinstance(numba_type, types.Boolean):
        return 1
    if isinstance(numba_type, (types.Integer, types.Float)):
        return numba_type.bitwidth // 8
    if isinstance(numba_type, types.CPointer) or numba_type == types.voidptr:
        return 8
    if getattr(numba_type, "cxx_qual_name", None) is not None:
        return 1
    if isinstance(numba_type, types.UniTuple):
        return _storage_align(numba_type.dtype)
    base = getattr(numba_type, "base_type", None)
    if getattr(numba_type, "num_elements", None) is not None and base is not None:
        return base.bitwidth // 8  # a CUDA vector type: a struct of its elements
    return None

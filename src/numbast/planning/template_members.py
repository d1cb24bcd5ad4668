"""Members of class templates as template callables: methods, constructors, operators,
conversions and member function templates (how each binds: ``member_kinds``), with each
parameter's argument intent, given or the members' default (``intents.default_member_intent``).
"""

from __future__ import annotations

from ast_canopy.model import FunctionTemplate, Method
from numbast.core import rows
from numbast.core.shim_text import SETITEM
from numbast.core.template_rows import TemplateCallableRow
from numbast.planning.descriptions import location_of
from numbast.planning.diagnostics import BindingError
from numbast.planning.intents import IntentSpec, member_intents
from numbast.planning.member_kinds import MemberKind, member_kind
from numbast.planning.template_types import (
    TemplateNames,
    param_rows,
    result_row,
    type_row,
    unsupported_parameter,
)


def member_row(
    method: Method,
    names: TemplateNames,
    intents: IntentSpec | None = None,
    returns_outputs: bool = True,
) -> TemplateCallableRow | None:
    """A member of a class template as a template callable; None when it is not bound by
    design (non-public, deleted, copy/move, destructors); raises BindingError otherwise.
    ``intents`` are the argument intents given for it (the rest take the members' defaults;
    with ``returns_outputs`` False, a ``void`` member's output references are taken by pointer,
    not returned)."""
    member = member_kind(method)
    if member is None:
        return None
    params = tuple((p.name, type_row(p.type_, names), p.default_value is not None)
                   for p in method.params)  # fmt: skip
    if member.kind == rows.CONSTRUCTOR:
        modes = _member_intents(method, params, intents, names, constructor=True)
        return _callable(member, params, None, method, modes)
    result = result_row(method.return_type, names)
    if member.kind in (rows.METHOD, rows.STATIC_METHOD):
        returns_void = result is None and returns_outputs
        modes = _member_intents(method, params, intents, names, returns_void=returns_void)
        return _callable(member, params, result, method, modes)
    return _callable(member, () if member.kind == rows.CONVERSION else params, result, method)


def element_assignment_row(reading: TemplateCallableRow) -> TemplateCallableRow:
    """``v[i] = x`` through a non-const ``operator[]`` returning a reference (``reading``, its
    row as ``v[i]``): the non-const method ``shim_text.SETITEM(i, x)``, x of the element's type."""
    element = reading.result._replace(reference="")
    params = (*reading.params, ("value", element, False))
    return reading._replace(kind=rows.METHOD, name=SETITEM, params=params, result=None,
                            flag=True, intents=())  # fmt: skip


def _member_intents(
    method: Method,
    params: tuple,
    spec: IntentSpec | None,
    names: TemplateNames,
    *,
    constructor: bool = False,
    returns_void: bool = False,
) -> tuple[str, ...]:
    """Each parameter's intent: given, or the members' default."""
    first_own = names.depths[1] if len(names.depths) > 1 else len(names.params)
    own = {
        index
        for index, (_name, type_row_, _default) in enumerate(params)
        if type_row_.pattern[0] == "param" and type_row_.pattern[1] >= first_own
    }
    return member_intents(
        method.qual_name,
        method.params,
        spec,
        constructor=constructor,
        returns_void=returns_void,
        own_parameters=own,
    )


def _callable(
    member: MemberKind, params, result, method: Method, intents: tuple[str, ...] = ()
) -> TemplateCallableRow:
    where = location_of(method)
    declaration = f"{method.qual_name}(...)  // {where.rsplit('/', 1)[-1]}" if where else ""
    kind, name, cxx_name, flag = member
    if all(intent == "in" for intent in intents):
        intents = ()
    return TemplateCallableRow(kind, name, cxx_name, params, result, flag, (), declaration,
                               intents)  # fmt: skip


def member_template_row(
    templ: FunctionTemplate,
    names: TemplateNames,
    skip,
    intents: IntentSpec | None = None,
    returns_outputs: bool = True,
) -> TemplateCallableRow | None:
    method = templ.function
    reason = unsupported_parameter(templ.template_parameters)
    if reason is not None:
        skip("member template", method.qual_name, reason, location_of(method))
        return None
    inner = names.nested(templ.template_parameters)
    try:
        row = (member_row(method, inner, intents, returns_outputs) if isinstance(method, Method)
               else None)  # fmt: skip
    except BindingError as exc:
        skip("member template", method.qual_name, str(exc), location_of(method))
        return None
    if row is None:
        return None
    return row._replace(own_params=param_rows(templ.template_parameters, inner))


def outputs_told_apart(entries: list) -> list[TemplateCallableRow]:
    """The member rows, in order; overloads that differ only in their outputs (CUB's
    ``ExclusiveSum(x, out)`` and ``ExclusiveSum(x, out, aggregate)``) would take the same
    arguments once their outputs are returned, so only the one with the fewest parameters
    returns its default outputs; the others take theirs by pointer (an array or a pointer).
    ``entries`` are (row, a function making the row with its outputs by pointer)."""
    seen = set()
    result: list = [row for row, _by_pointer in entries]
    for index in sorted(range(len(entries)), key=lambda i: len(entries[i][0].params)):
        row, by_pointer = entries[index]
        key = _arguments_taken(row)
        if key in seen and "out_return" in row.intents:
            try:
                row = by_pointer() or row
            except BindingError:
                pass
            key = _arguments_taken(row)
        seen.add(key)
        result[index] = row
    return result


def _arguments_taken(row: TemplateCallableRow) -> tuple:
    intents = row.intents or ("in",) * len(row.params)
    taken = tuple(t.spelling for (_n, t, _d), i in zip(row.params, intents, strict=True)
                  if i != "out_return")  # fmt: skip
    return row.kind, row.name, taken

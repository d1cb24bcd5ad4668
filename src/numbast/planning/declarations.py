"""What binding one declaration means, decided without Numba: its rows.

Dynamic binding (``bind_cxx_function``, ``bind_cxx_struct``...) and the static generator both
plan here which Python operator or stub a declaration binds to, which shim it calls and how each
argument crosses the shim. The result is rows (``numbast.core.rows``) whose calls are still
``CallPlan``\\ s and whose types are the type table's; ``numbast.core.row_writer`` indexes
them. Dynamic binding then applies them at once; the static generator writes them into a module.

Every planner raises BindingError or UnsupportedTypeError with the reason a declaration cannot
be bound; callers report skips.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import keyword
import logging
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from ast_canopy.model import (
    Access,
    Enum_,
    Function,
    Method,
    Struct,
    Type,
    TypeKind,
)
from numbast.core import rows
from numbast.core.rows import EnumRow, FunctionRow, MemberRow, StructBodyRow, StructRow
from numbast.core.shim_text import (
    SETITEM,
    constructor_body,
    conversion_body,
    element_assignment_body,
    function_call_body,
    method_call_body,
    operator_body,
    shim_name_for,
)
from numbast.planning.calls import CallPlan, plan_call
from numbast.planning.descriptions import (
    callee_spelling,
    declaration_text,
    host_only_reason,
    location_of,
    method_text,
    signature_text,
    struct_host_only_reason,
)
from numbast.planning.diagnostics import BindingError
from numbast.planning.implicit_constructors import implicit_constructors
from numbast.planning.intents import ArgIntent, IntentSpec, resolve_intents
from numbast.planning.member_kinds import assigns_elements, member_kind
from numbast.planning.operators import COMPOUND, no_python_syntax, python_operator_for
from numbast.planning.struct_layout import struct_members
from numbast.planning.template_members import member_template_row
from numbast.planning.template_types import TemplateNames
from numbast.planning.type_rules import TypeTable, UnsupportedTypeError

logger = logging.getLogger(__name__)

# -- free functions and free operators --------------------------------------------------------


def omittable_arguments(func: Function) -> int:
    """How many trailing parameters have default arguments: calls may leave that many out."""
    count = 0
    for param in reversed(func.params):
        if param.default_value is None:
            break
        count += 1
    return count


def _without_last(func: Function, omitted: int) -> tuple[Function, str]:
    """``func`` as a call that leaves out its last ``omitted`` arguments sees it (the shim
    calls it with the rest and C++ supplies the defaults), and the shim role that keeps that
    form's shim apart from the full one's."""
    if not omitted:
        return func, ""
    if omitted > omittable_arguments(func):
        raise BindingError(f"only {omittable_arguments(func)} parameter(s) have defaults")
    return dataclasses.replace(func, params=func.params[: len(func.params) - omitted]), (
        f"d{omitted}"
    )


def plan_function(
    func: Function,
    type_table: TypeTable,
    arg_intents: IntentSpec | None = None,
    python_name: str | None = None,
    omitted: int = 0,
) -> FunctionRow:
    """The row of a free function or free operator (its call still a CallPlan); ``omitted``:
    the row of calls leaving out that many defaulted trailing arguments."""
    func, role = _without_last(func, omitted)
    host_only = host_only_reason(func)
    if host_only is not None:
        raise BindingError(host_only)
    if func.is_deleted:
        raise BindingError("it is deleted")
    if func.is_variadic:
        raise BindingError("variadic functions cannot be bound")

    intents = resolve_intents(func.qual_name, func.params, arg_intents)
    params = [(p.type_, intent) for p, intent in zip(func.params, intents, strict=True)]
    shim_name = shim_name_for(func.mangled_name, signature_text(func), role)
    declaration = declaration_text(func)

    if func.operator is None:
        plan = plan_call(
            shim_name,
            params,
            func.return_type,
            functools.partial(function_call_body, callee_spelling(func)),
            type_table=type_table,
        )
        name = python_name or func.name
        return FunctionRow(name, func.qual_name, "", plan, func.name, False, declaration)

    key = python_operator_for(func.operator, len(func.params))
    if key is None:
        operands = len(func.params)
        raise BindingError(
            no_python_syntax(func.operator, operands)
            or f"operator{func.operator} with {operands} operand(s) has no Python counterpart"
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
    label = f"operator_{key.__name__}"
    return FunctionRow("", func.qual_name, key.__name__, plan, label, False, declaration)


# -- structs ----------------------------------------------------------------------------------


def plan_struct(decl: Struct, python_name: str, parent_type: Any, data_model: Any) -> StructRow:
    """The struct's own row; raises BindingError when it cannot be bound."""
    if decl.sizeof_ is None or decl.alignof_ is None:
        raise BindingError("its size is unknown (incomplete type)")
    host_only = struct_host_only_reason(decl)
    if host_only is not None:
        raise BindingError(host_only)
    return StructRow(
        python_name, decl.qual_name, decl.sizeof_, decl.alignof_, parent_type, data_model
    )


SkipReporter = Callable[[str, str, str, str], None]  # (kind, what, reason, where)
BoundReporter = Callable[[str, str, str], None]  # (what, where, shim name) of a bound member
CallGuard = Callable[[CallPlan, Method], CallPlan]  # adjusts a member's call (arch guards)


def plan_struct_body(
    decl: Struct,
    object_type: Any,
    type_table: TypeTable,
    skip: SkipReporter,
    guard: CallGuard | None = None,
    bound: BoundReporter | None = None,
    method_intents: Callable[[Method], IntentSpec | None] | None = None,
    inherited: Sequence[Method] = (),
) -> StructBodyRow:
    """Fields and members of ``decl`` (``object_type``: the struct's type in ``type_table``).

    Fields are None when they cannot reproduce the C++ layout (the struct then gets an opaque
    model; the runtime also ignores them unless the data model is a StructModel). Members that
    cannot be bound are reported through ``skip`` and left out; ``guard`` may adjust each
    member's call (the static generator's per-arch guards); ``bound`` hears of each member
    bound (for coverage reports); ``method_intents`` gives a method's argument intents
    (None: every argument ``in``). ``inherited`` are the bases' members ``decl`` inherits
    (``planning.inheritance``): members of ``decl`` too, reported with their base's.
    """
    members, reason = struct_members(decl, type_table)
    fields = None if members is None else tuple(members)
    if fields is None:
        logger.info("%s gets an opaque data model: %s", decl.qual_name, reason)
    public_fields = tuple(f.name for f in decl.fields if f.access is Access.PUBLIC)
    member_rows = []
    this = (object_type, decl.qual_name, decl.alignof_)
    for method in decl.methods:
        try:
            intents = None if method_intents is None else method_intents(method)
            row = plan_member(decl, method, this, type_table, intents)
        except (BindingError, UnsupportedTypeError) as exc:
            skip("method", method_text(method), str(exc), location_of(method))
            continue
        if row is None:
            continue
        if guard is not None:
            row = row._replace(call=guard(row.call, method))
        member_rows.append(row)
        if bound is not None:
            bound(method_text(method), location_of(method), row.call.shim_name)
        if assigns_elements(method):
            setter = _element_assignment(method, this, type_table)
            member_rows.append(setter if guard is None else
                               setter._replace(call=guard(setter.call, method)))  # fmt: skip
        for shorter in _defaulted_member_rows(decl, method, this, type_table, intents):
            member_rows.append(shorter if guard is None else
                               shorter._replace(call=guard(shorter.call, method)))  # fmt: skip
    for method in inherited:
        try:
            intents = None if method_intents is None else method_intents(method)
            row = plan_member(decl, method, this, type_table, intents, inherited=True)
        except (BindingError, UnsupportedTypeError) as exc:
            logger.debug("%s: inherited %s is not bound: %s", decl.qual_name, method.name, exc)
            continue
        if row is not None:
            member_rows.append(row if guard is None else row._replace(call=guard(row.call, method)))
    member_rows += implicit_constructors(decl, struct_value_type(decl), type_table)
    return StructBodyRow(
        fields,
        public_fields if fields else (),
        tuple(member_rows),
        member_templates(decl, skip),
    )


def _defaulted_member_rows(
    decl: Struct,
    method: Method,
    this: tuple[Any, str, int | None],
    type_table: TypeTable,
    intents: IntentSpec | None,
) -> list[MemberRow]:
    """Rows of the calls that leave out defaulted trailing arguments (``a.incr()`` for
    ``incr(unsigned long long n = 1)``), as overloads of the member's name."""
    found = []
    for omitted in range(1, omittable_arguments(method) + 1):
        try:
            row = plan_member(decl, method, this, type_table, intents, omitted=omitted)
        except (BindingError, UnsupportedTypeError) as exc:
            logger.debug(
                "%s without its last %d argument(s): %s", method_text(method), omitted, exc
            )
            continue
        if row is not None:
            found.append(row)
    return found


def member_templates(decl: Struct, skip: SkipReporter) -> tuple:
    """The struct's member function templates, as template callables."""
    names = TemplateNames((), ())
    found = (member_template_row(t, names, skip) for t in decl.templated_methods)
    return tuple(row for row in found if row is not None)


def plan_member(
    decl: Struct,
    method: Method,
    object_type: tuple[Any, str, int | None],
    type_table: TypeTable,
    arg_intents: IntentSpec | None = None,
    inherited: bool = False,
    omitted: int = 0,
) -> MemberRow | None:
    """The row of one member of ``decl``; None for members that are not bound by design
    (non-public, deleted, copy/move constructors, destructors).

    ``object_type`` is (the struct's type, its C++ spelling, its alignment); ``arg_intents``
    the intents of a method's reference and pointer parameters (methods and static methods);
    ``inherited``: a base's member, called through ``decl`` (a shim of its own per class);
    ``omitted``: the row of calls leaving out that many defaulted trailing arguments.
    """
    member = member_kind(method)
    if member is None:
        return None
    method, default_role = _without_last(method, omitted)
    if arg_intents and member.kind not in (rows.METHOD, rows.STATIC_METHOD):
        raise BindingError("argument intents apply to methods and static methods only")
    intents = resolve_intents(method.qual_name, method.params, arg_intents)
    params = [(p.type_, intent) for p, intent in zip(method.params, intents, strict=True)]
    plan = functools.partial(plan_call, type_table=type_table)
    role = _ROLES.get(member.kind, "") + default_role
    if inherited:  # the same base member called through each derived class: one shim each
        role += f"in{hashlib.sha256(decl.qual_name.encode()).hexdigest()[:8]}"
    shim_name = shim_name_for(method.mangled_name, method_text(method), role)
    if member.kind == rows.CONSTRUCTOR:
        body = functools.partial(_constructor, decl.qual_name)
        call = plan(shim_name, params, struct_value_type(decl), body)
    elif member.kind == rows.CONVERSION:
        target_type = method.return_type
        body = functools.partial(_conversion, target_type.canonical_name)
        call = plan(shim_name, [], target_type, body, object_type=object_type)
    elif member.kind == rows.OPERATOR:
        compound = member.cxx_name in COMPOUND
        body = functools.partial(operator_body, member.cxx_name)
        result = None if compound else method.return_type
        call = plan(shim_name, params, result, body, object_type=object_type,
                    returns_first_argument=compound)  # fmt: skip
    elif member.kind == rows.METHOD:
        body = functools.partial(method_call_body, member.cxx_name)
        call = plan(shim_name, params, method.return_type, body, object_type=object_type)
    else:  # STATIC_METHOD
        body = functools.partial(function_call_body, f"::{decl.qual_name}::{method.name}")
        call = plan(shim_name, params, method.return_type, body)
    return MemberRow(member.kind, member.name, call, member.flag)


def _element_assignment(method: Method, this: tuple, type_table: TypeTable) -> MemberRow:
    """``v[i] = x`` through a non-const ``operator[]`` returning a reference
    (``member_kinds.assigns_elements``): the non-const method ``shim_text.SETITEM(i, x)``."""
    params = [(method.params[0].type_, ArgIntent.IN),
              (method.return_type.referenced(), ArgIntent.IN)]  # fmt: skip
    shim_name = shim_name_for(method.mangled_name, method_text(method), "set")
    call = plan_call(shim_name, params, None, element_assignment_body, object_type=this,
                     type_table=type_table)  # fmt: skip
    return MemberRow(rows.METHOD, SETITEM, call, True)


# Shim name roles that keep a struct's constructors and conversions apart from its methods.
_ROLES = {rows.CONSTRUCTOR: "ctor", rows.CONVERSION: "conv"}


def _constructor(qual_name: str, shim_params: Any, _returns: bool) -> str:
    return constructor_body(qual_name, shim_params)


def _conversion(target: str, _params: Any, _returns: bool) -> str:
    return conversion_body(target)


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


def plan_enum(
    enum_decl: Enum_,
    type_table: TypeTable,
    is_integer: Callable[[Any], bool],
    python_name: str | None = None,
    prefixes: Iterable[str] = (),
) -> tuple[EnumRow, Any]:
    """The enum's row and its underlying integer type in ``type_table``. Enumerators that are
    Python keywords get a trailing _; ``prefixes`` are removed from the enumerators' names
    (API Prefix Removal)."""
    if not enum_decl.name:
        raise BindingError("an anonymous enum has no type to bind")
    underlying = type_table.to_type(enum_decl.underlying_type)
    if not is_integer(underlying):
        raise BindingError(f"underlying type {underlying} is not integral")
    members = tuple(
        (python_member_name(remove_prefix(name, prefixes)), value)
        for name, value in zip(enum_decl.enumerators, enum_decl.enumerator_ints, strict=True)
    )
    row = EnumRow(python_name or enum_decl.name, enum_decl.qual_name, members, enum_decl.is_scoped)
    return row, underlying


def remove_prefix(name: str, prefixes: Iterable[str]) -> str:
    """``name`` without the first of ``prefixes`` it starts with (Numbast's API Prefix Removal);
    unchanged when nothing would be left."""
    for prefix in prefixes:
        if prefix and name.startswith(prefix) and len(name) > len(prefix):
            return name[len(prefix) :]
    return name

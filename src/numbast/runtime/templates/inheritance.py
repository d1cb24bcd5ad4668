"""The members a class template instance inherits from its public bases, as C++ finds them.

``numeric_limits<float>`` has no member of its own: ``max()`` is its base
``__numeric_limits_impl<float, ...>``'s; cooperative groups' ``thread_block_tile<32, ...>``
reaches ``thread_rank()`` and ``shfl_down()`` through three levels of bases. The class template's
row names its bases (``ClassTemplateRow.bases``, patterns in its parameters); an instance's bases
are those patterns evaluated with its arguments (instances of the module's class templates,
made as any instance is, or the specializations the header defines).

A base that is an instance of a class template: its members are planned again for the derived
instance (calls through the derived object, ``(*a0).name(args)`` and ``::Derived::name(args)``,
so C++ finds the member and adjusts the object's address); its member templates are callable
on the derived type too. A base bound as a struct (an explicit specialization): its static
members are reachable through the derived type. As in C++, a name declared closer hides the
bases' members of that name, and a name two bases provide is left out (ambiguous); constructors
are not inherited.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any, NamedTuple

from numba.cuda import types

from ...core import rows
from ...core.rows import MemberRow
from ...core.template_rows import ClassTemplateRow
from ..cxx_types import cxx_spelling_of
from .args import TemplateArgument, substitute
from .context import NEEDS_COMPILER, TemplateContext
from .instances import instance_body, instance_layout
from .partials import specialized_row
from .probe import NO_COUNTERPART, Probe, TemplateInstantiationError

logger = logging.getLogger(__name__)


class Inherited(NamedTuple):
    members: list[MemberRow]  # the bases' members, planned for the derived instance
    member_templates: list[tuple[tuple, list[TemplateArgument]]]  # (rows, their class's args)
    static_bases: list[types.Type]  # bases bound as structs: their static members are reached


def inherited(
    context: TemplateContext,
    row: ClassTemplateRow,
    arguments: list[TemplateArgument],
    numba_type: types.Type,
    spelling: str,
    own_names: set[str],
) -> Inherited:
    """What the instance ``spelling`` of ``row`` (with ``arguments``) inherits; ``own_names``:
    the names of its own members (they hide the bases')."""
    found = Inherited([], [], [])
    provided: dict[str, int] = {}  # name -> how many direct bases provide it
    per_base = []
    for base_row in row.bases:
        base = _base_type(context, base_row, arguments, spelling)
        if base is None:
            continue
        collected = Inherited([], [], [])
        _collect(context, base, numba_type, spelling, collected, set(own_names), 0)
        names = {m.name for m in collected.members} | {
            t.name for group, _args in collected.member_templates for t in group
        }
        for name in names:
            provided[name] = provided.get(name, 0) + 1
        per_base.append(collected)
    for collected in per_base:
        found.members.extend(m for m in collected.members if provided.get(m.name, 0) == 1)
        for group, class_arguments in collected.member_templates:
            kept = tuple(t for t in group if provided.get(t.name, 0) == 1)
            if kept:
                found.member_templates.append((kept, class_arguments))
        found.static_bases.extend(collected.static_bases)
    return found


_DEPTH = 16  # bases of bases: deeper than any library writes, short of a cycle


def _collect(
    context: TemplateContext,
    base: types.Type,
    derived: types.Type,
    spelling: str,
    into: Inherited,
    hidden: set[str],
    depth: int,
) -> None:
    if depth > _DEPTH:
        return
    made = _made_instance(context, base)
    if made is None:
        into.static_bases.append(base)  # a struct: its static members only
        return
    base_row, base_arguments = made
    base_spelling = cxx_spelling_of(base)
    layout = instance_layout(context, base_row, base_arguments, base_spelling)
    body = instance_body(context, base_row, base_arguments, derived, spelling, layout)
    names = set()
    for member in body.members:
        if member.kind == rows.CONSTRUCTOR or member.name in hidden:
            continue
        into.members.append(member)
        names.add(member.name)
    templates = tuple(t for t in body.member_templates if t.name not in hidden)
    if templates:
        into.member_templates.append((templates, base_arguments))
    names |= {t.name for t in body.member_templates}
    deeper = hidden | names | {m.name for m in body.members}
    for base_row_of_base in base_row.bases:
        further = _base_type(context, base_row_of_base, base_arguments, base_spelling)
        if further is not None:
            _collect(context, further, derived, spelling, into, deeper, depth + 1)


def _made_instance(
    context: TemplateContext, base: types.Type
) -> tuple[ClassTemplateRow, list[TemplateArgument]] | None:
    """The row and arguments of ``base`` when the template runtime made it from a class
    template's row; None for a struct (a specialization the header defines)."""
    qual_name = getattr(base, "template_qual_name", None)
    binder = context.class_template(qual_name) if qual_name else None
    if binder is None or binder.is_specialization(base):
        return None
    return specialized_row(binder.row, list(base.template_arguments), context.enumerator_value)


def _base_type(
    context: TemplateContext, base_row: Any, arguments: Sequence[TemplateArgument], what: str
) -> types.Type | None:
    """The Numba type of one base, evaluated with the derived instance's arguments (asked of
    the compiler when only it can tell); None when it has no Numba counterpart."""
    found = context.evaluate(base_row.pattern, arguments)
    if found is not NEEDS_COMPILER:
        return found
    from ..deferred import run_pending

    run_pending()  # the module's structs are bound: the probe names them back
    text = substitute(base_row.spelling, arguments)
    try:
        answer = context.probe(Probe((), {"base": text}, optional=("base",)), f"a base of {what}")
    except TemplateInstantiationError as exc:
        logger.info("%s: base %s is not followed: %s", what, text, exc)
        return None
    base = answer.types.get("base")
    if base is None or base is NO_COUNTERPART:
        logger.info("%s: base %s has no Numba counterpart: not followed", what, text)
        return None
    return base

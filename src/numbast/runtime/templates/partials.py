"""Which row a class template instance takes its members from: the primary template's, or the
most specialized partial specialization's that its arguments match (C++'s choice), with that
row's own arguments deduced. A partial specialization's fixed arguments are C++ text (``3``,
``float``, or an enumerator written where the template is: ``METHOD_COUNT``, ``Scale::one``),
matched against the instance's by spelling, or by the bound enumerator's value."""

from __future__ import annotations

import functools
from collections.abc import Callable

from ...core.template_rows import ClassTemplateRow
from ..cxx_types import canonical_spelling
from .args import Deduction, DeductionError, TemplateArgument


def specialized_row(
    row: ClassTemplateRow,
    arguments: list[TemplateArgument],
    enumerator_value: Callable[[str], int | None] | None = None,
) -> tuple[ClassTemplateRow, list[TemplateArgument]]:
    """The row whose members an instance has (the primary template, or the most specialized
    partial specialization matching), and the arguments of that row. ``enumerator_value``
    (qualified C++ text -> the bound enumerator's value) reads an enumerator a partial
    specialization fixes (``Folder<T, N, METHOD_COUNT>``, ``Scaler<T, Scale::one>``)."""
    best = None
    value_of = functools.partial(_enumerator_in_scope, row.qual_name, enumerator_value)
    for partial, patterns in row.partial_specializations:
        own = partial.params
        deduction = Deduction(own, ())
        try:
            for pattern, argument in zip(patterns, arguments, strict=True):
                _match(deduction, pattern, argument, value_of)
        except (DeductionError, ValueError):
            continue
        if len(deduction.arguments) != len(own):
            continue
        fixed = sum(1 for p in patterns if p[0] != "param")
        if best is None or fixed > best[0]:
            best = (fixed, partial, [deduction.arguments[i] for i in range(len(own))])
    if best is None:
        return row, arguments
    return best[1], best[2]


def _enumerator_in_scope(
    qual_name: str, enumerator_value: Callable[[str], int | None] | None, text: str
) -> int | None:
    """The value of the enumerator ``text`` names where template ``qual_name`` is declared:
    looked up in its namespace, then each enclosing one (C++'s lookup from the template)."""
    if enumerator_value is None:
        return None
    scopes = canonical_spelling(qual_name).split("::")[:-1]
    for depth in range(len(scopes), -1, -1):
        value = enumerator_value("::".join([*scopes[:depth], text]))
        if value is not None:
            return value
    return None


def _match(
    deduction: Deduction,
    pattern: tuple,
    argument: TemplateArgument,
    value_of: Callable[[str], int | None] = lambda _text: None,
) -> None:
    """Deduce a partial specialization's parameters from one argument of the primary."""
    kind = pattern[0]
    if kind == "param":
        deduction.bind(pattern[1], argument)
    elif kind == "value":
        deduction.bind(pattern[1], argument)
    elif kind == "text":
        text = pattern[1].strip()
        if argument.is_type or str(argument.value) != text:
            same = canonical_spelling(argument.cxx) == canonical_spelling(text)
            if not same and (argument.value is None or value_of(text) != argument.value):
                raise ValueError("a fixed argument differs")
    elif argument.is_type:
        deduction.deduce(pattern, argument.numba_type)
    else:
        raise ValueError("a value where the specialization has a type")


__all__ = ["specialized_row"]

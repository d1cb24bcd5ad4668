"""Completing template arguments: the ones given (explicit or deduced), then defaults, read in
Python when they are a type this process knows, an integer expression or a bound enumerator,
else evaluated by the compiler once (the answer recorded in the instance store); value
arguments written as C++ text get their value the same way.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ...core.template_rows import TEMPLATE_PARAMETER
from ..cxx_types import canonical_spelling
from .args import (
    TemplateArgument,
    integer_value,
    normalized_arguments,
    substitute,
    template_argument,
    type_argument,
    value_argument,
)
from .context import TemplateContext
from .probe import NO_COUNTERPART, Probe, TemplateInstantiationError
from .storage import cxx_only_type


def resolve_values(
    context: TemplateContext, given: Mapping[int, TemplateArgument | None], what: str
) -> dict[int, TemplateArgument | None]:
    """``given`` with every value argument written as C++ text given its value, which the
    compiler evaluates once (``"ns::Mode::FAST"`` -> 2; recorded in the store). Raises
    TemplateInstantiationError when the compiler rejects the text."""
    resolved = dict(given)
    for index, argument in given.items():
        if argument is None or not argument.needs_value:
            continue
        text = argument.cxx
        known = context.enumerator_value(text)
        if known is not None:
            resolved[index] = TemplateArgument(text, value=known)
            continue

        def ask(text: str = text) -> dict:
            probe = Probe(constants={"v": f"static_cast<long long>({text})"})
            return {
                "value": context.probe(probe, f"{what} (template argument {text})").constants["v"]
            }

        record = context.recorded(["constant", context.library.preamble, text], ask)
        resolved[index] = TemplateArgument(text, value=record["value"])
    return resolved


def complete_arguments(
    context: TemplateContext,
    params: Sequence[Any],
    given: Mapping[int, TemplateArgument],
    what: str,
    hint: str = "",
) -> list[TemplateArgument]:
    """Every template argument, in order: the ``given`` ones (explicit or deduced, by index),
    then defaults. A default is read in Python when it is a type spelling this process knows or
    an integer expression; otherwise the compiler evaluates it (``int N = sizeof(T)``), once:
    the answer is recorded in the store. Value arguments written as C++ text get their value
    here (:func:`resolve_values`)."""
    given = resolve_values(context, given, what)
    arguments: list[TemplateArgument] = []
    for index, param in enumerate(params):
        if index in given and given[index] is not None:
            arguments.append(normalized_arguments([param], [given[index]])[0])
            continue
        if param.default is None:
            raise TemplateInstantiationError(
                f"{what}: template parameter {param.name or index} is neither deduced nor "
                f"defaulted{'; ' + hint if hint else ''}"
            )
        text = substitute(param.default, arguments).strip()
        arguments.append(_default(context, param, text, what))
    return normalized_arguments(params, arguments)


def _default(context: TemplateContext, param: Any, text: str, what: str) -> TemplateArgument:
    if param.kind == TEMPLATE_PARAMETER:
        return template_argument(text)
    if param.kind == "type":
        found = context.type_of(text)
        if found is not None:
            return TemplateArgument(canonical_spelling(text), numba_type=found)

        def probe_type() -> dict:
            probe = Probe(types_={"d": text}, optional={"d"})
            found = context.probe(probe, f"{what} (default {text})").types["d"]
            if found is NO_COUNTERPART:
                # A type nothing binds (CUB's ``NullType``): named by its text from now on.
                found = cxx_only_type(text)
            return {"type": context.describe(found)}

        record = context.recorded(["default", context.library.preamble, text], probe_type)
        return type_argument(context.undescribe(record["type"]))
    value = integer_value(text)
    if value is None:
        value = context.enumerator_value(text)
    if value is None:

        def probe_value() -> dict:
            answer = context.probe(Probe(constants={"d": text}), f"{what} (default {text})")
            return {"value": answer.constants["d"]}

        value = context.recorded(["default", context.library.preamble, text], probe_value)["value"]
    return value_argument(value, param.value_type)

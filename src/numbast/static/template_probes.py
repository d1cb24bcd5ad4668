"""Representative instances of a module's templates, for its coverage report.

A template row says only that a template was planned; whether any instance of it compiles is
known once the compiler tries one. So coverage counts a function, class or alias template as
bound only when a *probe*, one representative instantiation, compiles: every template
parameter without a default gets a plain argument (``int``, then ``unsigned int``, ``float``,
... for types; 1, 2, 4, ... for integers; ``true`` / ``false``; 0 for an enum), trailing
defaulted ones take their defaults, and the instance is used the way a kernel would use it: a
function template is called with values of its parameter types (its body is instantiated), a
class or alias template's instance has its size taken (its layout is made). Each probe is an
``extern "C"`` function, so a unit of probes compiles with NVRTC like a unit of shims, and the
compiler's rejection of one probe names it (``numbast_import.template_coverage`` tries the
candidates round by round).

Plain data and C++ text only: nothing here imports Numba.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, NamedTuple

from numbast.core.rows import TYPE_PARAMETER

# Round r gives every type parameter TYPE_ARGUMENTS[r] and every integer one INTEGER_ARGUMENTS[r].
TYPE_ARGUMENTS = ("int", "unsigned int", "float", "double", "long long", "unsigned long long")
INTEGER_ARGUMENTS = ("1", "2", "4", "8", "3", "16")
BOOL_ARGUMENTS = ("true", "false")
ROUNDS = len(TYPE_ARGUMENTS)
_INTEGER_TYPES = re.compile(
    r"(?:(?:un)?signed\s+)?(?:char|short|int|long|long\s+long)(?:\s+int)?|unsigned|"
    r"(?:::)?(?:std::|cuda::std::)?u?int(?:8|16|32|64)_t|(?:::)?(?:std::|cuda::std::)?size_t"
)
_PLACEHOLDER = re.compile(r"\{(\d+)\}")

# Declared, never defined: a probe only needs an expression of each parameter type (the unit is
# compiled, never linked).
PROBE_HELPERS = "template <class T> __device__ T &&nbi_probe_value();"


class TemplateProbe(NamedTuple):
    """The candidate instances of one template declaration, tried in order."""

    kind: str  # the coverage decision's kind: "function template", "class template", ...
    what: str  # the decision's name (several overloads of a function template share one)
    candidates: tuple[tuple[str, str], ...]  # (template-id, C++ statement that uses it)


def template_probes(planned: Any) -> tuple[TemplateProbe, ...]:
    """The probes of a planned module's function, class and alias templates."""
    probes = []
    for row in planned.function_templates:
        probes.append(TemplateProbe("function template", row.qual_name, _function_uses(row)))
    for row in planned.class_templates:
        probes.append(TemplateProbe("class template", row.qual_name, _type_uses(row)))
    for row in planned.alias_templates:
        probes.append(TemplateProbe("alias template", row.qual_name, _type_uses(row)))
    return tuple(probes)


def probe_function(name: str, statement: str) -> str:
    """The probe as an ``extern "C"`` device function named ``name``."""
    return f'extern "C" __device__ void {name}(void) {{ {statement} }}'


def representative_arguments(params: Sequence[Any], round_: int) -> list[str] | None:
    """Round ``round_``'s arguments for ``params``, up to the last one without a default (the
    rest take their defaults); None when a parameter has no representative value."""
    needed = max((i + 1 for i, p in enumerate(params) if p.default is None), default=0)
    arguments = []
    for param in params[:needed]:
        if param.kind == TYPE_PARAMETER:
            arguments.append(TYPE_ARGUMENTS[round_])
            continue
        value_type = " ".join(param.value_type.replace("const", "").split())
        if value_type == "bool":
            arguments.append(BOOL_ARGUMENTS[round_ % len(BOOL_ARGUMENTS)])
        elif _INTEGER_TYPES.fullmatch(value_type):
            arguments.append(INTEGER_ARGUMENTS[round_])
        elif value_type and not value_type.endswith(("*", "&")) and "auto" not in value_type:
            arguments.append(f"static_cast<{value_type}>(0)")  # an enum (or a typedef of one)
        else:
            return None
    return arguments


def template_id(qual_name: str, arguments: Sequence[str]) -> str:
    name = qual_name if qual_name.startswith("::") else f"::{qual_name}"
    closing = " >" if arguments and arguments[-1].endswith(">") else ">"
    return f"{name}<{', '.join(arguments)}{closing}"


def _substitute(spelling: str, arguments: Sequence[str]) -> str | None:
    try:
        return _PLACEHOLDER.sub(lambda m: arguments[int(m.group(1))], spelling)
    except IndexError:
        return None  # names a parameter left to its default: not written out here


def _function_uses(row: Any) -> tuple[tuple[str, str], ...]:
    uses = []
    for round_ in range(ROUNDS):
        arguments = representative_arguments(row.params, round_)
        if arguments is None:
            break
        values = []
        for _name, param_type, _has_default in row.callable.params:
            spelling = _substitute(param_type.spelling, arguments)
            if spelling is None:
                break
            values.append(f"nbi_probe_value<{spelling}>()")
        else:
            callee = template_id(row.qual_name, arguments)
            uses.append((callee, f"(void){callee}({', '.join(values)});"))
    return _distinct(uses)


def _type_uses(row: Any) -> tuple[tuple[str, str], ...]:
    uses = []
    for round_ in range(ROUNDS):
        arguments = representative_arguments(row.params, round_)
        if arguments is None:
            break
        instance = template_id(row.qual_name, arguments)
        uses.append((instance, f"(void)sizeof({instance});"))
    return _distinct(uses)


def _distinct(uses: list[tuple[str, str]]) -> tuple[tuple[str, str], ...]:
    """Rounds that give the same instance (a template of one value parameter) are tried once."""
    seen: dict[str, tuple[str, str]] = {}
    for use in uses:
        seen.setdefault(use[0], use)
    return tuple(seen.values())

"""Which rejected shims call a declaration that NVRTC never sees, by NVRTC's own preprocessor.

``ast_canopy.nvrtc_hidden`` reads the conditions written on ``__CUDACC_RTC__`` itself. Libraries
also hide declarations behind their own configuration macros: CCCL declares
``cub::detail::to_string`` and ``operator<<`` only under ``#if _CCCL_HOSTED()``, a function-like
macro that its ``compiler.h`` defines as 0 under NVRTC. clang parses the host's view and reports
them; every shim calling one is rejected ("namespace ... has no member"), and coverage counted
them as device-callable declarations left out. No text reading can follow CCCL's macros; NVRTC
can: after a shim compile that rejected some shims, the conditions enclosing their declarations
(``ast_canopy.nvrtc_hidden.conditions_at``) are compiled after the preamble, each as ``#if
!(condition)`` around a ``#warning`` naming it, in one more unit. A condition NVRTC warns about
is false there, and the declaration host-only, with the directive in its reason.

Conditions are evaluated at the end of the unit, not at the directive; that is their value at
the directive for configuration macros, which a header defines once, and the text reading leaves
out include guards and conditions naming a macro the file ``#undef``s. A condition NVRTC cannot
evaluate (a macro it does not define, called) gives an error, not the warning: not hidden.
Only rejected shims are asked about: a hidden declaration whose shim compiles (calling another
overload NVRTC does see) stays bound.
"""

from __future__ import annotations

import logging
import os
import re
from collections.abc import Mapping, Sequence

from ast_canopy.nvrtc_hidden import Condition, conditions_at
from numbast.planning.descriptions import NOT_DEVICE_CALLABLE

logger = logging.getLogger(__name__)

_MARKER = "numbast_condition_false_"
_WARNED = re.compile(rf"#warning directive: {_MARKER}(\d+)")


def hidden_reasons(
    locations: Mapping[str, str],
    preamble: str,
    name: str,
    arch: str,
    include_dirs: Sequence[str] = (),
    nvrtc_options: Sequence[str] = (),
) -> dict[str, str]:
    """Shim -> why its declaration is host-only, for the shims of ``locations`` (shim ->
    ``path:line`` of its declaration) declared in a branch that NVRTC does not take."""
    enclosing = {shim: _conditions(where) for shim, where in locations.items()}
    expressions = sorted({c.expression for found in enclosing.values() for c in found})
    if not expressions:
        return {}
    false = _false_under_nvrtc(expressions, preamble, name, arch, include_dirs, nvrtc_options)
    reasons = {}
    for shim, found in enclosing.items():
        hidden = next((c for c in found if c.expression in false), None)
        if hidden is not None:
            reasons[shim] = _reason(locations[shim], hidden)
    return reasons


def _conditions(where: str) -> list[Condition]:
    path, _, line = where.rpartition(":")
    return conditions_at(path, int(line)) if path and line.isdigit() else []


def _reason(where: str, condition: Condition) -> str:
    file = os.path.basename(where.rpartition(":")[0])
    return (
        f"it is declared only in a branch NVRTC does not take ({file}:{condition.directive}: "
        f"{condition.text}, false under NVRTC, which compiles every shim): {NOT_DEVICE_CALLABLE}"
    )


def _false_under_nvrtc(
    expressions: Sequence[str],
    preamble: str,
    name: str,
    arch: str,
    include_dirs: Sequence[str],
    nvrtc_options: Sequence[str],
) -> set[str]:
    """The ``expressions`` that NVRTC evaluates to false after ``preamble``."""
    from numbast.core.nvrtc import NvrtcError, compile_unit, unit_options

    checks = "".join(
        f"#if !({expression})\n#warning {_MARKER}{k}\n#endif\n"
        for k, expression in enumerate(expressions)
    )
    unit = f'{preamble}\n#line 1 "numbast_conditions"\n{checks}'
    options = unit_options(arch, lto=True, user_dirs=include_dirs, extra=nvrtc_options)
    try:
        log = compile_unit(unit, f"{name}_conditions.cu", options, "ltoir").log
    except NvrtcError as exc:
        log = exc.log  # a condition NVRTC cannot evaluate: its error, and no warning for it
    false = {expressions[int(k)] for k in _WARNED.findall(log)}
    logger.info(
        "%s: NVRTC evaluates %d of %d conditions around rejected shims to false",
        name, len(false), len(expressions),
    )  # fmt: skip
    return false


__all__ = ["hidden_reasons"]

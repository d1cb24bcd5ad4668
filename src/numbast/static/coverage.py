"""How much of a header a module binds: per declaration kind, found / bound / skipped, and why.

The planner records one :class:`Decision` per declaration of the retained files
(``ModulePlan.decisions``); :func:`summarize` counts them, after taking the shims NVRTC
rejected (known once the shims are compiled) from bound to skipped. The import system keeps the
summary in each cache entry's manifest, and ``numbast-cache coverage NAME`` prints it.

What counts: a declaration is *found* once per signature (a function declared in the ``.h`` and
defined in the ``.hpp`` is one). *Excluded* declarations were left out on purpose by the mapping
(Exclude, Skip Prefix); *host-only* ones cannot be called from a kernel. The headline number is
the coverage of device-callable free functions and operators: bound / (found - host-only -
excluded).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, NamedTuple

BOUND = "bound"
SKIPPED = "skipped"  # could not be bound: the reason says why
EXCLUDED = "excluded"  # left out by the mapping (Exclude, Skip Prefix)
HOST_ONLY = "host_only"  # not callable from a kernel

FREE_FUNCTION_KINDS = ("function", "operator")


class Decision(NamedTuple):
    kind: str  # "function", "operator", "struct", "method", "enum", "function template", ...
    what: str  # the declaration's signature or qualified name
    where: str  # file:line
    outcome: str  # BOUND, SKIPPED, EXCLUDED or HOST_ONLY
    reason: str = ""  # why it is not bound
    shim: str = ""  # a bound callable's shim (NVRTC may still reject it)


def summarize(
    decisions: Iterable[Decision], rejected: Mapping[str, str] | None = None
) -> dict[str, Any]:
    """Counts per kind and every skip with its reason, as plain data (JSON). ``rejected``: shim
    name -> NVRTC's error for the shims it rejected (their declarations count as skipped)."""
    rejected = rejected or {}
    unique: dict[tuple[str, str], Decision] = {}
    for decision in decisions:
        if decision.outcome == BOUND and decision.shim in rejected:
            decision = decision._replace(
                outcome=SKIPPED, reason=f"NVRTC rejects its shim: {rejected[decision.shim]}"
            )
        seen = unique.get((decision.kind, decision.what))
        if seen is None or (decision.outcome == BOUND and seen.outcome != BOUND):
            unique[(decision.kind, decision.what)] = decision
    kinds: dict[str, dict[str, Any]] = {}
    for decision in unique.values():
        counts = kinds.setdefault(
            decision.kind,
            {"found": 0, BOUND: 0, SKIPPED: 0, EXCLUDED: 0, HOST_ONLY: 0, "not_bound": []},
        )
        counts["found"] += 1
        counts[decision.outcome] += 1
        if decision.outcome != BOUND:
            counts["not_bound"].append(
                {
                    "what": decision.what,
                    "where": decision.where,
                    "outcome": decision.outcome,
                    "reason": decision.reason,
                }
            )
    callable_found = sum(
        kinds[k]["found"] - kinds[k][HOST_ONLY] - kinds[k][EXCLUDED]
        for k in FREE_FUNCTION_KINDS
        if k in kinds
    )
    callable_bound = sum(kinds[k][BOUND] for k in FREE_FUNCTION_KINDS if k in kinds)
    return {
        "kinds": kinds,
        "device_functions": {
            "found": callable_found,
            "bound": callable_bound,
            "percent": _percent(callable_bound, callable_found),
        },
    }


def _percent(part: int, whole: int) -> float | None:
    return round(100.0 * part / whole, 1) if whole else None

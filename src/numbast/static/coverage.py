"""How much of a header a module binds: per declaration kind, found / bound / skipped, and why.

The planner records one :class:`Decision` per declaration of the retained files
(``ModulePlan.decisions``); :func:`summarize` counts them, after taking the shims NVRTC
rejected (known once the shims are compiled) from bound to skipped. The import system keeps the
summary in each cache entry's manifest, and ``numbast-cache coverage NAME`` prints it.

What counts: a declaration is *found* once per signature (a function declared in the ``.h`` and
defined in the ``.hpp`` is one). *Excluded* declarations were left out on purpose: by the mapping
(Exclude, Skip Prefix), or because a Python kernel has no syntax that calls them (``operator=``,
``++``, ``--``, literal suffixes: ``numbast.planning.operators.no_python_syntax``); *host-only*
ones cannot be called from a kernel (their execution space, a host library type, a branch of
the header NVRTC never compiles: ``ast_canopy.nvrtc_hidden``, or an inline function declared
and defined nowhere, which NVRTC reports as referenced but not defined). The headline number is
the coverage of device-callable free functions and operators: bound / (found - host-only -
excluded). The headline counts every kind a kernel can call (``CALLABLE_KINDS``): functions,
operators, methods, and function, class and alias templates; a template counts as bound only
when a representative instance of it compiled (``numbast.static.template_probes``), and the
instance that did is reported.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any, NamedTuple

from numbast.static.argument_needs import missing_members
from numbast.static.library_defects import library_defect

BOUND = "bound"
SKIPPED = "skipped"  # could not be bound: the reason says why
# left out by the mapping (Exclude, Skip Prefix), for having no Python syntax, or ill-formed in
# the library itself (numbast.static.library_defects)
EXCLUDED = "excluded"
HOST_ONLY = "host_only"  # not callable from a kernel

FREE_FUNCTION_KINDS = ("function", "operator")
TEMPLATE_KINDS = ("function template", "class template", "alias template")
CALLABLE_KINDS = ("function", "operator", "method", *TEMPLATE_KINDS)


class Decision(NamedTuple):
    kind: str  # "function", "operator", "struct", "method", "enum", "function template", ...
    what: str  # the declaration's signature or qualified name
    where: str  # file:line
    outcome: str  # BOUND, SKIPPED, EXCLUDED or HOST_ONLY
    reason: str = ""  # why it is not bound
    shim: str = ""  # a bound callable's shim (NVRTC may still reject it)
    location: str = ""  # path:line (``where`` is the file's name only)
    # An explicit specialization of this function template (``template <> int pick<plus>(int,
    # int)``): when NVRTC rejects its own shim (a call cannot deduce the template's arguments),
    # calls reach it through the template (``pick[M.plus](a, b)``), and it is bound as that is.
    template: str = ""


def summarize(
    decisions: Iterable[Decision],
    rejected: Mapping[str, str] | None = None,
    probes: Mapping[tuple[str, str], Any] | None = None,
    hidden: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """Counts per kind and every skip with its reason, as plain data (JSON). ``rejected``: shim
    name -> NVRTC's error for the shims it rejected (their declarations count as skipped).
    ``probes``: (kind, name) -> the outcome of its template probes
    (``numbast_import.template_coverage.ProbeOutcome``); given, a template without a compiled
    probe counts as skipped. ``hidden``: rejected shim -> why its declaration is host-only (in
    a branch NVRTC does not take: ``numbast_import.nvrtc_conditions``)."""
    rejected, hidden = rejected or {}, hidden or {}
    unique: dict[tuple[str, str], Decision] = {}
    instances: dict[str, dict[str, str]] = {}
    decisions = list(decisions)
    templates = {d.what: d for d in decisions if d.kind == "function template"}
    for decision in decisions:
        if decision.outcome == BOUND and decision.shim in rejected and decision.template:
            decision = _through_template(decision, rejected[decision.shim], templates, probes)
        if decision.outcome == BOUND and decision.shim in hidden:
            decision = decision._replace(outcome=HOST_ONLY, reason=hidden[decision.shim])
        elif decision.outcome == BOUND and decision.shim in rejected:
            error = rejected[decision.shim]
            if _never_defined(decision.what, error):
                decision = decision._replace(
                    outcome=HOST_ONLY,
                    reason=f"it is declared inline and defined nowhere NVRTC sees ({error}): "
                    "C++ wants an inline function's definition where it is called, so no "
                    "kernel can call it",
                )
            else:
                defect = library_defect([error], decision.what, decision.where, fixed_types=True)
                decision = decision._replace(
                    outcome=SKIPPED if defect is None else EXCLUDED,
                    reason=f"{defect or 'NVRTC rejects its shim'}: {error}",
                )
        if probes is not None and decision.outcome == BOUND and decision.kind in TEMPLATE_KINDS:
            decision = _probed(decision, probes.get((decision.kind, decision.what)), instances)
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
    for kind, probed in instances.items():
        kinds[kind]["instances"] = probed
    return {
        "kinds": kinds,
        "device_callables": dict(_coverage(kinds, CALLABLE_KINDS), kinds=list(CALLABLE_KINDS)),
        "device_functions": _coverage(kinds, FREE_FUNCTION_KINDS),
    }


def _through_template(
    decision: Decision,
    error: str,
    templates: Mapping[str, Decision],
    probes: Mapping[tuple[str, str], Any] | None,
) -> Decision:
    """An explicit specialization whose own shim NVRTC rejects: bound when its template is (an
    instance of it compiled), with the reason; else skipped with NVRTC's message."""
    template = templates.get(decision.template)
    outcome = None if probes is None else probes.get(("function template", decision.template))
    if template is None or template.outcome != BOUND or outcome is None or not outcome.instance:
        return decision._replace(outcome=SKIPPED, reason=f"NVRTC rejects its shim: {error}")
    name = decision.template.rsplit("::", 1)[-1]
    return decision._replace(
        shim="",
        reason=f"an explicit specialization of {decision.template}, called through it "
        f"({name}[...](...)); its own shim cannot deduce the template's arguments",
    )


def _never_defined(what: str, error: str) -> bool:
    """Whether NVRTC's ``error`` says that the declaration ``what`` itself (its signature) is
    referenced but not defined: NVRTC says so of inline functions (cooperative groups'
    ``__forceinline__ thread_group::num_threads() const;``), which another translation unit
    cannot define for this one (an extern one would be left to the linker)."""
    match = _UNDEFINED.search(error)
    return match is not None and match["name"] == what.split("(", 1)[0].strip()


_UNDEFINED = re.compile(r'function "(?P<name>[^"]+)" was referenced but not defined')


def _probed(decision: Decision, outcome: Any, instances: dict[str, dict[str, str]]) -> Decision:
    """A bound template's decision as its probes found it: bound when an instance compiled
    (recorded in ``instances``), else skipped with the compiler's reason."""
    if outcome is None:
        return decision._replace(
            outcome=SKIPPED,
            reason="no representative instance could be written (a parameter of pointer, "
            "reference or auto type)",
        )
    if outcome.instance is None:
        errors = getattr(outcome, "errors", ())
        defect = needs = None
        if len(errors) == len(outcome.tried):
            defect = library_defect(errors, decision.what, decision.where, fixed_types=False)
            needs = missing_members(outcome.tried, errors)
        return decision._replace(
            outcome=SKIPPED if defect is None else EXCLUDED,
            reason=f"{defect or needs or 'no instance compiles'} "
            f"(tried {', '.join(outcome.tried)}): {outcome.error}",
        )
    instances.setdefault(decision.kind, {})[decision.what] = outcome.instance
    return decision


def _coverage(kinds: Mapping[str, Mapping[str, Any]], counted: Iterable[str]) -> dict[str, Any]:
    """bound / found over ``counted`` kinds, excluded and host-only ones not counted."""
    counted = [k for k in counted if k in kinds]
    found = sum(kinds[k]["found"] - kinds[k][HOST_ONLY] - kinds[k][EXCLUDED] for k in counted)
    bound = sum(kinds[k][BOUND] for k in counted)
    return {"found": found, "bound": bound, "percent": _percent(bound, found)}


def _percent(part: int, whole: int) -> float | None:
    return round(100.0 * part / whole, 1) if whole else None

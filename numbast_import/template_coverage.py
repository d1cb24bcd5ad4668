"""Which of a module's templates have an instance that compiles, for the coverage report that
each cache entry's manifest records (``numbast.static.template_probes`` makes the candidates).

The candidates go into units of ``PROBES_PER_UNIT`` probes (more where there would be more
than ``MAX_PROBE_UNITS``), which NVRTC compiles as it compiles shims: probes it rejects are
left out and the rest compiled again. (One unit of every probe of a big header is what NVRTC's
memory and time grow faster than linearly with: 2.8 GB for a 6.5 MB header; bounded units keep
both linear.) A template's instance is its first candidate that compiled (its fallbacks are
tried, in stages, only when none of its candidates did); a template none of whose candidates
compiled counts as not bound, with the compiler's first message about its first candidate.

The shim compiler (``numbast_import.shim_compiler``) pins each error to its probe, as it does
for shims: each probe is a file of its own to NVRTC, so an error in it, or one inside a
template's body followed by the chain of instantiations that led there, names it; an error
that names none is pinned by name where it can be (an undefined member of a class: the probes
given that class as an argument, all left out once the others compile), else by compiling
halves. Where NVRTC's front end takes it, a probe unit raises its error limit (``ERROR_LIMIT``),
so that one compile names every probe that fails.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from functools import partial
from typing import NamedTuple

from numbast.static.template_probes import PROBE_HELPERS, TemplateProbe, probe_function

logger = logging.getLogger(__name__)

# Probes per NVRTC program: each unit costs a compile of the header, so units stay large; and
# a big header's probes go in larger units rather than in more than MAX_PROBE_UNITS (a 6.5 MB
# header's 20 units of 2000 were 20 compiles of the header: time quadratic in its size).
PROBES_PER_UNIT = 2000
MAX_PROBE_UNITS = 8
# ... but no unit of more than this many: NVRTC's memory for a unit grows about 10 KB a probe
# on top of the header's (~115 MB per MB of header), and a 5 MB header's 63 000 candidates in 8
# units were its import's peak (issue 23 point 12: under 1 GB).
MOST_PROBES_PER_UNIT = 4000
# Fallbacks are tried in stages, the first few of each template first: a template's later ones
# only when its earlier ones failed. Each probe that fails costs NVRTC errors, and NVRTC stops at
# 100 errors a compile (unless its front end takes ERROR_LIMIT): another compile of the header
# for every ~25 probes that fail.
FALLBACK_STAGES = (3, 24)
# NVRTC's front end's error limit, raised where it takes the option (CUDA 13.5 does; NVRTC has no
# option of its own): a unit's probes that fail are then all named by its first compile.
ERROR_LIMIT = "-Xcudafe=--error_limit=100000"


class ProbeOutcome(NamedTuple):
    instance: str | None  # the template-id that compiled; None: none did
    tried: tuple[str, ...]  # the candidates, in order
    error: str  # NVRTC's message about the first candidate ("" when one compiled)
    errors: tuple[str, ...] = ()  # its first message about each candidate that failed, in order


def compile_template_probes(
    probes: Sequence[TemplateProbe],
    preamble: str,
    name: str,
    arch: str,
    include_dirs: Sequence[str] = (),
    nvrtc_options: Sequence[str] = (),
) -> dict[tuple[str, str], ProbeOutcome]:
    """(kind, what) -> outcome for every template of ``probes`` that has a candidate: its
    candidates first, then, for the templates none of whose candidates compiled, their
    fallbacks (one more unit)."""
    compile_ = partial(
        _first_compiled,
        preamble=f"{preamble}\n{PROBE_HELPERS}",
        name=name,
        arch=arch,
        include_dirs=include_dirs,
        nvrtc_options=nvrtc_options,
    )
    outcomes = compile_([(p, p.candidates) for p in probes])
    done = 0
    for stage in FALLBACK_STAGES:
        retried = [
            (probe, probe.fallbacks[done:stage])
            for probe in probes
            if probe.fallbacks[done:stage]
            and outcomes.get((probe.kind, probe.what), _NONE).instance is None
        ]
        done = stage
        for key, outcome in compile_(retried).items():
            before = outcomes.get(key)
            if before is None:
                outcomes[key] = outcome
            else:
                outcomes[key] = outcome._replace(
                    tried=before.tried + outcome.tried,
                    error=before.error if outcome.error else "",
                    errors=before.errors + outcome.errors,
                )
    return outcomes


_NONE = ProbeOutcome(None, (), "")


def _first_compiled(
    candidates: Sequence[tuple[TemplateProbe, Sequence[tuple[str, str]]]],
    preamble: str,
    name: str,
    arch: str,
    include_dirs: Sequence[str],
    nvrtc_options: Sequence[str],
) -> dict[tuple[str, str], ProbeOutcome]:
    """The outcome of each template's ``candidates`` (its first that compiled)."""
    units: list[tuple[str, str]] = []
    owner: dict[str, tuple[tuple[str, str], str]] = {}  # probe function -> (template, id)
    tried: dict[tuple[str, str], list[str]] = {}
    for probe, uses in candidates:
        key = (probe.kind, probe.what)  # overloads of a function template share one key
        for instance, statement in uses:
            function = f"nbi_probe_{len(units)}"
            # The shim compiler makes each a file of its own to NVRTC: messages name the probe.
            units.append((function, probe_function(function, statement)))
            owner[function] = (key, instance)
            tried.setdefault(key, []).append(instance)
    if not units:
        return {}
    verdicts: dict[str, str | None] = {}
    started = time.perf_counter()
    per_unit = max(PROBES_PER_UNIT, min(MOST_PROBES_PER_UNIT, -(-len(units) // MAX_PROBE_UNITS)))
    for start in range(0, len(units), per_unit):
        chunk = units[start : start + per_unit]
        verdicts.update(_compile(chunk, preamble, name, arch, include_dirs, nvrtc_options))
    logger.info(
        "%s: %d template probes of %d templates compiled in %.1f s (%d rejected)",
        name, len(units), len(tried), time.perf_counter() - started,
        sum(v is not None for v in verdicts.values()),
    )  # fmt: skip
    found: dict[tuple[str, str], str] = {}
    errors: dict[tuple[str, str], list[str]] = {}
    for function, _text in units:  # in candidate order: the first that compiled wins
        key, instance = owner[function]
        if verdicts[function] is None:
            found.setdefault(key, instance)
        else:
            errors.setdefault(key, []).append(verdicts[function])
    return {
        key: ProbeOutcome(
            found.get(key),
            tuple(candidates),
            "" if key in found else errors[key][0],
            tuple(errors.get(key, ())),
        )
        for key, candidates in tried.items()
    }


def _compile(
    units: list[tuple[str, str]],
    preamble: str,
    name: str,
    arch: str,
    include_dirs: Sequence[str],
    nvrtc_options: Sequence[str],
) -> dict[str, str | None]:
    """Probe function -> None when it compiles, else the compiler's first error about it (the
    shim compiler pins each error to its probe); every probe gets the error when the preamble
    itself does not compile."""
    from numbast.core.nvrtc import accepts_option
    from numbast_import.shim_compiler import ShimCompileError, compile_shims_to_ltoir

    if accepts_option(ERROR_LIMIT):
        nvrtc_options = [*nvrtc_options, ERROR_LIMIT]
    try:
        compiled = compile_shims_to_ltoir(
            preamble, units, name, arch, include_dirs, nvrtc_options, exact=False
        )
    except ShimCompileError as exc:
        first = str(exc).splitlines()[1:2] or [str(exc)]
        return {function: first[0].strip() for function, _text in units}
    return {function: compiled.errors.get(function) for function, _text in units}

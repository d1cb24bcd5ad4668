"""Which of a module's templates have an instance that compiles, for the coverage report that
each cache entry's manifest records (``numbast.static.template_probes`` makes the candidates).

Every candidate of every template goes into one unit, which NVRTC compiles as it compiles
shims: probes it rejects are left out and the rest compiled again. A template's instance is
its first candidate that compiled; a template none of whose candidates compiled counts as not
bound, with the compiler's first message about its first candidate.

Each probe is written as a file of its own (a ``#line`` directive), so NVRTC's messages name
it: an error in the probe's line, or one inside a template's body followed by the chain of
instantiations that led there, which ends at the probe ("detected during ... at line 1 of
nbi_probe_12"). An error that names no probe splits the unit in halves, compiled alone.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from typing import NamedTuple

from numbast.static.template_probes import PROBE_HELPERS, TemplateProbe, probe_function

logger = logging.getLogger(__name__)


class ProbeOutcome(NamedTuple):
    instance: str | None  # the template-id that compiled; None: none did
    tried: tuple[str, ...]  # the candidates, in order
    error: str  # NVRTC's message about the first candidate ("" when one compiled)


def compile_template_probes(
    probes: Sequence[TemplateProbe],
    preamble: str,
    name: str,
    arch: str,
    include_dirs: Sequence[str] = (),
) -> dict[tuple[str, str], ProbeOutcome]:
    """(kind, what) -> outcome for every template of ``probes`` that has a candidate."""
    units: list[tuple[str, str]] = []
    owner: dict[str, tuple[tuple[str, str], str]] = {}  # probe function -> (template, id)
    tried: dict[tuple[str, str], list[str]] = {}
    for probe in probes:
        key = (probe.kind, probe.what)  # overloads of a function template share one key
        for instance, statement in probe.candidates:
            function = f"nbi_probe_{len(units)}"
            # Named as a file of its own, so NVRTC's messages name the probe they are about.
            text = f'#line 1 "{function}"\n{probe_function(function, statement)}'
            units.append((function, text))
            owner[function] = (key, instance)
            tried.setdefault(key, []).append(instance)
    if not units:
        return {}
    verdicts = _compile(units, f"{preamble}\n{PROBE_HELPERS}", name, arch, include_dirs)
    found: dict[tuple[str, str], str] = {}
    errors: dict[tuple[str, str], str] = {}
    for function, _text in units:  # in candidate order: the first that compiled wins
        key, instance = owner[function]
        if verdicts[function] is None:
            found.setdefault(key, instance)
        else:
            errors.setdefault(key, verdicts[function])
    return {
        key: ProbeOutcome(found.get(key), tuple(candidates), "" if key in found else errors[key])
        for key, candidates in tried.items()
    }


def _compile(
    units: list[tuple[str, str]],
    preamble: str,
    name: str,
    arch: str,
    include_dirs: Sequence[str],
) -> dict[str, str | None]:
    """Probe function -> None when it compiles, else the compiler's first error about it."""
    from numbast_import.shim_compiler import ShimCompileError, compile_shims_to_ltoir

    verdicts: dict[str, str | None] = {}
    pending = list(units)
    while pending:
        try:
            compiled = compile_shims_to_ltoir(preamble, pending, name, arch, include_dirs)
        except ShimCompileError as exc:
            rejected = _pinned_errors(str(exc))
            if rejected:
                verdicts.update(rejected)
                pending = [unit for unit in pending if unit[0] not in rejected]
                continue
            if len(pending) == 1:
                first = _FIRST_ERROR.search(str(exc))
                verdicts[pending[0][0]] = first.group(1).strip() if first else str(exc)[:300]
                break
            logger.info("%s: an error no probe is named in; compiling halves", name)
            half = len(pending) // 2
            for part in (pending[:half], pending[half:]):
                verdicts.update(_compile(part, preamble, name, arch, include_dirs))
            break
        for function, _text in pending:
            left_out = function in compiled.left_out
            verdicts[function] = compiled.errors.get(function, "rejected") if left_out else None
        break
    return verdicts


_FIRST_ERROR = re.compile(r"error: (.*)")


def _pinned_errors(log: str) -> dict[str, str]:
    """Probe function -> its first error, for every error of ``log`` that names a probe (as
    its own file, or at the end of its chain of instantiations); empty unless every one does."""
    pinned: dict[str, str] = {}
    blocks = re.split(r"\n(?=\S[^\n]*\(\d+\): error: )", log)
    for block in (b for b in blocks if ": error: " in b):
        message = _FIRST_ERROR.search(block).group(1).strip()
        functions = set(re.findall(r"^(nbi_probe_\d+)\(\d+\): error: ", block, re.M))
        functions |= set(re.findall(r"at line \d+ of (nbi_probe_\d+)\b", block))
        if not functions:
            return {}  # an error outside every probe: in the header itself
        for function in functions:
            pinned.setdefault(function, message)
    return pinned

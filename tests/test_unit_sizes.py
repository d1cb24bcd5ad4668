"""NVRTC's memory for a unit is the header's (about 115 MB per MB of header) plus what the unit
holds: a big header's units are capped, so that its import stays under 1 GB (issue 23 point
12): a header of many constants' shim units at ``MAX_SCALED_UNIT`` times their scale, template
probes at ``MOST_PROBES_PER_UNIT`` a unit. No NVRTC here: the cuts are counted."""

from __future__ import annotations

from numbast.static.template_probes import TemplateProbe
from numbast_import import template_coverage
from numbast_import.shim_keys import MAX_SCALED_UNIT, MAX_UNIT, units_of


def test_scaled_shim_units_stay_near_their_average():
    names = [f"nbi_shim_f{i}" for i in range(40_000)]
    usual = units_of(names)
    assert max(map(len, usual)) == MAX_UNIT  # a few of the usual size reach the cap
    for scale in (16, 64):
        units = units_of(names, scale)
        assert sum(map(len, units)) == len(names)
        assert max(map(len, units)) <= MAX_SCALED_UNIT * scale < MAX_UNIT * scale
    # The cuts of a scale are cuts of the smaller scales, as before (an edit moves few).
    cuts = {len(unit) for unit in units_of(names, 16)}
    assert len(cuts) > 1


def test_probe_units_are_capped(monkeypatch):
    chunks: list[int] = []

    def compile_(units, *args):
        chunks.append(len(units))
        return {function: None for function, _text in units}

    monkeypatch.setattr(template_coverage, "_compile", compile_)

    def probes(templates: int) -> list[TemplateProbe]:
        return [
            TemplateProbe("function template", f"t{i}", tuple((f"t{i}<{n}>", "") for n in range(6)))
            for i in range(templates)
        ]

    template_coverage.compile_template_probes(probes(2_000), "", "p.cu", "sm_90")
    assert chunks == [2000] * 6  # 12 000 candidates: the usual units of 2000
    chunks.clear()
    template_coverage.compile_template_probes(probes(4_000), "", "p.cu", "sm_90")
    assert chunks == [3000] * 8  # 24 000: larger units rather than more than 8
    chunks.clear()
    outcomes = template_coverage.compile_template_probes(probes(10_500), "", "p.cu", "sm_90")
    # 63 000 (a 5 MB generated header's): more units rather than units of over 4000
    assert max(chunks) <= template_coverage.MOST_PROBES_PER_UNIT and sum(chunks) == 63_000
    assert len(outcomes) == 10_500 and all(o.instance for o in outcomes.values())

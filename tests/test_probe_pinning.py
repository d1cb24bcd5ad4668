"""An error NVRTC reports at a header line that names no probe ("referenced but not defined", at
an undefined member's declaration) is pinned to the template instances given that member's class
(tests/data/nvrtc/undefined_member.cuh) with one more compile of the others, never by compiling
halves: cooperative groups' ``group_size<thread_group>`` cost ~20 s of halving a cold import."""

from __future__ import annotations

from pathlib import Path

import pytest

from numbast.static.template_probes import TemplateProbe
from numbast_import.shim_compiler import compile_shims_to_ltoir
from numbast_import.template_coverage import compile_template_probes

DATA = Path(__file__).parent / "data" / "nvrtc"
PREAMBLE = '#include "undefined_member.cuh"'


@pytest.fixture
def compiles(monkeypatch):
    """The sources NVRTC compiles in the test."""
    from numbast.core import nvrtc

    sources: list[str] = []
    original = nvrtc.compile_unit

    def counted(unit, name, options, target, *args, **kwargs):
        sources.append(unit)
        return original(unit, name, options, target, *args, **kwargs)

    monkeypatch.setattr(nvrtc, "compile_unit", counted)
    return sources


def _calls(function: str, *classes: str) -> tuple[tuple[str, str], ...]:
    uses = []
    for class_ in classes:
        callee = f"::um::{function}<::um::{class_}>"
        uses.append((callee, f"(void){callee}(nbi_probe_value<const ::um::{class_} &>());"))
    return tuple(uses)


def test_instances_given_the_class_of_an_undefined_member_are_pinned_without_halving(compiles):
    probes = [
        TemplateProbe(
            "function template", "um::group_size", _calls("group_size", "Group", "Block")
        ),
        TemplateProbe("function template", "um::first_rank", _calls("first_rank", "Group")),
        TemplateProbe("function template", "um::half_size", _calls("half_size", "Group")),
    ]
    outcomes = compile_template_probes(probes, PREAMBLE, "um_probes.cu", "sm_90", [str(DATA)])
    # The Group instances are left out together (their bodies are not told apart: coverage
    # asks for one instance that compiles); the Block one and first_rank<Group> compile.
    assert (
        outcomes[("function template", "um::group_size")].instance
        == "::um::group_size<::um::Block>"
    )
    assert outcomes[("function template", "um::first_rank")].instance is None
    assert outcomes[("function template", "um::half_size")].instance is None
    assert "referenced but not defined" in outcomes[("function template", "um::half_size")].error
    # The unit, then the others (whose LTO-IR the last round takes): no header alone, no halves.
    assert len(compiles) == 2, [source.count("nbi_probe_") for source in compiles]


def test_shims_keep_the_instances_that_compile(compiles):
    """Shims (bindings, not coverage) split the named instances to keep those that compile."""
    shims = [
        (f"nbi_probe_{i}", f'extern "C" __device__ void nbi_probe_{i}(void) {{ {statement} }}')
        for i, (_callee, statement) in enumerate(
            _calls("group_size", "Group")
            + _calls("first_rank", "Group")
            + _calls("half_size", "Block")
        )
    ]
    preamble = f"{PREAMBLE}\ntemplate <class T> __device__ T &&nbi_probe_value();"
    compiled = compile_shims_to_ltoir(preamble, shims, "um_shims.cu", "sm_90", [str(DATA)])
    assert compiled.left_out == ("nbi_probe_0",)
    assert "referenced but not defined" in compiled.errors["nbi_probe_0"]
    # The unit, the others, each of the two Group instances, then the round that keeps
    # first_rank<Group> (halving all three would compile the header alone and more halves).
    assert len(compiles) == 5, [source.count("nbi_probe_") for source in compiles]

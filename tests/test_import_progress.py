"""The progress of a long first-time build (issue 20 point 7): on a terminal, once a build has
run longer than ~2 s, one stderr line shows its stage (parsing, declarations planned, shims
compiled of how many, templates checked) and the time spent, rewritten in place; logs say the
same at INFO; NUMBAST_IMPORT_QUIET=1 silences it; output that is not a terminal gets none."""

from __future__ import annotations

import io
import logging
import sys
import threading
from pathlib import Path

import pytest
from wrapper_imports import imported_header

from numbast_import import progress as progress_module
from numbast_import.progress import BuildProgress

DATA = Path(__file__).parent / "data" / "overloads"


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True

    def lines(self) -> list[str]:
        """What was shown, each rewrite of the line once, without the time spent."""
        shown: list[str] = []
        for part in self.getvalue().split("\r"):
            text = part.split("\x1b[K")[-1].strip()
            if text.endswith(" s)"):
                text = text.rsplit(" (", 1)[0]
            if text and (not shown or shown[-1] != text):
                shown.append(text)
        return shown


def test_stages_are_shown_on_a_terminal_and_logged(caplog, monkeypatch):
    monkeypatch.delenv("NUMBAST_IMPORT_QUIET", raising=False)
    terminal = Terminal()
    caplog.set_level(logging.INFO, logger="numbast_import.progress")
    drawn = threading.Event()
    with BuildProgress("cuda_headers.lib", terminal, show_after_s=0.0, redraw_s=0.01) as p:
        while not terminal.getvalue():  # the first draw, from the progress thread
            drawn.wait(0.01)
        p.stage("parsing lib.cuh for sm_90")
        p.stage("compiling 12 shims with NVRTC")
    shown = terminal.lines()
    assert shown[0] == "numbast-import: cuda_headers.lib: starting"
    assert "numbast-import: cuda_headers.lib: parsing lib.cuh for sm_90" in shown
    assert shown[-2] == "numbast-import: cuda_headers.lib: compiling 12 shims with NVRTC"
    assert shown[-1].startswith("numbast-import: cuda_headers.lib: built in ")
    assert terminal.getvalue().endswith("\n")  # the final line stays
    logged = [r.getMessage() for r in caplog.records if r.name == "numbast_import.progress"]
    assert logged[:2] == [
        "cuda_headers.lib: parsing lib.cuh for sm_90",
        "cuda_headers.lib: compiling 12 shims with NVRTC",
    ]
    assert logged[2].startswith("cuda_headers.lib: built in ")


@pytest.mark.parametrize("case", ["not a terminal", "quiet", "short build"])
def test_nothing_is_shown(case, caplog, monkeypatch):
    monkeypatch.delenv("NUMBAST_IMPORT_QUIET", raising=False)
    stream = io.StringIO() if case == "not a terminal" else Terminal()
    if case == "quiet":
        monkeypatch.setenv("NUMBAST_IMPORT_QUIET", "1")
    show_after = 60.0 if case == "short build" else 0.0
    caplog.set_level(logging.INFO, logger="numbast_import.progress")
    with BuildProgress("m", stream, show_after_s=show_after, redraw_s=0.01) as p:
        p.stage("compiling 3 shims with NVRTC")
        threading.Event().wait(0.05)
    assert stream.getvalue() == ""
    assert "m: compiling 3 shims with NVRTC" in caplog.messages  # logged all the same


def test_a_failed_build_clears_the_line():
    terminal = Terminal()
    with pytest.raises(RuntimeError):
        with BuildProgress("m", terminal, show_after_s=0.0, redraw_s=0.01) as p:
            while not terminal.getvalue():
                threading.Event().wait(0.01)
            p.stage("parsing")
            raise RuntimeError("clang said no")
    assert terminal.getvalue().endswith("\r\x1b[K")  # the error prints on a clean line
    assert "built in" not in terminal.getvalue()


def test_a_real_build_reports_each_stage(tmp_path, monkeypatch, caplog):
    monkeypatch.setattr(progress_module, "SHOW_AFTER_S", 0.0)
    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    caplog.set_level(logging.INFO, logger="numbast_import.progress")
    header = DATA / "const_overloads.cuh"
    with imported_header("progress_shown", header, tmp_path, quiet=False):
        pass
    stages = [m.split(": ", 1)[1] for m in caplog.messages if m.startswith("cuda_headers.")]
    assert stages[0].startswith(f"parsing {header} for sm_")
    assert stages[1].startswith("planning ") and stages[1].endswith("const_overloads.cuh")
    assert any(s.startswith("planned ") and " bound, " in s for s in stages)
    # (units: "compiling N shims with NVRTC: 0 of M units done")
    assert any(s.startswith("compiling ") and " shims with NVRTC" in s for s in stages)
    assert stages[-1].startswith("built in ")
    shown = "\n".join(terminal.lines())
    assert "numbast-import: generating cuda_headers.progress_shown" in shown
    assert "numbast-import: cuda_headers.progress_shown: built in " in shown

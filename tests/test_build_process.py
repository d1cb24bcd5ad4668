"""A big header is parsed, planned and rendered in a child process (issue 23 point 12: a 5 MB
header's cold import under 1 GB): the importer never loads libclang, the entry is the one an
in-process build makes, and what the child says or how it ends reaches the user as an
ImportError. ``NUMBAST_IMPORT_PARSE_PROCESS_MB=0`` sends the test project's small header there.
"""

from __future__ import annotations

import importlib
import json
import logging
import os
import signal
from pathlib import Path

import pytest
from import_support import entries, in_process_project, make_project, run_python

from numbast_import import build_process
from numbast_import.build_process import (
    PARSE_PROCESS_ENV,
    BuildProcessError,
    threshold_bytes,
    wants_child,
)
from numbast_import.errors import ImportConfigError

IMPORT = """
import json, logging, os, sys
children = set()

class Remember(logging.Handler):
    def emit(self, record):
        if record.process != os.getpid():
            children.add(record.name)

logging.getLogger().addHandler(Remember())
logging.getLogger().setLevel(logging.DEBUG)

# What this process holds while NVRTC compiles the shims: the front half's objects (the
# decisions, the template probes, the header's items) should not be there.
import gc
import numbast.core.nvrtc as nvrtc
held = {}
compile_unit = nvrtc.compile_unit

def counting(unit, name, *args, **kwargs):
    if name.endswith("_shims.cu"):
        for obj in gc.get_objects():
            kind = type(obj).__name__
            if kind in ("Decision", "TemplateProbe", "Item"):
                held[kind] = held.get(kind, 0) + 1
    return compile_unit(unit, name, *args, **kwargs)

nvrtc.compile_unit = counting
import cuda_headers.vec as vec
print(json.dumps({"clang": "clang.cindex" in sys.modules, "child_loggers": sorted(children),
                  "held": held, "dot": hasattr(vec, "dot")}))
"""


def _entry(cache: Path) -> tuple[str, dict]:
    """The entry's module text and manifest fields, with the cache's path taken out."""
    (entry,) = entries(cache)
    source = next(entry.glob("*.py")).read_text().replace(str(cache), "CACHE")
    manifest = json.loads((entry / "manifest.json").read_text())
    fields = ("shim_units", "shims_rejected", "coverage", "included_files", "nvrtc_options")
    return source, {name: manifest.get(name) for name in fields}


def test_the_child_builds_the_entry_an_in_process_build_makes(tmp_path):
    project = make_project(tmp_path)
    answers = {}
    for how, megabytes in (("child", "0"), ("importer", "")):
        done = run_python(IMPORT, project, tmp_path / how, **{PARSE_PROCESS_ENV: megabytes})
        assert done.returncode == 0, done.stderr
        answers[how] = json.loads(done.stdout.strip().splitlines()[-1])
    # The importer never loaded libclang: the child parsed, and its log records came back.
    assert answers["child"]["clang"] is False
    assert answers["importer"]["clang"] is True
    assert "ast_canopy.parser" in answers["child"]["child_loggers"]
    assert answers["importer"]["child_loggers"] == []
    # While NVRTC compiled the shims, the importer held none of the front half's objects
    # (an in-process build holds its decisions then).
    assert answers["child"]["held"] == {}
    assert answers["importer"]["held"].get("Decision")
    assert answers["child"]["dot"] and answers["importer"]["dot"]
    # The same module and the same units (their digests are the shims' keys, worked out in
    # the child): the entry is the one the importer would have built.
    child, importer = _entry(tmp_path / "child"), _entry(tmp_path / "importer")
    assert child[1]["shim_units"]
    assert child == importer


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.setenv(PARSE_PROCESS_ENV, "0")
    return in_process_project(tmp_path, monkeypatch)


def test_a_killed_child_is_an_import_error(project, monkeypatch):
    monkeypatch.setattr(
        build_process, "_BOOT", "import os, signal; os.kill(os.getpid(), signal.SIGKILL)"
    )
    with pytest.raises(BuildProcessError) as caught:
        importlib.import_module("cuda_headers.vec")
    message = str(caught.value)
    assert isinstance(caught.value, ImportError)
    assert "cannot import cuda_headers.vec" in message and "vec.cuh" in message
    assert "SIGKILL" in message and PARSE_PROCESS_ENV in message
    assert str(project / "pyproject.toml") in message


def test_a_child_that_exits_without_answering(project, monkeypatch):
    monkeypatch.setattr(build_process, "_BOOT", "import sys; sys.exit(3)")
    with pytest.raises(BuildProcessError, match="exited with status 3"):
        importlib.import_module("cuda_headers.vec")


def test_what_the_child_logs_is_logged_here(project, caplog):
    caplog.set_level(logging.DEBUG)
    module = importlib.import_module("cuda_headers.vec")
    try:
        from_child = [r for r in caplog.records if r.process != os.getpid()]
        assert any(r.name == "ast_canopy.parser" for r in from_child), caplog.text
        # The stages the child reached went to this process's progress (which logs them).
        assert any("planned" in r.getMessage() and r.process == os.getpid() for r in caplog.records)
    finally:
        import sys

        sys.modules.pop(module.__name__, None)


def test_the_threshold(monkeypatch, tmp_path):
    header = tmp_path / "a.cuh"
    header.write_bytes(b"x" * 2000)
    config = type("Config", (), {"file_list": (str(header), str(tmp_path / "missing.h"))})
    monkeypatch.setenv(PARSE_PROCESS_ENV, "0.002")
    assert threshold_bytes() == 2000 and wants_child(config)
    monkeypatch.setenv(PARSE_PROCESS_ENV, "0.0021")
    assert not wants_child(config)
    monkeypatch.delenv(PARSE_PROCESS_ENV)
    assert threshold_bytes() == 1e6
    for bad in ("abc", "-1", "nan"):
        monkeypatch.setenv(PARSE_PROCESS_ENV, bad)
        with pytest.raises(ImportConfigError, match=PARSE_PROCESS_ENV):
            threshold_bytes()


def test_signals_are_named():
    assert "SIGKILL" in build_process._died("m", _Mapping(), 1, -signal.SIGKILL)
    assert "out-of-memory" in build_process._died("m", _Mapping(), 1, -signal.SIGKILL)
    assert "SIGSEGV" in build_process._died("m", _Mapping(), 1, -signal.SIGSEGV)


class _Mapping:
    header = "h.cuh"
    source = "pyproject.toml"

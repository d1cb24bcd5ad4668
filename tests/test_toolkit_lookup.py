"""cuda.pathfinder's answers remembered across processes (ast_canopy.toolkit_lookup): an absent
cuRAND is not asked again (pathfinder runs a subprocess for it), and the answer is asked again
when cuRAND appears (a wheel installed into site-packages, a CUDA_HOME set), when the remembered
directory is gone, when it is old, and when the memo file is not safe or not whole."""

from __future__ import annotations

import json
import logging
import os
import time
from pathlib import Path

import pytest

from ast_canopy import cache, toolkit_lookup


class FakePathfinder:
    """Finds cuRAND's headers as pathfinder would in the fake site-packages or CUDA_HOME, and
    counts how often it was asked."""

    def __init__(self, site_packages: Path) -> None:
        self.site_packages = site_packages
        self.asked = 0

    def __call__(self, libname: str) -> str | None:
        assert libname == "curand"
        self.asked += 1
        places = [self.site_packages / "nvidia" / "cu13" / "include"]
        if os.environ.get("CUDA_HOME"):
            places.append(Path(os.environ["CUDA_HOME"]) / "include")
        found = [p for p in places if (p / "curand.h").is_file()]
        return str(found[0]) if found else None


@pytest.fixture
def fake(tmp_path, monkeypatch):
    """A site-packages with the CUDA 13 wheels' header directory and no cuRAND, the parser's
    cache directory in tmp_path, and no toolkit environment."""
    site_packages = tmp_path / "site-packages"
    (site_packages / "nvidia" / "cu13" / "include").mkdir(parents=True)
    (site_packages / "nvidia" / "cu13" / "include" / "cuda_runtime.h").write_text("\n")
    (site_packages / "nvidia_cuda_runtime-13.0.0.dist-info").mkdir()
    monkeypatch.setattr(toolkit_lookup, "_site_dirs", lambda: [str(site_packages)])
    for variable in toolkit_lookup._ENV:
        monkeypatch.delenv(variable, raising=False)
    parser_dir = tmp_path / "parser"
    parser_dir.mkdir(mode=0o700)  # as the first parse leaves it
    monkeypatch.setattr(cache, "_chosen", None)  # the process's choice comes back after
    cache.use_directory(parser_dir)
    yield FakePathfinder(site_packages), parser_dir / toolkit_lookup.MEMO_NAME
    toolkit_lookup.forget()


def lookup(finder: FakePathfinder) -> str | None:
    """One process's lookup: the stamp is taken again, as a new process takes it."""
    toolkit_lookup.forget()
    return toolkit_lookup.header_dir("curand", finder)


def install_curand_wheel(site_packages: Path) -> Path:
    """What ``pip install nvidia-curand`` does: its headers into the shared wheel directory,
    its .dist-info beside the others."""
    include = site_packages / "nvidia" / "cu13" / "include"
    (include / "curand.h").write_text("\n")
    (include / "curand_kernel.h").write_text("\n")
    (site_packages / "nvidia_curand-10.4.0.dist-info").mkdir()
    return include


def test_an_absent_curand_is_remembered_and_found_once_installed(fake):
    finder, memo = fake
    assert lookup(finder) is None and finder.asked == 1
    assert json.loads(memo.read_text())["answers"] == {"curand": None}
    assert lookup(finder) is None and finder.asked == 1  # the next process asks no one
    include = install_curand_wheel(finder.site_packages)
    assert lookup(finder) == str(include) and finder.asked == 2
    assert lookup(finder) == str(include) and finder.asked == 2


def test_headers_copied_into_the_wheel_directory_alone_invalidate_it(fake):
    """No .dist-info appears (files put there by hand): the directory's listing changed."""
    finder, _memo = fake
    assert lookup(finder) is None
    include = finder.site_packages / "nvidia" / "cu13" / "include"
    (include / "curand.h").write_text("\n")
    assert lookup(finder) == str(include) and finder.asked == 2


def test_a_toolkit_environment_set_later_invalidates_it(fake, tmp_path, monkeypatch):
    finder, _memo = fake
    assert lookup(finder) is None
    toolkit_root = tmp_path / "cuda"
    (toolkit_root / "include").mkdir(parents=True)
    (toolkit_root / "include" / "curand.h").write_text("\n")
    monkeypatch.setenv("CUDA_HOME", str(toolkit_root))
    assert lookup(finder) == str(toolkit_root / "include") and finder.asked == 2


def test_headers_added_to_a_toolkit_of_the_environment_invalidate_it(fake, tmp_path, monkeypatch):
    finder, _memo = fake
    toolkit_root = tmp_path / "cuda"
    (toolkit_root / "include").mkdir(parents=True)
    monkeypatch.setenv("CUDA_HOME", str(toolkit_root))
    assert lookup(finder) is None
    (toolkit_root / "include" / "curand.h").write_text("\n")
    assert lookup(finder) == str(toolkit_root / "include") and finder.asked == 2


def test_a_remembered_directory_that_is_gone_is_asked_again(fake):
    finder, memo = fake
    include = install_curand_wheel(finder.site_packages)
    assert lookup(finder) == str(include)
    record = json.loads(memo.read_text())
    record["answers"]["curand"] = str(finder.site_packages / "gone")
    memo.write_text(json.dumps(record))
    assert lookup(finder) == str(include) and finder.asked == 2


def test_an_old_memo_is_asked_again(fake):
    finder, memo = fake
    assert lookup(finder) is None
    record = json.loads(memo.read_text())
    record["written"] = time.time() - toolkit_lookup.MAX_AGE_S - 1
    memo.write_text(json.dumps(record))
    assert lookup(finder) is None and finder.asked == 2
    assert time.time() - json.loads(memo.read_text())["written"] < 60  # dated afresh


def test_a_memo_others_can_write_is_not_trusted(fake, caplog):
    """It names directories the compiles search: another user's answer would be theirs."""
    finder, memo = fake
    include = install_curand_wheel(finder.site_packages)
    assert lookup(finder) == str(include)
    record = json.loads(memo.read_text())
    record["answers"]["curand"] = str(finder.site_packages)  # exists: would be believed
    memo.write_text(json.dumps(record))
    memo.chmod(0o666)
    with caplog.at_level(logging.WARNING, logger="ast_canopy.toolkit_lookup"):
        assert lookup(finder) == str(include) and finder.asked == 2
    assert "writable by others" in caplog.text
    assert memo.stat().st_mode & 0o077 == 0  # remade, private


def _current(**changes) -> bytes:
    """A memo of this stamp and time, with ``changes`` to its fields."""
    toolkit_lookup.forget()
    record = {"format": 1, "stamp": toolkit_lookup._stamp(), "written": time.time()}
    record["answers"] = {"curand": "/"}  # an existing directory: believed if the rest is right
    return json.dumps({**record, **changes}).encode()


@pytest.mark.parametrize(
    "damage",
    [lambda: b"{not json", lambda: b"[]", lambda: _current(stamp=3), lambda: _current(format=2),
     lambda: _current(written="today"), lambda: _current(answers=["/"]),
     lambda: _current(answers={"curand": "relative/dir"}), lambda: _current(answers={"curand": 1}),
     lambda: _current(stamp="another")],
)  # fmt: skip
def test_a_damaged_or_foreign_memo_is_asked_again(fake, damage):
    finder, memo = fake
    memo.write_bytes(_current())
    memo.chmod(0o600)
    assert lookup(finder) == "/" and finder.asked == 0  # the undamaged memo is believed
    memo.write_bytes(damage())
    assert lookup(finder) is None and finder.asked == 1
    assert json.loads(memo.read_text())["answers"] == {"curand": None}


def test_without_a_cache_directory_nothing_is_written(fake):
    finder, memo = fake
    cache.use_directory(None)
    assert lookup(finder) is None and lookup(finder) is None
    assert finder.asked == 2 and not memo.exists()


def test_a_lookup_makes_no_cache_directory(fake, tmp_path):
    """A warm import's key asks where cudart is before anything is built: the cache root is
    made by the first build, not by a lookup."""
    finder, _memo = fake
    absent = tmp_path / "root" / "parser"
    cache.use_directory(absent)
    assert lookup(finder) is None and finder.asked == 1
    assert not (tmp_path / "root").exists()


REBUILD = """
import json, subprocess
import numba.cuda  # numba-cuda's own import may ask cuda.pathfinder, in a process

started = []
original = subprocess.Popen.__init__

def recorded(self, args, *more, **options):
    started.append(str(args))
    original(self, args, *more, **options)

subprocess.Popen.__init__ = recorded
import cuda_headers.vec
print("PROCESSES " + json.dumps(started))
"""


def test_an_edited_header_is_rebuilt_without_a_toolkit_lookup_process(tmp_path):
    """The edit loop (issue 22): the rebuild parses and compiles the header's shims, and the
    toolkit's directories (cuRAND's too, absent or not) come from the memo the first build
    left; pathfinder would system-load cudart in a subprocess for an absent cuRAND."""
    from import_support import make_project, run_python

    project, cache = make_project(tmp_path), tmp_path / "cache"
    first = run_python(REBUILD, project, cache, NUMBAST_IMPORT_QUIET="1")
    assert first.returncode == 0, first.stderr
    memo = json.loads((cache / "parser" / toolkit_lookup.MEMO_NAME).read_text())
    assert {"cudart", "cccl", "curand"} <= set(memo["answers"])
    header = project / "include" / "vec.cuh"
    header.write_text(
        header.read_text() + "\n__device__ inline float added(float x) { return x; }\n"
    )
    edited = run_python(REBUILD, project, cache, NUMBAST_IMPORT_QUIET="1")
    assert edited.returncode == 0, edited.stderr
    assert len([p for p in cache.glob("*/*/manifest.json")]) == 2  # rebuilt: a second entry
    (line,) = [ln for ln in edited.stdout.splitlines() if ln.startswith("PROCESSES ")]
    assert json.loads(line.removeprefix("PROCESSES ")) == []


def test_a_library_found_without_a_process_is_asked_again_without_the_stamp(fake, monkeypatch):
    """cudart and CCCL from the wheels: pathfinder answers at once, so a later process asks it
    again rather than take the stamp (~2 ms of a warm import); once pathfinder needs its
    subprocess for it, the answer is remembered under the stamp again."""
    finder, memo = fake
    include = install_curand_wheel(finder.site_packages)
    direct = {"curand": True}

    def found_directly(libname: str, answer: str | None) -> bool:
        return answer is not None and direct[libname]

    def lookup_directly() -> str | None:
        toolkit_lookup.forget()
        return toolkit_lookup.header_dir("curand", finder, found_directly)

    assert lookup_directly() == str(include) and finder.asked == 1
    assert json.loads(memo.read_text())["direct"] == ["curand"]
    toolkit_lookup.forget()
    assert toolkit_lookup.header_dir("curand", finder, found_directly) == str(include)
    assert finder.asked == 2 and toolkit_lookup._stamp.cache_info().misses == 0  # no stamp
    # Found now only by the subprocess (the wheel's headers moved to a CUDA_HOME, say): the
    # fresh answer is kept under the stamp and believed from there by the next process.
    direct["curand"] = False
    assert lookup_directly() == str(include) and finder.asked == 3
    assert json.loads(memo.read_text())["direct"] == []
    assert lookup_directly() == str(include) and finder.asked == 3


def test_an_answer_asked_before_the_cache_directory_existed_is_marked_direct(fake):
    """A cold import asks where cudart is before its first parse makes the cache directory;
    the memo written later says cudart came without a subprocess, so a warm import asks
    pathfinder again rather than take the stamp."""
    finder, memo = fake
    include = install_curand_wheel(finder.site_packages)
    cudart = str(finder.site_packages / "nvidia" / "cu13" / "include")
    answers = {"cudart": cudart}
    toolkit_lookup.forget()
    cache.use_directory(None)
    assert toolkit_lookup.header_dir("cudart", answers.get, lambda lib, found: True) == cudart
    cache.use_directory(memo.parent)
    assert toolkit_lookup.header_dir("curand", finder, lambda lib, found: False) == str(include)
    record = json.loads(memo.read_text())
    assert record["direct"] == ["cudart"] and set(record["answers"]) == {"cudart", "curand"}

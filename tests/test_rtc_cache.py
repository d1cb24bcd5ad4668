"""The SourceModule cache: disk entries (layout, hits without NVRTC, in a fresh process,
damage, unsafe and unwritable roots, included headers) and the in-process memo."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from numbast_import import compiler
from numbast_import.cache.root import CacheSafetyError
from numbast_import.rtc import build as build_module
from numbast_import.rtc import nvrtc as nvrtc_backend
from numbast_import.rtc.build import build, clear_memo
from tests.rtc_support import VECTOR_ADD

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(autouse=True)
def fresh_memo():
    clear_memo()
    yield
    clear_memo()


def forbid_nvrtc(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("NVRTC was called on a cache hit")

    monkeypatch.setattr(nvrtc_backend, "run_nvrtc", refuse)


def entries(root: Path) -> list[Path]:
    return sorted(p for p in (root / "rtc").glob("??/*") if p.is_dir())


def test_entry_layout_and_manifest(tmp_path):
    cubin = compiler.compile(VECTOR_ADD, arch="sm_90", cache_dir=tmp_path)
    (entry,) = entries(tmp_path)
    assert entry.parent.name == entry.name[:2]
    manifest = json.loads((entry / "manifest.json").read_text())
    assert manifest["kind"] == "rtc" and manifest["format"] == 1
    assert manifest["key"]["arch"] == "sm_90"
    assert manifest["key"]["compiler"].startswith("nvrtc ")
    assert set(manifest["artifacts"]) == {"kernel.cubin", "source.cu"}
    assert (entry / "kernel.cubin").read_bytes() == cubin
    assert isinstance(manifest["created"], float)
    assert not entry.stat().st_mode & 0o022  # not writable by others


def test_second_compile_is_a_hit_without_nvrtc(tmp_path, monkeypatch):
    first = compiler.compile(VECTOR_ADD, arch="sm_90", cache_dir=tmp_path)
    clear_memo()
    forbid_nvrtc(monkeypatch)
    assert compiler.compile(VECTOR_ADD, arch="sm_90", cache_dir=tmp_path) == first


def test_the_key_separates_what_changes_the_binary(tmp_path):
    compiler.compile(VECTOR_ADD, arch="sm_90", cache_dir=tmp_path)
    compiler.compile(VECTOR_ADD, arch="sm_80", cache_dir=tmp_path)
    compiler.compile(VECTOR_ADD, arch="sm_90", options=["-DX=1"], cache_dir=tmp_path)
    compiler.compile(VECTOR_ADD, arch="sm_90", target="ptx", cache_dir=tmp_path)
    compiler.compile(VECTOR_ADD, arch="sm_90", no_extern_c=True, cache_dir=tmp_path)
    assert len(entries(tmp_path)) == 5


def test_hit_in_a_fresh_process(tmp_path):
    compiler.compile(VECTOR_ADD, arch="sm_90", cache_dir=tmp_path)
    code = (
        "import sys\n"
        "from numbast_import.rtc import nvrtc\n"
        "def refuse(*a, **k): raise AssertionError('NVRTC called')\n"
        "nvrtc.run_nvrtc = refuse\n"
        "from numbast_import.compiler import compile\n"
        "from tests.rtc_support import VECTOR_ADD\n"
        f"data = compile(VECTOR_ADD, arch='sm_90', cache_dir={str(tmp_path)!r})\n"
        "assert data[:4] == b'\\x7fELF'\n"
        "print('hit', 'cuda.bindings.nvrtc' in sys.modules)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["hit", "False"]  # NVRTC was not even loaded


def test_name_expressions_survive_the_cache(tmp_path, monkeypatch):
    source = "template <typename T> __global__ void scale(T *a) { a[0] *= 2; }\n"
    first = build(
        source, no_extern_c=True, arch="sm_90", cache_dir=tmp_path, name_expressions=["scale<int>"]
    )
    clear_memo()
    forbid_nvrtc(monkeypatch)
    again = build(
        source, no_extern_c=True, arch="sm_90", cache_dir=tmp_path, name_expressions=["scale<int>"]
    )
    assert (
        again.compiled.lowered_names
        == first.compiled.lowered_names
        == {"scale<int>": "_Z5scaleIiEvPT_"}
    )


def test_included_header_change_is_a_miss(tmp_path):
    include = tmp_path / "inc"
    include.mkdir()
    header = include / "value.h"
    header.write_text('#include "nested.h"\n')
    nested = include / "nested.h"
    nested.write_text("#define VALUE 1\n")
    source = '#include "value.h"\n__global__ void k(int *a) { a[0] = VALUE; }\n'
    cache = tmp_path / "cache"
    compiler.compile(source, arch="sm_90", include_dirs=[str(include)], cache_dir=cache)
    clear_memo()
    nested.write_text("#define VALUE 2\n")
    compiler.compile(source, arch="sm_90", include_dirs=[str(include)], cache_dir=cache)
    assert len(entries(cache)) == 2
    manifest = json.loads((entries(cache)[0] / "manifest.json").read_text())
    assert sorted(Path(p).name for p in manifest["key"]["included_files"]) == [
        "nested.h",
        "value.h",
    ]


def test_damaged_entry_is_a_miss_with_a_warning(tmp_path, caplog):
    first = compiler.compile(VECTOR_ADD, arch="sm_90", cache_dir=tmp_path)
    (entry,) = entries(tmp_path)
    (entry / "kernel.cubin").write_bytes(b"garbage")
    clear_memo()
    with caplog.at_level(logging.WARNING):
        again = compiler.compile(VECTOR_ADD, arch="sm_90", cache_dir=tmp_path)
    assert again == first
    assert "ignoring damaged cache entry" in caplog.text
    assert (entry / "kernel.cubin").read_bytes() == first  # rebuilt in place


def test_entry_without_manifest_is_a_miss(tmp_path, caplog):
    compiler.compile(VECTOR_ADD, arch="sm_90", cache_dir=tmp_path)
    (entry,) = entries(tmp_path)
    (entry / "manifest.json").unlink()
    clear_memo()
    with caplog.at_level(logging.WARNING):
        assert compiler.compile(VECTOR_ADD, arch="sm_90", cache_dir=tmp_path)[:4] == b"\x7fELF"
    assert (entry / "manifest.json").is_file()


def test_world_writable_root_is_refused(tmp_path):
    root = tmp_path / "shared"
    root.mkdir()
    os.chmod(root, 0o777)
    with pytest.raises(CacheSafetyError, match="writable by others"):
        compiler.compile(VECTOR_ADD, arch="sm_90", cache_dir=root)


@pytest.mark.skipif(os.geteuid() == 0, reason="root can write anywhere")
def test_unwritable_root_compiles_in_memory_with_one_warning(tmp_path, caplog):
    root = tmp_path / "readonly"
    root.mkdir()
    os.chmod(root, 0o500)
    try:
        with caplog.at_level(logging.WARNING):
            assert compiler.compile(VECTOR_ADD, arch="sm_90", cache_dir=root)[:4] == b"\x7fELF"
            clear_memo()
            compiler.compile(VECTOR_ADD, arch="sm_90", cache_dir=root)
        assert caplog.text.count("building in memory") == 1
    finally:
        os.chmod(root, 0o700)


def test_unwritable_root_as_root_user(tmp_path, caplog, monkeypatch):
    # The same fallback, forced: creating the shard directory fails.
    from numbast_import.cache import entries as entries_module

    def cannot_create(self, digest):
        raise PermissionError(13, "Permission denied", str(self.root))

    monkeypatch.setattr(entries_module.EntryStore, "_make_directories", cannot_create)
    monkeypatch.setattr(entries_module, "_warned", set())
    with caplog.at_level(logging.WARNING):
        assert compiler.compile(VECTOR_ADD, arch="sm_90", cache_dir=tmp_path)[:4] == b"\x7fELF"
    assert "building in memory" in caplog.text
    assert entries(tmp_path) == []


def test_default_root_is_the_project_cache_root(tmp_path, monkeypatch):
    monkeypatch.setenv("NUMBAST_CACHE_DIR", str(tmp_path))
    compiler.compile(VECTOR_ADD, arch="sm_90")
    assert len(entries(tmp_path)) == 1


def test_cache_dir_false_stores_nothing(tmp_path, monkeypatch):
    monkeypatch.setenv("NUMBAST_CACHE_DIR", str(tmp_path))
    compiler.compile(VECTOR_ADD, arch="sm_90", cache_dir=False)
    assert not (tmp_path / "rtc").exists()


def test_memo_returns_the_same_build_without_touching_the_disk(tmp_path, monkeypatch):
    first = build(VECTOR_ADD, arch="sm_90", cache_dir=tmp_path)

    def no_disk(*args, **kwargs):
        raise AssertionError("the memo should answer")

    monkeypatch.setattr(build_module, "rtc_store", no_disk)
    assert build(VECTOR_ADD, arch="sm_90", cache_dir=tmp_path) is first


def test_a_source_module_hit_today_survives_prune_older_than_7(tmp_path, monkeypatch, capsys):
    from numbast_import.cli import main

    compiler.compile(VECTOR_ADD, arch="sm_90", cache_dir=tmp_path)
    (entry,) = entries(tmp_path)
    built_long_ago = time.time() - 30 * 86400
    os.utime(entry, (built_long_ago, built_long_ago))
    clear_memo()
    compiler.compile(VECTOR_ADD, arch="sm_90", cache_dir=tmp_path)  # a hit, today
    monkeypatch.setenv("NUMBAST_CACHE_DIR", str(tmp_path))
    monkeypatch.chdir(tmp_path)
    assert main(["prune", "--older-than", "7"]) == 0
    assert entry.is_dir(), capsys.readouterr().out


def test_a_manifest_that_is_not_an_object_is_a_miss_with_a_warning(tmp_path, caplog):
    first = compiler.compile(VECTOR_ADD, arch="sm_90", cache_dir=tmp_path)
    (entry,) = entries(tmp_path)
    (entry / "manifest.json").write_text("[1, 2, 3]")  # valid JSON, not an object
    clear_memo()
    with caplog.at_level(logging.WARNING):
        assert compiler.compile(VECTOR_ADD, arch="sm_90", cache_dir=tmp_path) == first
    assert "ignoring damaged cache entry" in caplog.text and "not a JSON object" in caplog.text
    assert json.loads((entry / "manifest.json").read_text())["kind"] == "rtc"  # rebuilt


def test_a_read_only_layer_serves_compiles_without_nvrtc_or_a_write(tmp_path, monkeypatch):
    layer, root = tmp_path / "layer", tmp_path / "root"
    first = compiler.compile(VECTOR_ADD, arch="sm_90", cache_dir=layer)
    clear_memo()
    monkeypatch.setenv("NUMBAST_CACHE_PATH", str(layer))
    forbid_nvrtc(monkeypatch)
    assert compiler.compile(VECTOR_ADD, arch="sm_90", cache_dir=root) == first
    assert entries(root) == []


def test_processes_compiling_one_source_at_once_run_nvrtc_once(tmp_path):
    start = time.time() + 3.0  # every interpreter is up before any of them compiles
    code = (
        "import logging, sys, time\n"
        "logging.basicConfig(level=logging.INFO, stream=sys.stderr)\n"
        "from numbast_import.compiler import compile\n"
        "from tests.rtc_support import VECTOR_ADD\n"
        f"time.sleep(max(0, {start} - time.time()))\n"
        f"compile(VECTOR_ADD, arch='sm_90', cache_dir={str(tmp_path)!r})\n"
    )
    procs = [
        subprocess.Popen([sys.executable, "-c", code], cwd=ROOT, stderr=subprocess.PIPE, text=True)
        for _ in range(4)
    ]
    errors = [p.communicate(timeout=300)[1] for p in procs]
    assert all(p.returncode == 0 for p in procs), errors
    assert "".join(errors).count("numbast_import.rtc.nvrtc:compiling kernel.cu") == 1, errors
    (entry,) = entries(tmp_path)
    assert sorted(p.name for p in entry.parent.iterdir()) == [entry.name]  # no lock left

"""``numbast-cache``: path, list, show (with the reason a miss would happen), clear, verify."""

from __future__ import annotations

import shutil

import pytest
from import_support import IMPORT_VEC, entries, make_project, run_python

from numbast_import.cli import main


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("cli_built")
    project, cache = make_project(tmp), tmp / "cache"
    result = run_python(IMPORT_VEC, project, cache)
    assert result.returncode == 0, result.stderr
    return project, cache


@pytest.fixture
def in_project(built, tmp_path, monkeypatch):
    """The built project as the working directory, with a private copy of its cache."""
    project, cache = built
    copy = tmp_path / "cache"
    shutil.copytree(cache, copy)
    monkeypatch.chdir(project)
    monkeypatch.setenv("NUMBAST_CACHE_DIR", str(copy))
    monkeypatch.delenv("NUMBAST_IMPORT_ARCH", raising=False)
    return project, copy


def test_path_and_list(in_project, capsys):
    project, cache = in_project
    assert main(["path"]) == 0
    assert capsys.readouterr().out.strip() == str(cache)
    assert main(["list"]) == 0
    out = capsys.readouterr().out
    (entry,) = entries(cache)
    assert "cuda_headers.vec" in out and "vec.cuh" in out and "sm_90" in out
    assert entry.name in out and "KiB" in out


def test_show_explains_hits_and_misses(in_project, capsys):
    project, cache = in_project
    (entry,) = entries(cache)
    assert main(["show", "vec"]) == 0
    out = capsys.readouterr().out
    assert f"entry {entry}" in out and "the current state would hit this entry" in out
    assert '  arch: "sm_90"' in out and "scale.h" in out

    assert main(["show", entry.name[:12]]) == 0
    assert f"entry {entry}" in capsys.readouterr().out

    pyproject = project / "pyproject.toml"
    original = pyproject.read_text()
    try:
        pyproject.write_text(original.replace('arch = "sm_90"', 'arch = "sm_80"'))
        assert main(["show", "cuda_headers.vec"]) == 0
        out = capsys.readouterr().out
    finally:
        pyproject.write_text(original)
    assert 'arch: cached "sm_90", now "sm_80"' in out
    assert "no entry for the current state" in out

    assert main(["show", "nothing_mapped"]) == 1
    assert "no entry matches" in capsys.readouterr().err


def test_verify_and_clear(in_project, capsys):
    _project, cache = in_project
    assert main(["verify"]) == 0
    assert "1 of 1 entries intact" in capsys.readouterr().out
    assert main(["clear", "vec"]) == 0
    assert "removed 1 entry" in capsys.readouterr().out
    assert entries(cache) == []
    assert main(["clear", "--all"]) == 0
    assert "removed 0 entries" in capsys.readouterr().out


def test_unsafe_root_is_an_error_not_a_traceback(in_project, capsys):
    _project, cache = in_project
    cache.chmod(0o777)
    try:
        assert main(["list"]) == 1
    finally:
        cache.chmod(0o700)
    assert "writable by others" in capsys.readouterr().err

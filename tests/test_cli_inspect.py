"""``numbast-cache`` as a new user meets it: inspecting commands work without an arch and
without a GPU (they show the cached entries and say which arch), ``--json`` and ``--config``
go anywhere on the line, a misspelled module gets a suggestion, ``list`` fits the terminal, and
every command's help shows an example."""

from __future__ import annotations

import json
import os
import shutil

import pytest
from import_support import IMPORT_VEC, cli, entries, make_project, run_python

from numbast_import import arch as arch_module
from numbast_import.cli import build_argument_parser, main


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """The test project without its arch pin, its module built for sm_90 (as the README's
    quick start does: NUMBAST_IMPORT_ARCH in the building process only)."""
    tmp = tmp_path_factory.mktemp("cli_inspect")
    project, cache = make_project(tmp), tmp / "cache"
    pyproject = project / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace('arch = "sm_90"\n', ""))
    result = run_python(IMPORT_VEC, project, cache, NUMBAST_IMPORT_ARCH="sm_90")
    assert result.returncode == 0, result.stderr
    return project, cache


@pytest.fixture
def no_gpu_no_pin(built, tmp_path, monkeypatch):
    """The built project as the working directory, with no GPU to ask, no arch given and a
    private copy of the cache (one sm_90 entry)."""
    project, cache = built
    copy = tmp_path / "cache"
    shutil.copytree(cache, copy)
    monkeypatch.chdir(project)
    monkeypatch.setenv("NUMBAST_CACHE_DIR", str(copy))
    for variable in ("NUMBAST_IMPORT_ARCH", "NUMBAST_IMPORT_CONFIG", "NUMBAST_CACHE_PATH"):
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.setattr(
        arch_module, "current_gpu_arch", lambda memo_dir=None: (None, "no device (test)")
    )
    return project, copy


def test_show_without_arch_or_gpu_shows_the_cached_entry_with_status_0(no_gpu_no_pin, capsys):
    _project, cache = no_gpu_no_pin
    (entry,) = entries(cache)
    assert main(["show", "vec"]) == 0
    captured = capsys.readouterr()
    assert captured.err == ""
    assert f"entry {entry}" in captured.out
    assert "an import for sm_90 would hit this entry" in captured.out
    assert "no arch given and none to choose" in captured.out
    assert "showing the cached entries (sm_90)" in captured.out

    assert main(["show", "vec", "--arch", "sm_80", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["entries"] == [] and data["current"]["arch"] == "sm_80"
    assert data["current_entry_exists"] is False


def test_coverage_without_arch_or_gpu_uses_the_cached_entry(no_gpu_no_pin, capsys):
    assert main(["coverage", "vec"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("cuda_headers.vec (")
    assert "sm_90: the cached entry's arch" in out.splitlines()[0]
    assert main(["coverage", "vec", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["arch"] == "sm_90" and "cached entry" in data["arch_chosen_as"]


def test_coverage_that_must_build_asks_for_an_arch(no_gpu_no_pin, capsys):
    _project, cache = no_gpu_no_pin
    assert main(["clear", "--all"]) == 0
    capsys.readouterr()
    assert main(["coverage", "vec"]) == 1
    err = capsys.readouterr().err
    assert "has no current entry in the cache, and building one needs an arch" in err
    assert "give --arch sm_90" in err
    assert entries(cache) == []


def test_json_and_config_are_accepted_before_and_after_the_command(no_gpu_no_pin, capsys):
    project, _cache = no_gpu_no_pin
    config = str(project / "pyproject.toml")
    for argv in (
        ["--json", "list"],
        ["list", "--json"],
        ["--config", config, "--json", "show", "vec"],
        ["show", "vec", "--json", "--config", config],
        ["--json", "show", "--config", config, "vec"],
    ):
        assert main(argv) == 0, argv
        json.loads(capsys.readouterr().out)  # one JSON document
    assert main(["--json", "dir"]) == 0 and "root" in json.loads(capsys.readouterr().out)
    assert "NUMBAST_IMPORT_CONFIG" not in os.environ  # main() in-process leaves it as it was


def test_a_misspelled_module_gets_a_suggestion(no_gpu_no_pin, capsys):
    assert main(["coverage", "vce"]) == 1
    assert "did you mean 'vec'?" in capsys.readouterr().err
    assert main(["show", "curnd"]) == 1
    assert "did you mean 'numbast.headers.curand'?" in capsys.readouterr().err
    assert main(["coverage", "numbast.headers.cucomplx"]) == 1
    assert "did you mean 'numbast.headers.cucomplex'?" in capsys.readouterr().err


def test_list_fits_the_terminal_and_wide_shows_full_paths(no_gpu_no_pin, capsys, monkeypatch):
    project, cache = no_gpu_no_pin
    (entry,) = entries(cache)
    monkeypatch.setenv("COLUMNS", "80")
    assert main(["list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert max(len(line) for line in lines[:-1]) <= 80, lines  # the table; then the total
    assert any("…" in line and "vec.cuh" in line for line in lines)
    assert main(["list", "--wide"]) == 0
    out = capsys.readouterr().out
    assert str(project / "include" / "vec.cuh") in out and entry.name in out
    assert main(["list", "--json"]) == 0
    (header,) = [r for r in json.loads(capsys.readouterr().out) if r["kind"] == "header"]
    assert header["header"] == str(project / "include" / "vec.cuh")
    assert header["project"] == str(project / "pyproject.toml")


def test_every_help_shows_an_example(capsys):
    parser = build_argument_parser()
    assert "examples:\n  numbast-cache " in parser.format_help()
    (commands,) = [a for a in parser._actions if a.dest == "command"]
    for name in commands.choices:
        with pytest.raises(SystemExit) as done:
            main([name, "--help"])
        assert done.value.code == 0
        help_text = capsys.readouterr().out
        example = help_text.split("examples:\n", 1)[1]
        assert example.startswith("  numbast-cache "), name


def test_the_command_line_without_a_gpu_in_a_fresh_process(built, tmp_path):
    """In processes that cannot see a GPU, with no arch given: show and coverage answer from
    the cached sm_90 entry, with status 0 and nothing on stderr."""
    project, cache = built
    copy = tmp_path / "cache"
    shutil.copytree(cache, copy)
    for argv in (["coverage", "vec"], ["show", "vec"], ["--json", "list"]):
        result = cli(project, copy, *argv, CUDA_VISIBLE_DEVICES="")
        assert result.returncode == 0, (argv, result.stderr)
        assert result.stderr == "", argv


def test_every_directory_the_first_import_creates_is_private(built):
    """docs/import_system.md: the root and its directories are created with mode 0700 (the
    parser's stand-in include directory was 0755)."""
    _project, cache = built
    modes = {p: p.stat().st_mode & 0o777 for p in [cache, *cache.rglob("*")] if p.is_dir()}
    assert len(modes) > 3
    assert {str(p): oct(m) for p, m in modes.items() if m != 0o700} == {}

"""``numbast-cache``: dir, list, show, clear (NAME scoped to the project, --all, --stale),
prune (leftovers, damage, --older-than, --max-size), warm (no GPU), verify; ``--json`` on every
command; exit status 0 ok, 1 problems, 2 usage; compiled SourceModules (rtc/) and the parser's
preludes are managed alongside header entries."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import time
from pathlib import Path

import pytest
from import_support import (
    IMPORT_VEC,
    LINK_WITHOUT_NVRTC,
    cli,
    entries,
    make_project,
    run_python,
    shim_parts,
)

from numbast_import.cache.inventory import tree_size
from numbast_import.cache.manifest import MANIFEST
from numbast_import.cli import main, parse_size


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
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))  # prune must not touch ~
    for variable in ("NUMBAST_IMPORT_ARCH", "NUMBAST_IMPORT_CONFIG", "NUMBAST_CACHE_PATH"):
        monkeypatch.delenv(variable, raising=False)
    return project, copy


def run_json(capsys, *argv: str) -> tuple[int, object]:
    status = main([*argv, "--json"])
    return status, json.loads(capsys.readouterr().out)


def fake_rtc_entry(root: Path, age_days: float = 0.0, corrupt: bool = False) -> Path:
    """An rtc entry as numbast_import.rtc stores one."""
    code = b"\x7fELF fake cubin"
    digest = hashlib.sha256(code + str(age_days).encode()).hexdigest()
    path = root / "rtc" / digest[:2] / digest
    path.mkdir(parents=True)
    (path / "kernel.cubin").write_bytes(b"tampered" if corrupt else code)
    key = {"format": 1, "arch": "sm_90", "target": "cubin", "source_sha256": "ab" * 32}
    manifest = {
        "kind": "rtc",
        "format": 1,
        "key": key,
        "artifacts": {"kernel.cubin": hashlib.sha256(code).hexdigest()},
        "created": time.time() - age_days * 86400,
    }
    (path / "manifest.json").write_text(json.dumps(manifest))
    if age_days:
        old = time.time() - age_days * 86400
        os.utime(path, (old, old))
    return path


def clone_entry(entry: Path, **key_changes: str) -> Path:
    """A second entry with the same files and a changed key (as another project's)."""
    digest = hashlib.sha256(json.dumps(key_changes).encode()).hexdigest()
    clone = entry.parent.parent / digest[:2] / digest
    clone.parent.mkdir(exist_ok=True, mode=0o700)
    shutil.copytree(entry, clone)
    manifest = json.loads((clone / MANIFEST).read_text())
    manifest["key"].update(key_changes)
    (clone / MANIFEST).write_text(json.dumps(manifest))
    return clone


def test_dir_and_list(in_project, capsys):
    _project, cache = in_project
    rtc = fake_rtc_entry(cache)
    assert main(["dir"]) == 0
    assert capsys.readouterr().out.startswith(str(cache))
    status, data = run_json(capsys, "dir")
    assert status == 0 and data["root"] == str(cache) and data["parser"] == str(cache / "parser")
    assert main(["list", "--wide"]) == 0  # full paths and digests (test_cli_inspect: the fit)
    out = capsys.readouterr().out
    (entry,) = entries(cache)
    assert "cuda_headers.vec" in out and "vec.cuh" in out and "sm_90" in out and "13." in out
    assert "pyproject.toml" in out and entry.name in out and "prelude" in out
    status, data = run_json(capsys, "list")
    kinds = {item["kind"]: item for item in data}
    assert set(kinds) == {"header", "rtc", "parser"}
    header = kinds["header"]
    assert header["name"] == "cuda_headers.vec" and header["arch"] == "sm_90"
    assert header["project"].endswith("pyproject.toml") and header["size"] > 0
    assert kinds["rtc"]["path"] == str(rtc) and kinds["rtc"]["arch"] == "sm_90"
    assert kinds["parser"]["arch"] == "sm_90" and kinds["parser"]["size"] > 1_000_000


def test_show_explains_hits_and_misses(in_project, capsys):
    project, cache = in_project
    (entry,) = entries(cache)
    assert main(["show", "vec"]) == 0
    out = capsys.readouterr().out
    assert f"entry {entry}" in out and "an import for sm_90 would hit this entry" in out
    assert '  arch: "sm_90"' in out and "scale.h" in out and "regenerate: numbast-cache" in out

    assert main(["show", entry.name[:12]]) == 0
    assert f"entry {entry}" in capsys.readouterr().out

    status, data = run_json(capsys, "show", "cuda_headers.vec")
    assert status == 0 and data["current_entry_exists"]
    (item,) = data["entries"]
    assert item["would_miss_because"] == [] and item["key"]["module"] == "cuda_headers.vec"

    pyproject = project / "pyproject.toml"
    original = pyproject.read_text()
    try:
        pyproject.write_text(
            original.replace(
                'vec = "include/vec.cuh"', 'vec = { header = "include/vec.cuh", defines = ["X=1"] }'
            )
        )
        assert main(["show", "cuda_headers.vec"]) == 0
        out = capsys.readouterr().out
    finally:
        pyproject.write_text(original)
    assert "options: cached" in out and "X=1" in out
    assert "no entry for the current state" in out

    assert main(["show", "nothing_mapped"]) == 1
    assert "no entry matches" in capsys.readouterr().err


def test_a_changed_option_is_named_however_deep_the_project_is():
    """``show``'s miss reason names the option that changed, not the unchanged ones: a header
    path of 300 characters (repeated in the parse options) must not push the change out of
    the line's length limit."""
    from numbast_import.cache.key import component_differences

    header = "/deep" * 60 + "/vec.cuh"
    cached = {"arch": "sm_90", "options": {"Entry Point": header, "File List": [header]}}
    now = {"arch": "sm_90", "options": {**cached["options"], "Predefined Macros": ["X=1"]}}
    (reason,) = component_differences(cached, now)
    assert reason == 'options: cached {}, now {"Predefined Macros": ["X=1"]}'
    now["options"]["Entry Point"] = "/elsewhere/vec.cuh"
    (reason,) = component_differences(cached, now)
    assert '"Entry Point": "/deep/deep' in reason and '"/elsewhere/vec.cuh"' in reason
    assert "File List" not in reason and "X=1" in reason


def test_verify_reports_every_damaged_entry(in_project, capsys):
    _project, cache = in_project
    (entry,) = entries(cache)
    parts = shim_parts(cache)  # the entry's compiled shims (units)
    assert main(["verify"]) == 0
    # the entry, the prelude and the parts
    assert f"{2 + parts} of {2 + parts} entries intact" in capsys.readouterr().out
    second = clone_entry(entry, module="cuda_headers.other")
    (second / "bindings.pyc").write_bytes(b"garbage")
    third = clone_entry(entry, module="cuda_headers.third")
    manifest = json.loads((third / MANIFEST).read_text())
    manifest["included_files"] = ["not", "a", "table"]
    (third / MANIFEST).write_text(json.dumps(manifest))
    rtc = fake_rtc_entry(cache, corrupt=True)
    status, data = run_json(capsys, "verify")
    assert status == 1 and data["checked"] == 5 + parts
    damaged = {item["path"]: item["problems"] for item in data["damaged"]}
    assert set(damaged) == {str(second), str(third), str(rtc)}
    assert any("bindings.pyc does not match" in p for p in damaged[str(second)])
    assert any("'included_files' must be a table" in p for p in damaged[str(third)])
    assert any("kernel.cubin does not match" in p for p in damaged[str(rtc)])
    assert main(["verify"]) == 1
    assert f"{2 + parts} of {5 + parts} entries intact" in capsys.readouterr().out


def test_clear_name_clears_only_this_projects_entries(in_project, capsys):
    _project, cache = in_project
    (entry,) = entries(cache)
    other = clone_entry(entry, header="/elsewhere/include/vec.cuh")  # another project's vec
    status, data = run_json(capsys, "clear", "vec")
    assert status == 0 and [item["path"] for item in data["removed"]] == [str(entry)]
    assert entries(cache) == [other]
    assert main(["clear", "nothing_mapped"]) == 1
    assert "nothing of that name" in capsys.readouterr().err
    parts = shim_parts(cache)
    assert main(["clear", "--all"]) == 0
    # the entry, the parser's prelude and the compiled shims' parts
    assert f"removed {2 + parts} items" in capsys.readouterr().out
    assert entries(cache) == [] and not list((cache / "parser").rglob("*.pch"))


def test_clear_all_removes_rtc_entries_too(in_project, capsys):
    _project, cache = in_project
    rtc = fake_rtc_entry(cache)
    status, data = run_json(capsys, "clear", "--all")
    assert status == 0 and str(rtc) in [item["path"] for item in data["removed"]]
    assert not rtc.exists() and entries(cache) == []


def test_clear_stale_after_an_edit_and_an_arch_switch(in_project, capsys, monkeypatch):
    project, cache = in_project
    (entry,) = entries(cache)
    status, data = run_json(capsys, "clear", "--stale")
    assert status == 0 and data["removed"] == []

    monkeypatch.setenv("NUMBAST_IMPORT_ARCH", "sm_80")
    status, data = run_json(capsys, "clear", "--stale")
    (removed,) = data["removed"]
    assert removed["reason"] == "built for sm_90; imports use sm_80 now"
    assert entries(cache) == []


def test_clear_stale_after_editing_an_included_file(in_project, capsys):
    project, cache = in_project
    (entry,) = entries(cache)
    scale = project / "include" / "scale.h"
    original = scale.read_text()
    try:  # the shared project: restored below
        scale.write_text(original.replace("2.0f", "4.0f"))
        status, data = run_json(capsys, "clear", "--stale")
    finally:
        scale.write_text(original)
    (removed,) = data["removed"]
    assert removed["path"] == str(entry)
    assert removed["reason"] == f"included file {scale.resolve()}: contents changed"


def test_prune_removes_leftovers_damage_and_the_least_recently_used(in_project, capsys):
    _project, cache = in_project
    (entry,) = entries(cache)
    shard = entry.parent
    staging = shard / ".build-0123456789ab-dead"
    staging.mkdir()
    trash = shard / ".old-x"
    trash.mkdir()
    legacy_lock = shard / f"{entry.name}.lock"
    legacy_lock.write_text("")
    old_rtc_staging = cache / "rtc" / ".build-abc"
    old_rtc_staging.mkdir(parents=True)
    long_ago = time.time() - 2 * 86400
    os.utime(old_rtc_staging, (long_ago, long_ago))
    damaged = clone_entry(entry, module="cuda_headers.other")
    (damaged / "bindings.pyc").unlink()
    old_rtc = fake_rtc_entry(cache, age_days=30)
    new_rtc = fake_rtc_entry(cache)

    status, data = run_json(capsys, "prune", "--older-than", "7")
    assert status == 0
    removed = {item["path"] for item in data["removed"]}
    assert removed == {str(damaged), str(old_rtc)}
    assert set(data["leftovers"]) >= {str(staging), str(trash), str(legacy_lock)}
    assert str(old_rtc_staging) in data["leftovers"]
    assert [p.name for p in shard.iterdir()] == [entry.name] or set(
        p.name for p in shard.iterdir()
    ) == {entry.name, ".lock"}
    assert entry.exists() and new_rtc.exists()

    os.utime(entry, (long_ago, long_ago))  # the header entry is now the least recently used
    # Everything on disk counts (--max-size once left 4x the limit: it ignored directories).
    limit = tree_size(cache) - tree_size(entry)  # room for all but the entry
    status, data = run_json(capsys, "prune", "--max-size", str(limit))
    removed = [item["path"] for item in data["removed"]]
    assert removed == [str(entry)], removed
    assert data["size"] == tree_size(cache) <= limit and new_rtc.exists()


def test_prune_removes_the_legacy_parser_cache(in_project, capsys, tmp_path):
    legacy = tmp_path / "xdg" / "ast_canopy"
    (legacy / "prelude").mkdir(parents=True)
    (legacy / "prelude" / "x.pch").write_bytes(b"CPCH")
    (legacy / "stub-include").mkdir()
    assert main(["prune"]) == 0
    assert not legacy.exists() and f"removed leftover {legacy}" in capsys.readouterr().out
    (tmp_path / "xdg" / "ast_canopy" / "mine.txt").parent.mkdir(parents=True)
    (tmp_path / "xdg" / "ast_canopy" / "mine.txt").write_text("not ours")
    assert main(["prune"]) == 0
    assert (tmp_path / "xdg" / "ast_canopy" / "mine.txt").exists()


def test_warm_builds_for_another_arch_without_a_gpu_then_imports_need_no_clang(built, tmp_path):
    project, cache = built
    into = tmp_path / "image-cache"
    shutil.copytree(cache, into, ignore=shutil.ignore_patterns("parser"))
    result = cli(
        project,
        tmp_path / "unused",
        "warm",
        "vec",
        "--arch",
        "sm_90,sm_80",
        "--into",
        str(into),
        "--jobs",
        "2",
        "--json",
    )
    assert result.returncode == 0, result.stderr
    statuses = {(r["name"], r["arch"]): r["status"] for r in json.loads(result.stdout)}
    assert statuses == {
        ("cuda_headers.vec", "sm_90"): "present",
        ("cuda_headers.vec", "sm_80"): "built",
    }
    # The parser's preludes went to a temporary directory: the layer holds entries only.
    assert not (tmp_path / "unused").exists() and not (into / "parser").exists()
    warm = run_python(
        LINK_WITHOUT_NVRTC.replace('arch="sm_90"', 'arch="sm_80"'),
        project,
        into,
        NUMBAST_IMPORT_ARCH="sm_80",
    )
    assert warm.returncode == 0, warm.stderr
    assert "generating" not in warm.stderr and "clang loaded: False" in warm.stdout
    assert len(entries(into)) == 2


def test_warm_reports_failures_with_exit_status_1(in_project, capsys):
    status, data = run_json(capsys, "warm", "nothing_mapped", "--arch", "sm_90")
    assert status == 1 and data[0]["status"] == "failed" and "nothing_mapped" in data[0]["message"]


def test_the_warm_function_stays_callable(in_project):
    # The function and its module once had one name, so importing the module (the CLI does, and
    # so did the first call) replaced numbast_import.warm with the module.
    import numbast_import
    import numbast_import.cli_commands  # noqa: F401

    for _ in range(2):
        (result,) = numbast_import.warm(["nothing_mapped"], ["sm_90"])
        assert result.status == "failed" and "nothing_mapped" in result.message


def test_usage_errors_exit_with_2(in_project, capsys):
    for argv in (["prune", "--max-size", "lots"], ["warm", "vec", "--arch", "90"], ["frobnicate"]):
        with pytest.raises(SystemExit) as caught:
            main(argv)
        assert caught.value.code == 2, argv
    assert main(["clear"]) == 2
    assert "give module names, or --all, or --stale" in capsys.readouterr().err
    assert main([]) == 2
    assert parse_size("2G") == 2**30 * 2 and parse_size("500M") == 500 * 2**20


def test_unsafe_root_is_an_error_not_a_traceback(in_project, capsys):
    _project, cache = in_project
    cache.chmod(0o777)
    try:
        assert main(["list"]) == 1
    finally:
        cache.chmod(0o700)
    assert "writable by others" in capsys.readouterr().err


def test_clear_on_a_read_only_root_says_so(in_project, capsys, monkeypatch):
    import errno

    from numbast_import.cache import inventory

    def read_only(record):
        raise OSError(errno.EROFS, "Read-only file system", str(record.path))

    monkeypatch.setattr(inventory, "remove", read_only)
    assert main(["clear", "--all"]) == 1
    err = capsys.readouterr().err
    assert "is read-only (Read-only file system): nothing can be removed" in err


def test_layers_are_listed_and_verified_but_never_changed(
    in_project, capsys, monkeypatch, tmp_path
):
    _project, cache = in_project
    layer = tmp_path / "layer"
    shutil.copytree(cache, layer)
    monkeypatch.setenv("NUMBAST_CACHE_PATH", str(layer))
    monkeypatch.setenv("NUMBAST_CACHE_DIR", str(tmp_path / "empty"))
    status, data = run_json(capsys, "dir")
    assert data["layers"] == [str(layer)] and data["size"] == 0
    status, listed = run_json(capsys, "list")
    (item,) = [i for i in listed if i["kind"] == "header"]
    assert item["read_only"] and item["path"].startswith(str(layer))
    status, verified = run_json(capsys, "verify")
    assert status == 0 and verified["checked"] == 1 + shim_parts(layer)
    status, cleared = run_json(capsys, "clear", "--all")
    assert status == 0 and cleared["removed"] == [] and len(entries(layer)) == 1

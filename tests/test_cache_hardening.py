"""Issue 23: cached code is trusted only when safe, every root and disk state is survived,
nothing deadlocks or stays broken. One test (or a few) per numbered point of the issue, each
reproducing what the audit found; and issue 20's point 6 (a failed build leaves nothing
behind).

Full disks and read-only roots are real where this runs as root (a small tmpfs, remounted
read-only); otherwise they are simulated (a writer that fails with ENOSPC, a chmod) or skipped,
as each test says. Ownership is tested with os.chown to another uid (root only).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest
from import_support import IMPORT_VEC, cli, entries, make_project, run_python

from numbast_import.cache.manifest import BINDINGS, BINDINGS_CODE, MANIFEST, code_to_pyc, sha256
from numbast_import.cache.store import changed_while_building, start_after_recent_write

IS_ROOT = hasattr(os, "geteuid") and os.geteuid() == 0
OTHER_UID = 4242


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """A project whose ``cuda_headers.vec`` was imported once (a cold build)."""
    tmp = tmp_path_factory.mktemp("hardening_built")
    project, cache = make_project(tmp), tmp / "cache"
    result = run_python(IMPORT_VEC, project, cache)
    assert result.returncode == 0, result.stderr
    return project, cache


@pytest.fixture
def copy_of(built, tmp_path):
    project, cache = built
    copy = tmp_path / "cache"
    shutil.copytree(cache, copy)
    return project, copy


def mount_tmpfs(path: Path, size: str) -> bool:
    """Mount a tmpfs of ``size`` at ``path`` (root only); False when that cannot be done."""
    if not IS_ROOT or not shutil.which("mount"):
        return False
    path.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size},mode=0700", "tmpfs", str(path)],
        capture_output=True,
    )
    return done.returncode == 0


def unmount(path: Path) -> None:
    subprocess.run(["umount", "-l", str(path)], capture_output=True, check=False)


def fill(directory: Path, leave: int) -> None:
    """Fill ``directory``'s filesystem until ``leave`` bytes are free."""
    info = os.statvfs(directory)
    free = info.f_bavail * info.f_frsize
    with open(directory / "filler", "wb") as stream:
        stream.write(b"\0" * max(free - leave, 0))


def plant_code(entry: Path, code: str) -> None:
    """Rewrite the entry's module and bytecode to run ``code``, with a manifest to match:
    what someone who can write the entry's files can do."""
    source = (entry / BINDINGS).read_bytes() + f"\n{code}\n".encode()
    pyc = code_to_pyc(compile(source, str(entry / BINDINGS), "exec"), source)
    (entry / BINDINGS).write_bytes(source)
    (entry / BINDINGS_CODE).write_bytes(pyc)
    manifest = json.loads((entry / MANIFEST).read_text())
    manifest["artifacts"].update({BINDINGS: sha256(source), BINDINGS_CODE: sha256(pyc)})
    (entry / MANIFEST).write_text(json.dumps(manifest))


# -- 1. every file of an entry is checked, not only the directories ---------------------------


def test_1_files_others_can_write_are_refused_and_planted_code_never_runs(copy_of):
    project, cache = copy_of
    (entry,) = entries(cache)
    plant_code(entry, "print('PLANTED CODE RAN')")
    for path in entry.iterdir():
        path.chmod(0o666)  # as another user could have left them
    result = run_python(IMPORT_VEC, project, cache)
    assert "PLANTED CODE RAN" not in result.stdout
    assert result.returncode != 0 and "CacheSafetyError" in result.stderr
    assert "writable by others" in result.stderr and "chmod go-w" in result.stderr
    verified = cli(project, cache, "verify", "--json")
    assert verified.returncode == 1
    (damaged,) = json.loads(verified.stdout)["damaged"]
    assert damaged["path"] == str(entry) and "writable by others" in " ".join(damaged["problems"])


@pytest.mark.skipif(not IS_ROOT, reason="chown to another uid needs root")
def test_1_a_layer_file_another_user_owns_is_refused(copy_of, tmp_path):
    project, layer = copy_of
    (entry,) = entries(layer)
    plant_code(entry, "print('PLANTED CODE RAN')")
    os.chown(entry / BINDINGS_CODE, OTHER_UID, -1)
    result = run_python(IMPORT_VEC, project, tmp_path / "writable", NUMBAST_CACHE_PATH=str(layer))
    assert "PLANTED CODE RAN" not in result.stdout
    assert result.returncode != 0 and f"belongs to uid {OTHER_UID}" in result.stderr
    verified = cli(project, tmp_path / "writable", "verify", NUMBAST_CACHE_PATH=str(layer))
    assert verified.returncode == 1 and f"belongs to uid {OTHER_UID}" in verified.stdout


# -- 2. a nearly full disk -------------------------------------------------------------------


@pytest.mark.parametrize("free", [12 << 10, 4 << 20], ids=["12KB free", "4MB free"])
def test_2_a_cold_import_on_a_nearly_full_disk_builds_in_memory(built, tmp_path, free):
    project, _cache = built
    disk = tmp_path / "disk"
    if not mount_tmpfs(disk, "24m"):
        pytest.skip("needs root to mount a small tmpfs (the simulated test below runs anyway)")
    try:
        fill(disk, free)
        result = run_python(IMPORT_VEC, project, disk / "cache")
        leftovers = [p for p in disk.rglob("*") if p.is_file() and p.name != "filler"]
    finally:
        unmount(disk)
    assert result.returncode == 0, result.stderr  # libclang aborted here (SIGABRT)
    assert result.stdout.strip() == "<numbast-import: cuda_headers.vec, built in memory>"
    assert "No space left on device" in result.stderr
    assert not [p for p in leftovers if p.suffix in (".pch", ".ltoir") or ".tmp-" in p.name]


def test_2_the_prelude_is_not_saved_where_it_does_not_fit(tmp_path, monkeypatch, caplog):
    from ast_canopy import cache_files, parse_declarations_from_source

    monkeypatch.setenv("AST_CANOPY_CACHE_DIR", str(tmp_path / "parser"))
    monkeypatch.setattr(cache_files, "free_space", lambda directory: 8 << 20)
    header = Path(__file__).parent / "data" / "import" / "proj" / "include" / "vec.cuh"
    with caplog.at_level("WARNING", logger="ast_canopy"):
        decls = parse_declarations_from_source(str(header), [str(header)], "sm_90")
    assert [f.name for f in decls.functions] == ["dot", "scaled_dot"]
    assert "cannot save the precompiled prelude" in caplog.text
    assert not list((tmp_path / "parser").rglob("*.pch")) and not list(
        (tmp_path / "parser").rglob(".tmp-*")
    )


def test_11_a_module_built_in_memory_after_enospc_names_no_missing_file(built, tmp_path):
    project, _cache = built
    code = (
        "import errno\n"
        "from numbast_import.cache import entries\n"
        "def full(*args):\n"
        "    raise OSError(errno.ENOSPC, 'No space left on device')\n"
        "entries.write_entry_files = full\n" + IMPORT_VEC
    )
    result = run_python(code, project, tmp_path / "cache")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "<numbast-import: cuda_headers.vec, built in memory>"
    assert result.stderr.count("cannot write the cache root") == 1
    assert entries(tmp_path / "cache") == []


# -- 3. a read-only root whose shard exists -------------------------------------------------


def test_3_a_read_only_root_with_the_entrys_shard_builds_in_memory(built, tmp_path):
    from numbast_import.config import load_project_config
    from numbast_import.entry_key import entry_key

    project, _cache = built
    mapping = load_project_config(project / "pyproject.toml").headers["vec"]
    digest = entry_key(mapping, "cuda_headers.vec", "sm_90")[1]
    root = tmp_path / "root"
    mounted = mount_tmpfs(root, "4m")
    if not mounted and IS_ROOT:
        pytest.skip("root writes through permissions, and no tmpfs could be mounted")
    root.mkdir(exist_ok=True, mode=0o700)
    (root / digest[:2]).mkdir(mode=0o700)  # as any earlier build of the shard leaves it
    try:
        if mounted:
            subprocess.run(["mount", "-o", "remount,ro", str(root)], check=True)
        else:
            for directory in (root / digest[:2], root):
                directory.chmod(0o500)
        result = run_python(IMPORT_VEC, project, root)
    finally:
        if mounted:
            unmount(root)
        else:
            for directory in (root, root / digest[:2]):
                directory.chmod(0o700)
    assert result.returncode == 0, result.stderr  # was EROFS / PermissionError on .lock
    assert result.stdout.strip() == "<numbast-import: cuda_headers.vec, built in memory>"
    assert result.stderr.count("cannot write the cache root") == 1


# -- 4. a file rewritten while the header is built -------------------------------------------

REWRITE_DURING_BUILD = """
import ast_canopy
parse = ast_canopy.parse_declarations_from_source

def parse_then_rewrite(*args, **kwargs):
    decls = parse(*args, **kwargs)
    # What an editor saving decls.h while the import ran would do.
    with open("include/decls.h", "a") as stream:
        stream.write("__device__ inline float second(float x) { return 2.0f * x; }\\n")
    return decls

ast_canopy.parse_declarations_from_source = parse_then_rewrite
import cuda_headers.edited as m
print(sorted(n for n in ("first", "second") if hasattr(m, n)))
"""


def test_4_a_build_whose_included_file_changed_meanwhile_is_not_stored(tmp_path):
    project, cache = make_project(tmp_path), tmp_path / "cache"
    (project / "include" / "edited.cuh").write_text('#pragma once\n#include "decls.h"\n')
    (project / "include" / "decls.h").write_text(
        "#pragma once\n__device__ inline float first(float x) { return x; }\n"
    )
    old = time.time() - 60  # settled long before the build
    for name in ("edited.cuh", "decls.h"):
        os.utime(project / "include" / name, (old, old))
    with open(project / "pyproject.toml", "a") as stream:
        stream.write(
            'edited = { header = "include/edited.cuh", '
            'retain = ["include/edited.cuh", "include/decls.h"] }\n'
        )
    first = run_python(REWRITE_DURING_BUILD, project, cache)
    assert first.returncode == 0, first.stderr
    assert first.stdout.strip() == "['first']"  # what the parse read
    assert "changed while the header was being built" in first.stderr
    assert entries(cache) == [], "an entry binding the old file was stored"
    second = run_python(
        "import cuda_headers.edited as m; print(hasattr(m, 'second'))", project, cache
    )
    assert second.returncode == 0, second.stderr
    assert second.stdout.strip() == "True"  # built again, from the file as it is now
    assert len(entries(cache)) == 1


def test_4_a_header_written_just_before_its_build_is_stored(tmp_path):
    # A header written just before its import (benchmarks/cub_blocks.py writes its wrapper, then
    # imports it) has a time within the coarse clock's margin of the build's start: counted as
    # modified during the build, its entry was never stored, and every run built it cold.
    header = tmp_path / "fresh.cuh"
    header.write_text("__device__ inline float fresh(float x) { return x; }\n")
    digest = sha256(header.read_bytes())
    started = start_after_recent_write(str(header))
    components = {"header": str(header), "header_sha256": digest}
    assert changed_while_building(components, {str(header): digest}, started) is None
    header.write_text("__device__ inline float fresh(float x) { return -x; }\n")  # during it
    assert changed_while_building(components, {str(header): digest}, started) is not None


# -- 5. wrong-typed manifest fields ----------------------------------------------------------


def _damage_manifest(entry: Path, **fields) -> None:
    manifest = json.loads((entry / MANIFEST).read_text())
    manifest.update(fields)
    (entry / MANIFEST).write_text(json.dumps(manifest))


def test_5_a_wrong_typed_stamp_table_is_a_miss_with_one_warning(copy_of):
    project, cache = copy_of
    (entry,) = entries(cache)
    _damage_manifest(entry, included_stamps=["not", "a", "table"])
    result = run_python(IMPORT_VEC, project, cache)
    assert result.returncode == 0, result.stderr  # was AttributeError on every import
    assert result.stderr.count("ignoring damaged cache entry") == 1
    assert "'included_stamps' must be a table" in result.stderr
    assert "generating cuda_headers.vec" in result.stderr
    assert cli(project, cache, "verify").returncode == 0  # rebuilt whole


@pytest.mark.parametrize(
    "fields",
    [
        {"included_stamps": {"/x.h": "size"}},
        {"shims_left_out": 5},
        {"regenerate": ["a", "list"]},
        {"coverage": {"kinds": {"function": {"found": "many"}}, "device_functions": {}}},
    ],
    ids=["stamps", "shims_left_out", "regenerate", "coverage"],
)
def test_5_every_command_reads_wrong_typed_optional_fields_as_damage(copy_of, fields):
    project, cache = copy_of
    (entry,) = entries(cache)
    _damage_manifest(entry, **fields)
    (name,) = fields
    for command in (["show", "vec"], ["list"], ["clear", "--stale", "--json"]):
        done = cli(project, cache, *command)
        assert done.returncode == 0 and "Traceback" not in done.stderr, (command, done.stderr)
    stale = json.loads(done.stdout)["removed"]
    assert [item["path"] for item in stale] == [str(entry)] and name in stale[0]["reason"]


def test_5_verify_reports_prune_removes_and_coverage_survives_a_wrong_typed_field(copy_of):
    project, cache = copy_of
    (entry,) = entries(cache)
    _damage_manifest(entry, coverage=["not", "a", "summary"])
    verified = cli(project, cache, "verify")
    assert verified.returncode == 1 and "'coverage' must be a coverage summary" in verified.stdout
    coverage = cli(project, cache, "coverage", "vec", "--arch", "sm_90", "--json")
    assert coverage.returncode == 0 and "Traceback" not in coverage.stderr, coverage.stderr
    assert json.loads(coverage.stdout)["name"] == "cuda_headers.vec"  # rebuilt, then read
    _damage_manifest(entries(cache)[0], included_stamps=7)
    pruned = cli(project, cache, "prune", "--json")
    assert pruned.returncode == 0 and entries(cache) == []


# -- 6. two mapped headers in one shard, one importing the other ------------------------------


def _same_shard_pair(project: Path, root: Path) -> int:
    """An i for which cuda_headers.a (importing cuda_headers.b<i>) and cuda_headers.b<i> land
    in the same shard of the cache."""
    from numbast_import.entry_key import entry_key
    from numbast_import.mapping import header_mapping

    base = str(project)
    root.mkdir(mode=0o700)  # where the generator's fingerprint is remembered
    for i in range(5000):
        a = header_mapping(
            "a", {"header": "include/a.cuh", "additional-imports": [f"cuda_headers.b{i}"]},
            base, "test",
        )  # fmt: skip
        b = header_mapping(f"b{i}", "include/b.cuh", base, "test")
        digest_a = entry_key(a, "cuda_headers.a", "sm_90", root)[1]
        digest_b = entry_key(b, f"cuda_headers.b{i}", "sm_90", root)[1]
        if digest_a[:2] == digest_b[:2]:
            return i
    raise AssertionError("no pair of names in one shard")


def test_6_a_module_importing_another_of_its_shard_does_not_deadlock(tmp_path):
    project, cache = make_project(tmp_path), tmp_path / "cache"
    (project / "include" / "a.cuh").write_text("__device__ inline int a_one() { return 1; }\n")
    (project / "include" / "b.cuh").write_text("__device__ inline int b_two() { return 2; }\n")
    i = _same_shard_pair(project, cache)
    with open(project / "pyproject.toml", "a") as stream:
        stream.write(
            f'a = {{ header = "include/a.cuh", additional-imports = ["cuda_headers.b{i}"] }}\n'
            f'b{i} = "include/b.cuh"\n'
        )
    result = run_python(
        "import cuda_headers.a as a; print(a.a_one.__name__)",
        project,
        cache,
        NUMBAST_IMPORT_LOCK_TIMEOUT="60",
    )
    assert result.returncode == 0, result.stderr  # was 600 s, then an error naming its own pid
    assert "waiting for" not in result.stderr
    assert len({p.parent for p in entries(cache)}) == 1 and len(entries(cache)) == 2


# -- 9. leftovers of interrupted writes, and --max-size -------------------------------------


def tree_size(path: Path) -> int:
    return sum(p.lstat().st_size for p in path.rglob("*") if p.is_file() and not p.is_symlink())


def test_9_prune_sees_scratch_files_and_max_size_counts_everything(copy_of, tmp_path):
    project, cache = copy_of
    scratch = cache / "parser" / "prelude" / ".tmp-0123abcd.pch-x1y2z3"
    scratch.write_bytes(b"\0" * (4 << 20))  # what a save killed midway leaves
    long_ago = time.time() - 3600
    os.utime(scratch, (long_ago, long_ago))
    listed = json.loads(cli(project, cache, "dir", "--json").stdout)
    assert listed["size"] == tree_size(cache) > 4 << 20  # dir counts it
    pruned = cli(project, cache, "prune", "--max-size", "1M", "--json")
    assert pruned.returncode == 0, pruned.stderr
    assert str(scratch) in json.loads(pruned.stdout)["leftovers"]
    assert tree_size(cache) <= 1 << 20  # it once left 4.1 MB at 1 MB


# -- 10. a pyproject.toml someone else can write --------------------------------------------


@pytest.mark.skipif(not IS_ROOT, reason="chown to another uid needs root")
def test_10_a_project_file_another_user_owns_is_refused_unless_named(tmp_path, monkeypatch):
    from numbast_import.config import load_project_config
    from numbast_import.errors import ImportConfigError

    project = make_project(tmp_path)
    (project / "sub").mkdir()
    os.chown(project / "pyproject.toml", OTHER_UID, -1)
    monkeypatch.chdir(project / "sub")
    monkeypatch.delenv("NUMBAST_IMPORT_CONFIG", raising=False)
    with pytest.raises(ImportConfigError, match=f"belongs to uid {OTHER_UID}") as refused:
        load_project_config()
    assert "NUMBAST_IMPORT_CONFIG=" in str(refused.value)
    monkeypatch.setenv("NUMBAST_IMPORT_CONFIG", str(project / "pyproject.toml"))
    assert "vec" in load_project_config().headers  # named explicitly: trusted


def test_10_a_project_file_others_can_write_is_refused(tmp_path, monkeypatch):
    from numbast_import.config import load_project_config
    from numbast_import.errors import ImportConfigError

    project = make_project(tmp_path)
    (project / "pyproject.toml").chmod(0o666)
    monkeypatch.chdir(project)
    monkeypatch.delenv("NUMBAST_IMPORT_CONFIG", raising=False)
    with pytest.raises(ImportConfigError, match="writable by others"):
        load_project_config()


# -- 11. errors that were not the documented ones --------------------------------------------


def test_11_warm_reports_the_whole_error(built, tmp_path):
    project = make_project(tmp_path)
    (project / "include" / "broken.cuh").write_text("struct A { int x }\nstruct B { int y }\n")
    with open(project / "pyproject.toml", "a") as stream:
        stream.write('broken = "include/broken.cuh"\n')
    done = cli(project, tmp_path / "cache", "warm", "broken", "--arch", "sm_90", "--json")
    assert done.returncode == 1
    (result,) = json.loads(done.stdout)
    assert result["status"] == "failed"
    assert "broken.cuh:1" in result["message"] and "broken.cuh:2" in result["message"]
    assert "bypass-parse-error" in result["message"]  # the fix, not only the last line


def test_11_a_lock_timeout_that_is_not_a_number_is_a_config_error(built, tmp_path):
    project, _cache = built
    result = run_python(IMPORT_VEC, project, tmp_path / "cache", NUMBAST_IMPORT_LOCK_TIMEOUT="abc")
    assert result.returncode != 0
    assert "ImportConfigError" in result.stderr and "NUMBAST_IMPORT_LOCK_TIMEOUT='abc'" in (
        result.stderr
    )
    assert "ValueError" not in result.stderr


def test_11_an_rtc_root_under_a_file_compiles_in_memory(tmp_path, caplog):
    from numbast_import import compiler
    from numbast_import.rtc.build import clear_memo

    blocker = tmp_path / "a-file"
    blocker.write_text("")
    clear_memo()
    with caplog.at_level("WARNING"):
        cubin = compiler.compile(
            "__global__ void k(int *a) { a[0] = 1; }", arch="sm_90", cache_dir=blocker / "cache"
        )
    clear_memo()
    assert cubin[:4] == b"\x7fELF"
    assert "cannot write the cache root" in caplog.text and "Not a directory" in caplog.text


def test_11_odd_module_names_get_a_clear_error(built):
    project, cache = built
    code = (
        "import importlib\n"
        "for name in ('cuda_headers.1x', 'cuda_headers.my-lib'):\n"
        "    try:\n"
        "        importlib.import_module(name)\n"
        "    except ImportError as exc:\n"
        "        print(type(exc).__name__, exc)\n"
    )
    result = run_python(code, project, cache)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.strip().splitlines()
    assert len(lines) == 2 and all("is not a module name that can be mapped" in x for x in lines)
    warm = cli(project, cache, "warm", "a.b", "--arch", "sm_90")
    assert warm.returncode == 1 and "is not a module name" in warm.stdout


# -- issue 20, point 6: a failed build leaves nothing behind ---------------------------------


def test_a_failed_build_leaves_nothing_a_later_import_or_verify_sees(tmp_path, caplog):
    from numbast_import.cache.instances import EntryInstances
    from numbast_import.cache.store import CacheStore

    root = tmp_path / "cache"
    store = CacheStore(root)

    def fails_after_making_an_instance(target):
        # What a build that instantiates a template and then fails did: the instance was
        # written into the entry's (future) directory, which then lacked a manifest.
        EntryInstances(target, "sm_90").put("ab" * 32, {"layout": [4, 4]})
        raise RuntimeError("NVRTC rejected the header")

    with pytest.raises(RuntimeError):
        store.build("cd" * 32, {"format": 4}, fails_after_making_an_instance)
    left = sorted(str(p.relative_to(root)) for p in root.rglob("*"))
    assert left == ["cd"], left  # the shard directory, reused by the next build; nothing else
    with caplog.at_level("WARNING", logger="numbast_import"):
        assert store.lookup("cd" * 32, {"format": 4}) is None
    assert "damaged" not in caplog.text, "a later lookup saw damage"


def test_a_failed_import_leaves_no_damage_for_verify_or_list(built, tmp_path):
    project = make_project(tmp_path)
    cache = tmp_path / "cache"
    (project / "include" / "broken.cuh").write_text("struct A { int x }\n")
    with open(project / "pyproject.toml", "a") as stream:
        stream.write('broken = "include/broken.cuh"\n')
    for _attempt in range(2):
        failed = run_python("import cuda_headers.broken", project, cache)
        assert failed.returncode != 0 and "HeaderParseError" in failed.stderr
        assert "damaged" not in failed.stderr
    assert cli(project, cache, "verify").returncode == 0
    listed = cli(project, cache, "list", "--json")
    assert [r for r in json.loads(listed.stdout) if r["kind"] == "header"] == []
    assert not [p for p in cache.rglob("*") if p.name.endswith(".lock") or ".build-" in p.name]


# -- verify reports every kind of damage these tests plant -----------------------------------


def test_verify_reports_every_kind_of_damage(copy_of):
    from numbast_import.cache.instances import EntryInstances
    from numbast_import.programs import ProgramCache

    project, cache = copy_of
    (entry,) = entries(cache)

    def clone(name: str) -> Path:
        path = cache / name[:2] / name
        path.parent.mkdir(exist_ok=True, mode=0o700)
        shutil.copytree(entry, path)
        return path

    planted = {}
    path = planted["artifact"] = clone("a1" * 32)
    (path / "bindings.pyc").write_bytes(b"garbage")
    path = planted["partial"] = clone("a2" * 32)
    (path / MANIFEST).unlink()
    path = planted["not an object"] = clone("a3" * 32)
    (path / MANIFEST).write_text("[]")
    path = planted["wrong type"] = clone("a4" * 32)
    _damage_manifest(path, shims_left_out={"not": "a list"})
    path = planted["bytecode"] = clone("a5" * 32)
    plant_code(path, "pass")
    (path / BINDINGS).write_bytes((path / BINDINGS).read_bytes() + b"# edited\n")
    _damage_manifest(
        path,
        artifacts={
            **json.loads((path / MANIFEST).read_text())["artifacts"],
            BINDINGS: sha256((path / BINDINGS).read_bytes()),
        },
    )
    path = planted["mode"] = clone("a6" * 32)
    (path / "bindings.py").chmod(0o666)
    instances = EntryInstances(entry, "sm_90")
    instances.put("b1" * 32, {"layout": [4, 4]})
    (record,) = (entry / "instances").glob("*/record.json")
    record.write_text('{"layout": [8, 8]}')
    planted["instance"] = record.parent
    programs = ProgramCache(cache)
    programs[b"k"] = b"\x7fELF program"
    (program,) = (cache / "programs").glob("*/*")
    (program / "program.bin").write_bytes(b"\x7fELF edited!")
    planted["program"] = program
    (pch,) = (cache / "parser" / "prelude").glob("*.pch")
    with open(pch, "ab") as stream:
        stream.write(b"more")
    planted["prelude"] = pch

    done = cli(project, cache, "verify", "--json")
    assert done.returncode == 1, done.stderr
    damaged = {
        item["path"]: " ".join(item["problems"]) for item in json.loads(done.stdout)["damaged"]
    }
    expected = {
        "artifact": "bindings.pyc does not match",
        "partial": "manifest.json missing",
        "not an object": "not a JSON object",
        "wrong type": "'shims_left_out' must be a list of strings",
        "bytecode": "was not compiled from this bindings.py",
        "mode": "writable by others",
        "instance": "record.json does not match",
        "program": "program.bin does not match",
        "prelude": "not the size",
    }
    for kind, problem in expected.items():
        assert problem in damaged.get(str(planted[kind]), ""), (kind, damaged)
    assert str(entry) not in damaged  # the intact entry (its instances are listed apart)


def test_a_parse_after_its_cache_directory_was_removed(tmp_path, monkeypatch):
    """What the soak test found: clear --all removed the parser's directory while a build
    parsed, and the next parse in that process failed with FileNotFoundError."""
    from ast_canopy import parse_declarations_from_source

    monkeypatch.setenv("AST_CANOPY_CACHE_DIR", str(tmp_path / "parser"))
    header = str(Path(__file__).parent / "data" / "import" / "proj" / "include" / "vec.cuh")
    parse_declarations_from_source(header, [header], "sm_90")
    shutil.rmtree(tmp_path / "parser")
    decls = parse_declarations_from_source(header, [header], "sm_90")
    assert [f.name for f in decls.functions] == ["dot", "scaled_dot"]

"""The import system end to end, on the CPU: the first import generates and caches; a warm
import in a fresh process runs the cached bytecode (no compile), neither clang nor NVRTC, and
links kernels through the cached LTO-IR; edits, damage, concurrent and killed builders,
read-only layers and unwritable roots are handled."""

from __future__ import annotations

import ast
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from import_support import (
    IMPORT_VEC,
    LINK_WITHOUT_NVRTC,
    clean_env,
    entries,
    make_project,
    run_python,
)

from numbast_import.cache.file_hashes import file_sha256
from numbast_import.cache.key import FORMAT_VERSION
from numbast_import.cache.manifest import ARTIFACTS, BINDINGS, BINDINGS_CODE, MANIFEST
from numbast_import.cache.store import read_entry


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """A project whose module ``cuda_headers.vec`` was imported once (a cold build)."""
    tmp = tmp_path_factory.mktemp("import_built")
    project, cache = make_project(tmp), tmp / "cache"
    result = run_python(IMPORT_VEC, project, cache)
    assert result.returncode == 0, result.stderr
    return project, cache, result


@pytest.fixture
def copy_of(built, tmp_path):
    """A private copy of the built cache (entries name the shared project's files: tests that
    edit the project, or rebuild through a printed command, make their own)."""
    project, cache, _ = built
    copy = tmp_path / "cache"
    shutil.copytree(cache, copy)
    return project, copy


def test_first_import_generates_a_complete_entry(built):
    project, cache, result = built
    assert result.stderr.count("numbast-import: generating cuda_headers.vec") == 1
    (entry,) = entries(cache)
    assert entry.parent.name == entry.name[:2]
    assert result.stdout.strip() == str(entry / "bindings.py")
    for name in (*ARTIFACTS, MANIFEST):
        assert (entry / name).is_file(), name
    manifest = json.loads((entry / MANIFEST).read_text())
    assert manifest["kind"] == "header" and manifest["format"] == FORMAT_VERSION
    key = manifest["key"]
    assert key["arch"] == "sm_90" and key["module"] == "cuda_headers.vec"
    assert key["header"] == str((project / "include" / "vec.cuh").resolve())
    for component in ("header_sha256", "options", "cuda_toolkit", "numba_cuda", "python"):
        assert key[component], component
    included = manifest["included_files"]
    assert str((project / "include" / "scale.h").resolve()) in included
    assert any(path.endswith("cuda_runtime.h") for path in included)
    assert set(manifest["artifacts"]) == set(ARTIFACTS)
    assert manifest["project"] == str(project / "pyproject.toml")
    (digest, names), *_ = manifest["shim_units"]  # compiled in units (shim entries)
    assert names and (cache / "shims" / digest[:2] / digest / "unit.ltoir").stat().st_size > 0
    assert cache.stat().st_mode & 0o777 == 0o700


def test_the_parser_cache_lives_in_the_root_and_no_entry_depends_on_it(built):
    _project, cache, _ = built
    assert list((cache / "parser" / "prelude").glob("*.pch")), "the prelude is under the root"
    (entry,) = entries(cache)
    included = json.loads((entry / MANIFEST).read_text())["included_files"]
    internal = [p for p in included if "/parser/" in p or "ast_canopy" in p or "stub" in p]
    assert not [p for p in internal if "stubs" not in p], internal  # glibc's stubs.h is fine


def test_warm_import_runs_cached_bytecode_without_clang_nvrtc_or_compile(built):
    project, cache, _ = built
    (entry,) = entries(cache)
    code = (
        "import builtins\n"
        "compiled = []\n"
        "real_compile = builtins.compile\n"
        "def spy(source, filename, *args, **kwargs):\n"
        "    compiled.append(str(filename))\n"
        "    return real_compile(source, filename, *args, **kwargs)\n"
        "builtins.compile = spy\n" + LINK_WITHOUT_NVRTC + "print('header:', vec.__cuda_header__)\n"
        "print('key:', vec.__numbast_key__)\n"
        "print('compiled bindings:', [f for f in compiled if f.endswith('bindings.py')])\n"
    )
    result = run_python(code, project, cache)
    assert result.returncode == 0, result.stderr
    assert "generating" not in result.stderr
    assert "clang loaded: False" in result.stdout
    assert "link object: LTOIR" in result.stdout and "cubin bytes" in result.stdout
    assert f"header: {project / 'include' / 'vec.cuh'}" in result.stdout
    assert f"key: {entry.name}" in result.stdout
    assert "compiled bindings: []" in result.stdout


def test_editing_an_included_header_misses_and_the_printed_command_rebuilds(tmp_path):
    project, cache = make_project(tmp_path), tmp_path / "cache"
    assert run_python(IMPORT_VEC, project, cache).returncode == 0
    (old,) = entries(cache)
    top = (old / BINDINGS).read_text().splitlines()[1]
    command = top.split("regenerate: ", 1)[1]
    assert command.startswith("numbast-cache --config ") and "--into" in command
    scale = project / "include" / "scale.h"
    scale.write_text(scale.read_text().replace("2.0f", "3.0f"))

    # The command runs as printed: in a shell, from anywhere, with numbast-cache on PATH.
    env = clean_env(cache, PATH=os.path.dirname(sys.executable) + os.pathsep + os.environ["PATH"])
    env.pop("NUMBAST_CACHE_DIR")
    done = subprocess.run(
        command, shell=True, cwd="/", env=env, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.startswith("built cuda_headers.vec sm_90"), done.stdout
    # Same lookup digest (the header itself did not change): the entry was replaced.
    assert entries(cache) == [old]
    manifest = json.loads((old / MANIFEST).read_text())
    assert manifest["included_files"][str(scale.resolve())] == file_sha256(scale)

    quiet = run_python(IMPORT_VEC, project, cache, NUMBAST_IMPORT_QUIET="1")
    assert quiet.returncode == 0, quiet.stderr
    assert quiet.stdout.strip() == str(old / BINDINGS) and quiet.stderr == ""


def test_a_damaged_entry_is_rebuilt_with_one_warning(copy_of):
    project, cache = copy_of
    (entry,) = entries(cache)
    (entry / "bindings.pyc").write_bytes(b"garbage")
    result = run_python(IMPORT_VEC, project, cache)
    assert result.returncode == 0, result.stderr
    assert result.stderr.count("ignoring damaged cache entry") == 1, result.stderr
    assert "bindings.pyc does not match" in result.stderr
    assert "generating cuda_headers.vec" in result.stderr
    (entry,) = entries(cache)
    assert read_entry(entry)[2] == []


@pytest.mark.parametrize(
    ("damage", "problem"),
    [
        (lambda m: m.update(included_files=[]), "'included_files' must be a table"),
        (lambda m: m.update(key="sm_90"), "'key' must be an object (it is a str)"),
        (lambda m: m.update(artifacts={"bindings.py": 3}), "table of file names to sha256"),
        (lambda m: m.update(format=True), "'format' must be an integer (it is a bool)"),
        (lambda m: m.pop("artifacts"), "lacks 'artifacts'"),
        (lambda m: m.update(kind="rtc"), "kind 'rtc' is not 'header'"),
    ],
)
def test_a_manifest_with_wrong_types_is_a_miss_with_one_warning(copy_of, caplog, damage, problem):
    from numbast_import.cache import entries as entries_module
    from numbast_import.cache.store import CacheStore

    _project, cache = copy_of
    (entry,) = entries(cache)
    manifest = json.loads((entry / MANIFEST).read_text())
    key = manifest["key"]
    damage(manifest)
    (entry / MANIFEST).write_text(json.dumps(manifest))
    store = CacheStore(cache)
    with caplog.at_level("WARNING", logger="numbast_import"):
        assert store.lookup(entry.name, key) is None
        assert store.lookup(entry.name, key) is None  # as a builder looks again under the lock
    warnings = [r.getMessage() for r in caplog.records if "damaged" in r.getMessage()]
    assert len(warnings) == 1 and problem in warnings[0], warnings
    entries_module._warned.clear()


def test_bytecode_is_checked_like_a_pyc(copy_of):
    import importlib.util

    from numbast_import.cache.manifest import pyc_problem, sha256

    _project, cache = copy_of
    (entry,) = entries(cache)
    pyc = (entry / BINDINGS_CODE).read_bytes()
    source = (entry / BINDINGS).read_bytes()
    assert pyc[:4] == importlib.util.MAGIC_NUMBER and pyc_problem(pyc, source) is None
    assert "another Python version" in pyc_problem(b"\0\0\0\0" + pyc[4:], source)
    assert "not compiled from this" in pyc_problem(pyc, source + b"# edited\n")
    # Even with the manifest updated to match, an edited module is refused.
    (entry / BINDINGS).write_bytes(source + b"# edited\n")
    manifest = json.loads((entry / MANIFEST).read_text())
    manifest["artifacts"][BINDINGS] = sha256(source + b"# edited\n")
    (entry / MANIFEST).write_text(json.dumps(manifest))
    assert any("not compiled from this" in p for p in read_entry(entry)[2])


def test_sixteen_concurrent_importers_make_one_generation(tmp_path):
    project, cache = make_project(tmp_path), tmp_path / "cache"
    start = time.time() + 3.0  # every interpreter is up before any of them imports
    code = f"import time; time.sleep(max(0, {start} - time.time())); {IMPORT_VEC}"
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", code],
            cwd=project,
            env=clean_env(cache),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(16)
    ]
    outputs = [p.communicate(timeout=600) for p in procs]
    assert all(p.returncode == 0 for p in procs), outputs
    stderr = "".join(err for _out, err in outputs)
    assert stderr.count("generating cuda_headers.vec") == 1, stderr
    (entry,) = entries(cache)
    assert read_entry(entry)[2] == []
    assert {out.strip() for out, _err in outputs} == {str(entry / BINDINGS)}
    assert [p.name for p in entry.parent.iterdir() if p != entry] == []  # no lock file left


def test_a_builder_killed_mid_build_leaves_nothing_trusted_and_no_lock_to_wait_out(tmp_path):
    project, cache = make_project(tmp_path), tmp_path / "cache"
    victim = subprocess.Popen(
        [sys.executable, "-c", IMPORT_VEC],
        cwd=project,
        env=clean_env(cache),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.time() + 120
    while not list(cache.glob("*/.build-*")):
        assert time.time() < deadline and victim.poll() is None, "the build never started"
        time.sleep(0.01)
    victim.send_signal(signal.SIGKILL)
    victim.wait()
    assert entries(cache) == [] and list(cache.glob("*/.build-*"))

    started = time.time()
    result = run_python(IMPORT_VEC, project, cache, NUMBAST_IMPORT_LOCK_TIMEOUT="30")
    assert result.returncode == 0, result.stderr
    assert "waiting for" not in result.stderr and time.time() - started < 30
    assert result.stderr.count("generating cuda_headers.vec") == 1
    (entry,) = entries(cache)
    assert read_entry(entry)[2] == []
    assert not list(cache.glob("*/.build-*")), "the next builder removed the dead one's files"


def test_the_import_systems_code_that_shapes_an_entry_is_part_of_its_key(copy_of, tmp_path):
    """A development checkout changing build.py, shim_compiler.py, ... misses (as for the
    parser's or the runtime's sources); a change to code that only finds or shows entries (the
    CLI) does not. ENTRY_SHAPING_MODULES names every module build.py reaches but the store's."""
    from test_layers import import_graph

    from numbast_import.cache.key import ENTRY_SHAPING_MODULES

    graph, reached, todo = import_graph(), set(), ["numbast_import.build"]
    while todo:
        module = todo.pop()
        if module not in reached:
            reached.add(module)
            todo += [m for m in graph[module] if m.startswith("numbast_import.")]
    # The store (its layout is FORMAT_VERSION's), error messages, the progress line, the
    # package version (a key component of its own), handing freed memory back.
    shaping = {m for m in reached if not m.startswith("numbast_import.cache.")}
    shaping -= {"numbast_import.errors", "numbast_import.progress", "numbast_import.version"}
    shaping -= {"numbast_import.free_memory"}
    listed = {
        "numbast_import." + p.removesuffix(".py").replace("/", ".") for p in ENTRY_SHAPING_MODULES
    }
    assert listed == shaping

    project, cache = copy_of
    package = Path(__import__("numbast_import").__file__).parent
    copy = tmp_path / "checkout" / "numbast_import"
    shutil.copytree(package, copy, ignore=shutil.ignore_patterns("__pycache__"))
    path = os.pathsep.join([str(copy.parent), *clean_env(cache)["PYTHONPATH"].split(os.pathsep)])
    (entry,) = entries(cache)
    code = IMPORT_VEC + "; import numbast_import; print(numbast_import.__file__)"

    (copy / "cli.py").write_text((copy / "cli.py").read_text() + "\n# changed\n")
    unchanged = run_python(code, project, cache, PYTHONPATH=path)
    assert unchanged.returncode == 0, unchanged.stderr
    assert "generating" not in unchanged.stderr
    assert unchanged.stdout.split() == [str(entry / BINDINGS), str(copy / "__init__.py")]

    (copy / "shim_compiler.py").write_text((copy / "shim_compiler.py").read_text() + "\n# x\n")
    changed = run_python(code, project, cache, PYTHONPATH=path)
    assert changed.returncode == 0, changed.stderr
    assert changed.stderr.count("numbast-import: generating cuda_headers.vec") == 1
    assert len(entries(cache)) == 2 and str(entry) not in changed.stdout


def test_a_read_only_layer_serves_imports_without_a_parse_or_a_write(copy_of, tmp_path):
    project, built_cache = copy_of
    layer = tmp_path / "image-cache"
    shutil.move(built_cache, layer)
    for directory, _dirs, _files in os.walk(layer):
        os.chmod(directory, 0o555)
    writable = tmp_path / "writable"
    code = LINK_WITHOUT_NVRTC + "print('file:', vec.__file__)\n"
    try:
        result = run_python(code, project, writable, NUMBAST_CACHE_PATH=str(layer))
    finally:
        for directory, _dirs, _files in os.walk(layer):
            os.chmod(directory, 0o700)
    assert result.returncode == 0, result.stderr
    assert "generating" not in result.stderr and "clang loaded: False" in result.stdout
    (entry,) = entries(layer)
    assert f"file: {entry / BINDINGS}" in result.stdout
    assert not writable.exists(), "nothing is written to the writable root"


def test_a_root_that_cannot_be_created_builds_in_memory_with_one_warning(built, tmp_path):
    project, _cache, _ = built
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    result = run_python(IMPORT_VEC, project, blocker / "cache")
    assert result.returncode == 0, result.stderr
    assert result.stderr.count("cannot write the cache root") == 1, result.stderr
    assert result.stderr.count("numbast-import: generating") == 1
    assert "ast_canopy" not in result.stderr  # the parser did not warn a second time
    assert "built in memory" in result.stdout


def test_a_read_only_root_builds_in_memory(tmp_path, monkeypatch, caplog):
    import errno
    import tempfile

    from numbast_import.cache import entries as entries_module
    from numbast_import.cache.store import BuildOutput, CacheStore

    def read_only(*args, **kwargs):
        raise OSError(errno.EROFS, "Read-only file system")

    monkeypatch.setattr(tempfile, "mkdtemp", read_only)
    built_in: list = []

    def builder(entry_dir):
        built_in.append(entry_dir)
        return BuildOutput(artifacts={"a": b"x"}, included_files={})

    store = CacheStore(tmp_path / "root")
    with caplog.at_level("WARNING", logger="numbast_import"):
        first = store.build("ab" * 32, {"format": 2}, builder)
        second = store.build("cd" * 32, {"format": 2}, builder)
    assert first.path is None and second.path is None and built_in == [None, None]
    warnings = [r.getMessage() for r in caplog.records]
    assert len(warnings) == 1 and "Read-only file system" in warnings[0]
    assert "NUMBAST_CACHE_DIR" in warnings[0]
    entries_module._warned.clear()


def test_register_then_import_and_its_printed_command(built, tmp_path):
    project, _cache, _ = built
    cache = tmp_path / "cache"
    code = (
        "import numbast_import\n"
        "numbast_import.register('mine', 'include/vec.cuh', exclude_functions=['dot'])\n"
        "import cuda_headers.mine as m\n"
        "print(sorted(n for n in m.__all__))\n"
        "print(open(m.__file__).read().splitlines()[1].split('regenerate: ', 1)[1])\n"
    )
    result = run_python(code, project, cache)
    assert result.returncode == 0, result.stderr
    names, command = result.stdout.strip().splitlines()[-2:]
    assert names == "['Vec2', '_type_Vec2', 'scaled_dot']"
    assert command.startswith(sys.executable) and "'\"'\"'" not in command
    assert 'numbast_import.register("mine"' in command and 'exclude_functions=["dot"]' in command
    done = subprocess.run(command, shell=True, cwd="/", capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_a_warm_import_reads_no_included_header_and_no_generator_source(built):
    """Included headers are checked by size and time (recorded at build for files that had
    settled), and the generator's fingerprint is remembered in the root: a warm import opens
    neither. (A header edited after the build changes its stamp, and is then hashed.)"""
    project, cache, _ = built
    code = (
        "import builtins, io\n"
        "opened = []\n"
        "real_open = io.open\n"
        "def spying(file, *args, **kwargs):\n"
        "    opened.append(str(file))\n"
        "    return real_open(file, *args, **kwargs)\n"
        "builtins.open = io.open = spying\n"
        "import cuda_headers.vec\n"
        "builtins.open = io.open = real_open\n"
        "print('opened:', [p for p in opened if p.endswith(('.cuh', '.h', '.hpp', '.py'))])\n"
    )
    result = run_python(code, project, cache)
    assert result.returncode == 0, result.stderr
    opened = ast.literal_eval(result.stdout.split("opened:", 1)[1].strip())
    generator = [p for p in opened if p.endswith(".py") and "/numbast/" in p]
    assert not generator, generator
    # The mapped header itself is part of the entry's name; the toolkit's version header too.
    headers = {os.path.basename(p) for p in opened if not p.endswith(".py")}
    assert headers <= {"vec.cuh", "cuda_runtime_api.h"}, headers

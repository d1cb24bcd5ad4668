"""The import system end to end, on the CPU: first import generates and caches, a warm import in
a fresh process runs neither clang nor NVRTC and links kernels through the cached LTO-IR, and
edits, damage and concurrent builders are handled."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from import_support import (
    IMPORT_VEC,
    LINK_WITHOUT_NVRTC,
    TESTS,
    entries,
    make_project,
    run_python,
)

from numbast_import.cache.key import file_sha256
from numbast_import.cache.store import ARTIFACTS, MANIFEST, entry_problems


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """A project whose module ``cuda_headers.vec`` was imported once (a cold build)."""
    tmp = tmp_path_factory.mktemp("import_built")
    project, cache = make_project(tmp), tmp / "cache"
    result = run_python(IMPORT_VEC, project, cache)
    assert result.returncode == 0, result.stderr
    return project, cache, result


def test_first_import_generates_a_complete_entry(built):
    project, cache, result = built
    assert result.stderr.count("numbast-import: generating cuda_headers.vec") == 1
    (entry,) = entries(cache)
    assert entry.parent.name == entry.name[:2]
    assert result.stdout.strip() == str(entry / "bindings.py")
    for name in (*ARTIFACTS, MANIFEST):
        assert (entry / name).is_file(), name
    manifest = json.loads((entry / MANIFEST).read_text())
    key = manifest["key"]
    assert key["arch"] == "sm_90" and key["module"] == "cuda_headers.vec"
    assert key["header"] == str((project / "include" / "vec.cuh").resolve())
    for component in ("header_sha256", "options", "cuda_toolkit", "numba_cuda", "python"):
        assert key[component], component
    included = manifest["included_files"]
    assert str((project / "include" / "scale.h").resolve()) in included
    assert any(path.endswith("cuda_runtime.h") for path in included)
    assert set(manifest["artifacts"]) == set(ARTIFACTS)
    assert (entry / "shim.ltoir").stat().st_size > 0
    assert cache.stat().st_mode & 0o777 == 0o700


def test_warm_import_links_the_cached_ltoir_without_clang_or_nvrtc(built):
    project, cache, _ = built
    result = run_python(LINK_WITHOUT_NVRTC, project, cache)
    assert result.returncode == 0, result.stderr
    assert "generating" not in result.stderr
    assert "clang loaded: False" in result.stdout
    assert "link object: LTOIR" in result.stdout
    assert "cubin bytes" in result.stdout


def test_editing_an_included_header_misses_and_rebuilds(tmp_path):
    project, cache = make_project(tmp_path), tmp_path / "cache"
    assert run_python(IMPORT_VEC, project, cache).returncode == 0
    scale = project / "include" / "scale.h"
    scale.write_text(scale.read_text().replace("2.0f", "3.0f"))
    shown = _cli(project, cache, "show", "vec")
    assert shown.returncode == 0, shown.stderr
    assert f"included file {scale.resolve()}: contents changed" in shown.stdout

    quiet = run_python(IMPORT_VEC, project, cache, NUMBAST_IMPORT_QUIET="1")
    assert quiet.returncode == 0, quiet.stderr
    assert "numbast-import" not in quiet.stderr  # a miss, but silenced
    (entry,) = entries(cache)
    manifest = json.loads((entry / MANIFEST).read_text())
    assert manifest["included_files"][str(scale.resolve())] == file_sha256(scale)


def test_a_damaged_entry_is_a_miss_with_a_warning(tmp_path):
    project, cache = make_project(tmp_path), tmp_path / "cache"
    assert run_python(IMPORT_VEC, project, cache).returncode == 0
    (entry,) = entries(cache)
    (entry / "shim.ltoir").write_bytes(b"garbage")
    verify = _cli(project, cache, "verify")
    assert verify.returncode == 1 and "shim.ltoir does not match" in verify.stdout

    result = run_python(IMPORT_VEC, project, cache)
    assert result.returncode == 0, result.stderr
    assert "ignoring damaged cache entry" in result.stderr
    assert "generating cuda_headers.vec" in result.stderr
    (entry,) = entries(cache)
    assert entry_problems(entry) == []

    (entry / MANIFEST).unlink()  # a partial entry
    result = run_python(IMPORT_VEC, project, cache)
    assert result.returncode == 0 and "manifest.json missing" in result.stderr


def test_concurrent_builders_make_one_good_entry(tmp_path):
    project, cache = make_project(tmp_path), tmp_path / "cache"
    code = f"import time; time.sleep(0.2); {IMPORT_VEC}"
    env = {**_env(cache), "PYTHONPATH": str(TESTS)}
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", code],
            cwd=project,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(2)
    ]
    outputs = [p.communicate(timeout=300) for p in procs]
    assert all(p.returncode == 0 for p in procs), outputs
    stderr = "".join(err for _out, err in outputs)
    assert stderr.count("generating cuda_headers.vec") == 1, stderr
    (entry,) = entries(cache)
    assert entry_problems(entry) == []
    assert not list(cache.glob(".build-*")), os.listdir(cache)


def _cli(project, cache, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "numbast_import.cli", *args],
        cwd=project,
        env=_env(cache),
        capture_output=True,
        text=True,
    )


def _env(cache) -> dict[str, str]:
    env = {**os.environ, "NUMBAST_CACHE_DIR": str(cache)}
    for variable in ("NUMBAST_IMPORT_QUIET", "NUMBAST_IMPORT_ARCH"):
        env.pop(variable, None)
    return env

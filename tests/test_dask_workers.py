"""Kernels using a mapped header run on Dask worker processes that have no pyproject.toml: the
module pickles as its mapping, the workers take its entry from a read-only layer (no
generation: their writable root stays empty), and each compiles and links the kernel for sm_90
(no GPU needed). A header edited after the module was pickled fails the task with the digest
error. The client is tests/data/dask/cluster_client.py, run as a user's script."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from import_support import TESTS, clean_env, entries, make_project

pytest.importorskip("distributed")

CLIENT = TESTS / "data" / "dask" / "cluster_client.py"


def test_two_worker_processes_link_a_kernel_from_the_warmed_layer(tmp_path):
    project = make_project(tmp_path)
    workdir, layer, host_root = tmp_path / "work", tmp_path / "layer", tmp_path / "host"
    workdir.mkdir()
    done = subprocess.run(
        [sys.executable, str(CLIENT), str(project), str(workdir), "2", str(layer), str(host_root)],
        cwd=project,
        env=clean_env(layer),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout.splitlines()[-1])
    edited = result["edited"]
    assert edited.startswith("PickledHeaderMismatchError: cannot import cuda_headers.vec"), edited
    assert "has sha256" in edited and str(project / "include" / "vec.cuh") in edited
    workers = result["workers"]
    assert len({w["pid"] for w in workers}) == 2
    (entry,) = entries(layer)
    for worker in workers:
        assert worker["cubin"] > 0
        assert worker["cwd"] == str(workdir) and not (workdir / "pyproject.toml").exists()
        assert worker["module_file"] == str(entry / "bindings.py")  # from the layer
        assert worker["clang"] is False  # nothing parsed
    # The layer served every worker: their writable root holds no entry (it was not created).
    assert entries(host_root) == []
    assert done.stderr.count("numbast-import: generating") == 1  # the client's, into the layer


EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "dask_kernels.py"


def _example(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(EXAMPLE), *args],
        cwd=tmp_path,
        env=clean_env(tmp_path / "cache"),
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_the_example_compiles_and_links_on_two_workers_without_a_gpu(tmp_path):
    done = _example(tmp_path, "--workers", "2", "--compile-only", "sm_90")
    assert done.returncode == 0, done.stderr
    assert "linked for sm_90 on 2 worker(s)" in done.stdout, done.stdout


@pytest.mark.gpu
def test_the_example_matches_numpy_with_one_worker_on_the_gpu(tmp_path):
    done = _example(tmp_path, "--workers", "1")
    assert done.returncode == 0, done.stderr
    assert "on 1 worker(s) match NumPy" in done.stdout, done.stdout

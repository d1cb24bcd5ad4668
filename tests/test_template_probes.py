"""Coverage's representative instances beyond int (tests/data/import/probes): a pointer for an
iterator parameter next to an array reference (CUB's LoadDirectBlocked), the module's class
types and function objects for class parameters (cooperative groups' thread_rank(group),
reduce(group, value, op)), sizes some templates insist on (multi-warp tiles). What coverage
counts as bound, a kernel calls: the kernel links to an sm_90 cubin, and its numbers are checked
on a GPU."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from import_support import cli, run_python

PROJECT = Path(__file__).parent / "data" / "import" / "probes"


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """The project and its cache, the module built once by ``coverage --json``."""
    root = tmp_path_factory.mktemp("probes")
    project, cache = root / "proj", root / "cache"
    shutil.copytree(PROJECT, project)
    result = cli(project, cache, "coverage", "probes", "--json")
    assert result.returncode == 0, result.stderr
    return project, cache, json.loads(result.stdout)


def test_fallback_instances_are_found_and_reported(built):
    _project, _cache, data = built
    functions = data["kinds"]["function template"]
    assert functions["instances"] == {
        "tp::load_blocked": "::tp::load_blocked<int, 1, int *>",
        "tp::store_blocked": "::tp::store_blocked<int, 1, int *>",
        "tp::rank_of": "::tp::rank_of<::tp::Group>",
        "tp::combine": "::tp::combine<::tp::Group, int, ::tp::Plus<int> >",
    }
    assert data["kinds"]["class template"]["instances"]["tp::Wide"] == "::tp::Wide<64>"
    # A template no argument fits stays not bound, with every candidate tried and the reason.
    (never,) = functions["not_bound"]
    assert never["what"] == "tp::needs_member" and never["outcome"] == "skipped"
    assert "::tp::needs_member<int *>" in never["reason"]  # a fallback was tried
    assert "::tp::needs_member<::tp::Group>" in never["reason"]
    assert "template_probes.cuh(52)" in never["reason"]  # where the compiler stopped


KERNEL = """
import numpy as np
from numba import cuda
from numba.cuda import types
import cuda_headers.probes as tp

N, THREADS = 4, 32
load, store = tp.load_blocked[types.int32, N], tp.store_blocked[types.int32, N]
Plus, Wide = tp.Plus[types.int32], tp.Wide[128]
rank_of, combine, Group = tp.rank_of, tp.combine, tp.Group


def kernel(values, doubled, ranks):
    tid = cuda.threadIdx.x
    items = cuda.local.array(N, types.int32)
    load(tid, values, items)  # an array where the iterator is taken; items by reference
    store(tid, doubled, items)
    group = Group(tid)
    ranks[tid] = rank_of(group) + combine(group, np.int32(10), Plus()) * 100
    ranks[tid] += Wide().count() * 10000
"""

LINK = (
    KERNEL
    + """
from support import link_kernel_to_cubin
i32 = types.int32[:]
print("cubin bytes", len(link_kernel_to_cubin(kernel, (i32, i32, i32), arch="sm_90")))
"""
)

RUN = (
    KERNEL
    + """
values = np.arange(THREADS * N, dtype=np.int32) * 3 - 7
doubled = np.zeros_like(values)
ranks = np.zeros(THREADS, dtype=np.int32)
cuda.jit(kernel)[1, THREADS](values, doubled, ranks)
assert (doubled == values * 2).all(), doubled
tid = np.arange(THREADS, dtype=np.int32)
expected = tid + (10 + tid) * 100 + 2 * 10000
assert (ranks == expected).all(), (ranks, expected)
print("numbers ok")
"""
)


def test_the_instances_coverage_found_are_callable_in_a_kernel(built):
    project, cache, _data = built
    linked = run_python(LINK, project, cache)
    assert linked.returncode == 0, linked.stderr
    assert "cubin bytes" in linked.stdout
    assert "generating" not in linked.stderr  # the module coverage built


@pytest.mark.gpu
def test_the_instances_coverage_found_compute_on_a_gpu(built):
    project, cache, _data = built
    ran = run_python(RUN, project, cache)
    assert ran.returncode == 0, ran.stderr
    assert "numbers ok" in ran.stdout

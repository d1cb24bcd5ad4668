"""Coverage's representative instances beyond int (tests/data/import/probes): a pointer for an
iterator parameter next to an array reference (CUB's LoadDirectBlocked), the module's class
types and function objects for class parameters (cooperative groups' thread_rank(group),
reduce(group, value, op)) and for type parameters given explicitly (check_reduce_params<TyGroup,
...>()), sizes some templates insist on (multi-warp tiles) and instances of that size for class
parameters, alias templates of class templates nothing binds. What coverage
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
        "tp::width_of": "::tp::width_of<::tp::Group>",  # given explicitly: a class
        "tp::words_of": "::tp::words_of<::tp::Wide<64> >",  # an instance of a size
        "tp::apply_op": "::tp::apply_op<::tp::Plus, int>",  # a class template for Op
        "tp::fold_with": "::tp::fold_with<int, ::tp::Plus>",
        "tp::pick": "::tp::pick<::tp::Plus>",
        # a pointer and the module's unary function object (a struct), beside binary ones
        "tp::load_transformed": "::tp::load_transformed<1, int, 1, int *, ::tp::Negate>",
    }
    # pick's explicit specializations (one signature): bound through pick, not as a gap.
    specializations = data["kinds"]["function"]
    assert specializations["bound"] == specializations["found"] == 1, specializations
    assert data["kinds"]["class template"]["instances"]["tp::Wide"] == "::tp::Wide<64>"
    # Alias templates of a class template nothing binds count as bound: their instances are
    # types (given to Pick below).
    aliases = data["kinds"]["alias template"]
    assert aliases["bound"] == aliases["found"] == 3, aliases
    assert aliases["instances"]["tp::op_for"] == "::tp::op_for<int, ::tp::Plus>"
    # A template no argument fits stays not bound, with every candidate tried and the reason.
    (never,) = functions["not_bound"]
    assert never["what"] == "tp::needs_member" and never["outcome"] == "skipped"
    assert "::tp::needs_member<int *>" in never["reason"]  # a fallback was tried
    assert "::tp::needs_member<::tp::Group>" in never["reason"]
    header = (PROJECT / "template_probes.cuh").read_text().splitlines()
    line = next(i for i, text in enumerate(header, 1) if "no_such_member" in text)
    assert f"template_probes.cuh({line})" in never["reason"]  # where the compiler stopped


KERNEL = """
import numpy as np
from numba import cuda
from numba.cuda import types
import cuda_headers.probes as tp

N, THREADS = 4, 32
load, store = tp.load_blocked[types.int32, N], tp.store_blocked[types.int32, N]
Plus, Wide = tp.Plus[types.int32], tp.Wide[128]
rank_of, combine, Group = tp.rank_of, tp.combine, tp.Group
width_of_group, words_of = tp.width_of[Group], tp.words_of
PickSmall3, PickEven3 = tp.Pick[tp.is_small[3]], tp.Pick[tp.is_even[3]]
apply_plus, fold_with = tp.apply_op[tp.Plus], tp.fold_with  # Op given; Op deduced
pick_plus, pick_times = tp.pick[tp.Plus], tp.pick[tp.Times]  # explicit specializations
TimesOf = tp.op_for[types.int32, tp.Times]  # an alias template's Op<T>: Times<int>
transform, Negate = tp.load_transformed[THREADS, types.int32, N], tp.Negate


def kernel(values, doubled, ranks, picks, ops, specials, negated):
    tid = cuda.threadIdx.x
    items = cuda.local.array(N, types.int32)
    load(tid, values, items)  # an array where the iterator is taken; items by reference
    store(tid, doubled, items)
    group = Group(tid)
    ranks[tid] = rank_of(group) + combine(group, np.int32(10), Plus()) * 100
    ranks[tid] += Wide().count() * 10000 + words_of(Wide()) * 100000
    ranks[tid] += width_of_group() * 1000000
    picks[tid] = PickSmall3()(tid, -1) * 10 + PickEven3()(1, 2)
    i, two = np.int32(tid), np.int32(2)
    ops[tid] = apply_plus(i, np.int32(3)) * 1000 + fold_with(TimesOf(), i, two)
    specials[tid] = pick_plus(i, two) * 10000 + pick_times(i, two)
    transform(tid, values, items, Negate())  # striped: item k is values[tid + k * THREADS]
    for k in range(N):
        negated[tid * N + k] = items[k]
"""

LINK = (
    KERNEL
    + """
from support import link_kernel_to_cubin
i32 = types.int32[:]
print("cubin bytes", len(link_kernel_to_cubin(kernel, (i32,) * 7, arch="sm_90")))
"""
)

RUN = (
    KERNEL
    + """
values = np.arange(THREADS * N, dtype=np.int32) * 3 - 7
doubled, negated = np.zeros_like(values), np.zeros_like(values)
ranks, picks, ops, specials = (np.zeros(THREADS, dtype=np.int32) for _ in range(4))
cuda.jit(kernel)[1, THREADS](values, doubled, ranks, picks, ops, specials, negated)
assert (doubled == values * 2).all(), doubled
expected = -values.reshape(N, THREADS).T.ravel()  # thread t's item k: values[t + k * THREADS]
assert (negated == expected).all(), (negated, expected)
tid = np.arange(THREADS, dtype=np.int32)
expected = tid + (10 + tid) * 100 + 2 * 10000 + 2 * 100000 + 32 * 1000000
assert (ranks == expected).all(), (ranks, expected)
assert (picks == tid * 10 + 2).all(), picks  # 3 < 8 picks yes; 3 is odd: no
assert (ops == (tid + 3) * 1000 + tid * 4).all(), ops  # Plus given; Times deduced: tid * 2 * 2
expected = (tid + 2 + 1000) * 10000 + (tid * 2 + 2000)  # the specializations' own bodies
assert (specials == expected).all(), (specials, expected)
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

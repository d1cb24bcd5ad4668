"""C++ idioms of real libraries, each with a small header of our own (tests/data/libraries):
results of types whose copy assignment is private, undefined or deleted (cooperative_groups'
``thread_group`` and ``thread_block``) are constructed in the result slot, and static members
are reached through objects as C++ allows (``block.sync()``). A kernel of each links to an
sm_90 cubin; the GPU tests check the numbers."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from numba import cuda
from numba.cuda import types
from support import link_kernel_to_cubin

DATA = Path(__file__).parent / "data" / "libraries"
THREADS = 64


@pytest.fixture(scope="module")
def groups():
    from numbast import bind_header

    return bind_header(DATA / "groups.cuh", arch="sm_90")


def groups_kernel(lib):
    whole_team, this_block = lib.whole_team, lib.this_block

    def kernel(out):
        team = whole_team()  # Team: operator= declared, never defined
        block = this_block()  # Block: a const member, so no copy assignment
        i = block.thread_rank()  # static members through an object
        out[i, 0] = team.rank()
        out[i, 1] = team.size()
        out[i, 2] = block.size()
        out[i, 3] = block.id()
        block.sync()
        out[i, 4] = lib.Block.thread_rank() + 1  # and through the type, as before

    return kernel


def test_unassignable_results_and_static_members_link_to_sm90_cubin(groups):
    link_kernel_to_cubin(groups_kernel(groups), (types.uint32[:, :],))


@pytest.mark.gpu
def test_unassignable_results_and_static_members_numbers(groups):
    out = cuda.to_device(np.zeros((THREADS, 5), np.uint32))
    cuda.jit(groups_kernel(groups))[1, THREADS](out)
    ranks = np.arange(THREADS, dtype=np.uint32)
    expected = np.stack([ranks, np.full(THREADS, THREADS), np.full(THREADS, THREADS),
                         np.full(THREADS, 7), ranks + 1], axis=1)  # fmt: skip
    np.testing.assert_array_equal(out.copy_to_host(), expected)

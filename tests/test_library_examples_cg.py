"""Cooperative groups through ``import cuda_headers.cooperative_groups`` (issue 20), the worked
example of docs/libraries.md: ``this_thread_block().sync()``, a tiled-partition reduction, the
group function templates, imported once (a module-scoped fixture) through a one-line wrapper
header and a ``retain`` list. Each kernel links to an sm_90 cubin here; the GPU tests check its
numbers against NumPy. A file of its own (see test_library_examples.py)."""

from __future__ import annotations

import library_examples as ex
import numpy as np
import pytest
from library_example_tests import coverage_kinds, import_library, run, worked_example_links


@pytest.fixture(scope="module")
def cg(tmp_path_factory):
    yield from import_library(ex.COOPERATIVE_GROUPS, tmp_path_factory)


@pytest.mark.parametrize("example", ex.WORKED[ex.COOPERATIVE_GROUPS.name])
def test_cooperative_groups_worked_example_links_to_sm90_cubin(example, cg):
    assert worked_example_links(ex.COOPERATIVE_GROUPS, example, cg)


def test_group_function_templates_count_as_bound_with_a_group_instance(cg):
    """sync, thread_rank and group_size take any group (``const TyGroup &``): no int instance
    compiles, one of the module's groups does, and coverage reports it."""
    templates = coverage_kinds(cg)["function template"]
    for name in ("sync", "thread_rank", "group_size", "reduce"):
        (instance,) = [v for k, v in templates["instances"].items() if k.endswith(f"::{name}")]
        assert "_group" in instance or "thread_block" in instance, instance


# -- GPU: the numbers --------------------------------------------------------------------------


@pytest.mark.gpu
def test_block_sync_numbers(cg):
    values = np.arange(4 * ex.CG_THREADS, dtype=np.float32)
    _, out = run(ex.block_sync_kernel(cg), 4, ex.CG_THREADS, values, np.zeros_like(values))
    np.testing.assert_array_equal(out, ex.block_sync_expected(values))


@pytest.mark.gpu
def test_group_functions_numbers(cg):
    values = np.arange(4 * ex.CG_THREADS, dtype=np.float32) * 0.5
    _, out = run(ex.group_functions_kernel(cg), 4, ex.CG_THREADS, values, np.zeros_like(values))
    np.testing.assert_array_equal(out, ex.block_sync_expected(values))


@pytest.mark.gpu
def test_tile_reduce_numbers(cg):
    values = np.random.default_rng(20).integers(-100, 100, 4 * ex.CG_THREADS, dtype=np.int32)
    _, sums = run(ex.tile_reduce_kernel(cg), 4, ex.CG_THREADS, values,
                  np.zeros(values.size // 32, np.int32))  # fmt: skip
    np.testing.assert_array_equal(sums, ex.tile_reduce_expected(values))

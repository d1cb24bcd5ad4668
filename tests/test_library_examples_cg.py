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
        (instance,) = [
            v
            for k, v in templates["instances"].items()
            if k.endswith(f"::{name}") and "::details::" not in k
        ]
        assert "_group" in instance or "thread_block" in instance, instance


def test_internal_helpers_count_as_bound_with_the_instances_kernels_give(cg):
    """What the fallbacks of template coverage find for cooperative groups' helpers: a class
    template for a template template parameter (pick_redux<TyOp>, details::reduce,
    redux_op_supported), a group for type parameters given explicitly (check_reduce_params), a
    multi-warp tile for the multi-warp getters; num_threads, declared inline and never defined,
    is not device-callable."""
    kinds = coverage_kinds(cg)
    instances = {
        k.rsplit("::", 1)[-1]: v
        for kind in ("function template", "alias template")
        for k, v in kinds[kind]["instances"].items()
        if "::details::" in k
    }
    assert "pick_redux<::cooperative_groups::" in instances["pick_redux"]
    assert "redux_op_supported<int, ::cooperative_groups::" in instances["redux_op_supported"]
    assert "_group>" in instances["reduce"] and "_group" in instances["check_reduce_params"]
    assert "multi_warp_tile_base<64>" in instances["multi_warp_sync_location_getter"]
    (num_threads,) = [i for i in kinds["method"]["not_bound"] if "num_threads" in i["what"]]
    assert num_threads["outcome"] == "host_only", num_threads


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

"""cache=True kernels that call bindings, on a GPU, across fresh processes (issue 15).

Each scenario of tests/data/kernel_cache/ runs three times in fresh interpreters: the first
compiles and saves the kernel; the second must load it with NVVM, NVRTC and the linker made to
raise, and compute the same numbers; after an edit of the header (or of a header it includes)
the third must compile again and compute the new numbers. Module Callbacks must run for the
kernel loaded from the cache as for the compiled one.
"""

from __future__ import annotations

import math
import os

import pytest
from kernel_cache_support import (
    dynamic_scenario,
    edit,
    imported_scenario,
    linked_scenario,
    run_script,
    static_scenario,
)

pytestmark = pytest.mark.gpu


@pytest.fixture(autouse=True)
def _kernel_cache_supported():
    import numba_cuda

    from numbast.runtime import kernel_cache

    if not kernel_cache.install():
        switch = os.environ.get(kernel_cache.DISABLE_ENV)
        pytest.fail(
            f"the kernel cache is off here: numba-cuda {numba_cuda.__version__} (checked: "
            f"{kernel_cache.KNOWN_VERSIONS}), {kernel_cache.DISABLE_ENV}={switch}"
        )


def three_runs(script, cache, header, old: str, new: str):
    first = run_script(script, cache)
    second = run_script(script, cache, "forbid")
    edit(header, old, new)
    third = run_script(script, cache)
    assert (first["loaded"], second["loaded"], third["loaded"]) == (False, True, False)
    assert (first["compiled"], second["compiled"], third["compiled"]) == (1, 0, 1)
    assert second["values"] == first["values"]
    return first, second, third


def test_dynamic_bindings(tmp_path):
    script = dynamic_scenario(tmp_path)
    first, _second, third = three_runs(
        script, tmp_path / "cache", tmp_path / "demo.cuh", "sqrt(double(a))", "(double(a))"
    )
    [[three, root]] = first["values"]
    assert three == 3.0 and math.isclose(root, math.sqrt(3.0), rel_tol=1e-3)
    assert third["values"] == [[3.0, 3.0]]  # hsqrt now returns its argument


def test_imported_header_module(tmp_path):
    script = imported_scenario(tmp_path)
    scale = script.parent / "include" / "scale.h"
    first, _second, third = three_runs(script, tmp_path / "cache", scale, "2.0f", "3.0f")
    assert first["values"] == [[10.0]]  # SCALE * dot((1, 2), (1, 2))
    assert third["values"] == [[15.0]]


def test_static_module_and_its_module_callbacks(tmp_path):
    script = static_scenario(tmp_path)
    cache = tmp_path / "cache"
    first = run_script(script, cache)
    second = run_script(script, cache, "forbid")
    assert (first["loaded"], second["loaded"]) == (False, True)
    assert first["values"] == second["values"] == [[3.0]]
    for run in (first, second):
        assert (run["setups"], run["teardowns"]) == (1, 1)


def test_a_cuda_cpp_link_file(tmp_path):
    script = linked_scenario(tmp_path)
    first, _second, third = three_runs(
        script, tmp_path / "cache", tmp_path / "ext_scale.h", "2.0", "3.0"
    )
    assert first["values"] == [[3.0]]
    assert third["values"] == [[4.5]]

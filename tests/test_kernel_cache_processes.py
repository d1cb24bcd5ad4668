"""cache=True kernels that call bindings, across fresh processes, without a GPU.

The scenarios of tests/data/kernel_cache/ run in fresh interpreters that compile, link (sm_90,
nvJitLink) and save the kernel through the dispatcher's cache, or load it with NVVM, NVRTC and
the linker made to fail (tests/kernel_cache_support.py). They prove that the second process
loads the very cubin the first linked, that editing the header (or a header it includes) makes
it compile again, and that the loaded kernel carries the live library's Module Callbacks.
test_kernel_cache_gpu.py runs the same scenarios on a GPU.
"""

from __future__ import annotations

import re

from kernel_cache_support import (
    dynamic_scenario,
    edit,
    imported_scenario,
    run_script,
    static_scenario,
)


def run(script, cache):
    return run_script(script, cache, device="cpu")


def two_runs(script, cache):
    """The first process compiles and saves the kernel; the second loads the very cubin."""
    first, second = run(script, cache), run(script, cache)
    assert (first["loaded"], second["loaded"]) == (False, True)
    assert second["cubin"] == first["cubin"]
    return first, second


def test_dynamic_bindings_load_the_cached_cubin_and_a_header_edit_recompiles(tmp_path):
    script = dynamic_scenario(tmp_path)
    cache = tmp_path / "cache"
    first, second = two_runs(script, cache)
    # The live shim writer of the second process (its name is its id, so it differs).
    assert [name.startswith("numbast_shims_") for name in second["links"]] == [True]

    # A change inside a definition leaves every declaration and shim as it was: only the
    # header's content tells that the cubin is stale.
    edit(tmp_path / "demo.cuh", "sqrt(double(a))", "sqrt(double(a)) + 1.0")
    third = run(script, cache)
    assert third["loaded"] is False
    assert third["cubin"] != first["cubin"]
    assert run(script, cache)["loaded"] is True  # the entry was overwritten


def test_an_imported_header_module_reuses_kernels_until_an_included_header_changes(tmp_path):
    script = imported_scenario(tmp_path)
    cache = tmp_path / "cache"
    first, second = two_runs(script, cache)
    # The unit of the shims it calls (numbast_import.shim_units), under its digest.
    assert [re.sub("_[0-9a-f]{12}[.]", ".", link) for link in second["links"]] == [
        "cuda_headers.vec_shims.ltoir"
    ]

    edit(script.parent / "include" / "scale.h", "2.0f", "3.0f")
    third = run(script, cache)
    assert third["loaded"] is False
    assert third["cubin"] != first["cubin"]


def test_a_static_module_s_cached_kernel_keeps_its_module_callbacks(tmp_path):
    script = static_scenario(tmp_path)
    cache = tmp_path / "cache"
    first, second = two_runs(script, cache)
    # numba-cuda lists a link object's callbacks once per bound call; they run once a module.
    assert second["setup"] == first["setup"] >= 1
    assert second["teardown"] == first["teardown"] >= 1
    for run_ in (first, second):
        assert (run_["setups"], run_["teardowns"]) == (1, 1)

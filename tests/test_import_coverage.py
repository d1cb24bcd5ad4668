"""``numbast-cache coverage NAME``: per declaration kind, found / bound / skipped / excluded /
host-only, and the reason for each declaration not bound; built first when no entry exists."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from import_support import cli, run_python

PROJECT = Path(__file__).parent / "data" / "import" / "coverage"


def test_coverage_counts_every_outcome_with_its_reason(tmp_path):
    project, cache = tmp_path / "proj", tmp_path / "cache"
    shutil.copytree(PROJECT, project)
    result = cli(project, cache, "coverage", "cov", "--json")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["name"] == "cuda_headers.cov" and data["arch"] == "sm_90"
    functions, operators = data["kinds"]["function"], data["kinds"]["operator"]
    assert (functions["found"], functions["bound"]) == (4, 1)
    assert (functions["skipped"], functions["excluded"], functions["host_only"]) == (1, 1, 1)
    assert (operators["found"], operators["excluded"]) == (1, 1)  # Python has no ++
    reasons = {item["what"]: item for item in functions["not_bound"] + operators["not_bound"]}
    assert "function pointer" in reasons["apply(int (*)(int), int)"]["reason"]
    assert reasons["helper_excluded(int)"]["reason"] == "Exclude: Function"
    assert reasons["host_only(int)"]["outcome"] == "host_only"
    assert reasons["operator++(Vec2 &)"]["outcome"] == "excluded"
    assert "Python has no increment operator" in reasons["operator++(Vec2 &)"]["reason"]
    assert reasons["operator++(Vec2 &)"]["where"] == "coverage.cuh:10"
    assert data["kinds"]["struct"]["bound"] == 1
    # dot bound; apply not; excluded (operator++ too) and host-only ones are not counted.
    assert data["device_functions"] == {"found": 2, "bound": 1, "percent": 50.0}

    # Templates: bound only where a representative instance compiled, which is reported.
    function_templates = data["kinds"]["function template"]
    assert (function_templates["found"], function_templates["bound"]) == (3, 2)
    assert function_templates["instances"] == {"twice": "::twice<int>", "halve": "::halve<float>"}
    (never,) = function_templates["not_bound"]
    assert never["what"] == "never" and never["outcome"] == "skipped"
    assert "never instantiable" in never["reason"] and "::never<int>" in never["reason"]
    class_templates = data["kinds"]["class template"]
    assert class_templates["instances"] == {"Buf": "::Buf<int, 1>"}
    (broken,) = class_templates["not_bound"]
    assert broken["what"] == "Broken" and "never instantiable" in broken["reason"]
    # The headline counts every kind a kernel can call: dot; apply skipped; twice and halve;
    # never; Buf; Broken; Vec2's members.
    methods = data["kinds"].get("method", {"found": 0, "bound": 0})
    assert data["device_callables"]["found"] == 2 + 3 + 2 + methods["found"]
    assert data["device_callables"]["bound"] == 1 + 2 + 1 + methods["bound"]

    text = cli(project, cache, "coverage", "cuda_headers.cov")  # the entry exists now
    assert text.returncode == 0, text.stderr
    assert "generating" not in text.stderr
    assert "free functions and operators: 1 of 2 bound (50.0%" in text.stdout
    assert "function template halve: bound (an instance compiles: ::halve<float>)" in text.stdout
    assert "apply(int (*)(int), int) (coverage.cuh:11):" in text.stdout

    # What coverage calls bound, a kernel can call: it links to an sm_90 cubin.
    linked = run_python(LINK_TEMPLATES, project, cache)
    assert linked.returncode == 0, linked.stderr
    assert "cubin bytes" in linked.stdout


LINK_TEMPLATES = """
import numpy as np
from numba.cuda import types
from support import link_kernel_to_cubin
import cuda_headers.cov as cov

Buf = cov.Buf[types.float32, 2]

def kernel(out):
    out[0] = cov.halve(np.float32(3.0)) + np.float32(cov.twice(np.int32(2)))
    out[1] = Buf(np.float32(1.5)).data[1]

print("cubin bytes", len(link_kernel_to_cubin(kernel, (types.float32[:],), arch="sm_90")))
"""


def test_coverage_of_an_unmapped_name_fails_with_status_1(tmp_path):
    project = tmp_path / "proj"
    shutil.copytree(PROJECT, project)
    result = cli(project, tmp_path / "cache", "coverage", "nothing_mapped")
    assert result.returncode == 1 and "nothing_mapped" in result.stderr

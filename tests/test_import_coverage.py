"""``numbast-cache coverage NAME``: per declaration kind, found / bound / skipped / excluded /
host-only, and the reason for each declaration not bound; built first when no entry exists."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from import_support import cli

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
    assert (operators["found"], operators["skipped"]) == (1, 1)
    reasons = {item["what"]: item for item in functions["not_bound"] + operators["not_bound"]}
    assert "function pointer" in reasons["apply(int (*)(int), int)"]["reason"]
    assert reasons["helper_excluded(int)"]["reason"] == "Exclude: Function"
    assert reasons["host_only(int)"]["outcome"] == "host_only"
    assert "no Python counterpart" in reasons["operator++(Vec2 &)"]["reason"]
    assert reasons["operator++(Vec2 &)"]["where"] == "coverage.cuh:10"
    assert data["kinds"]["struct"]["bound"] == 1
    # dot bound; apply and operator++ not: excluded and host-only ones are not counted.
    assert data["device_functions"] == {"found": 3, "bound": 1, "percent": 33.3}

    text = cli(project, cache, "coverage", "cuda_headers.cov")  # the entry exists now
    assert text.returncode == 0, text.stderr
    assert "generating" not in text.stderr
    assert "1 of 3 bound (33.3%" in text.stdout
    assert "apply(int (*)(int), int) (coverage.cuh:11):" in text.stdout


def test_coverage_of_an_unmapped_name_fails_with_status_1(tmp_path):
    project = tmp_path / "proj"
    shutil.copytree(PROJECT, project)
    result = cli(project, tmp_path / "cache", "coverage", "nothing_mapped")
    assert result.returncode == 1 and "nothing_mapped" in result.stderr

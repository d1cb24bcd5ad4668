"""Parsing and planning are linear in declarations (issue 23's 5 MB header took 70-80 s).

Timing would make a flaky test on a shared machine, so the work is counted instead: the Python
function calls (and calls into libclang through ctypes) made to parse, then to plan and render,
a generated header (benchmarks/generated_header.py) of N, 2N and 3N blocks. Linear work grows by
the same amount from N to 2N as from 2N to 3N, whatever its fixed part; anything quadratic
(every template re-indexing every class template, as planning once did) grows faster.
benchmarks/parse.py --generated measures the time and memory.
"""

from __future__ import annotations

import importlib.util
import sys
import warnings
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).parent.parent / "benchmarks"
SIZES = (30, 60, 90)


def _generated_header_module():
    spec = importlib.util.spec_from_file_location(
        "generated_header", BENCHMARKS / "generated_header.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _calls(work) -> int:
    """Calls made while ``work()`` runs (Python functions and C functions alike)."""
    count = 0

    def profile(_frame, event, _arg):
        nonlocal count
        if event in ("call", "c_call"):
            count += 1

    sys.setprofile(profile)
    try:
        work()
    finally:
        sys.setprofile(None)
    return count


@pytest.fixture(scope="module")
def headers(tmp_path_factory):
    directory = tmp_path_factory.mktemp("generated")
    generated = _generated_header_module()
    return {n: str(generated.write_header(directory / f"generated_{n}.cuh", n)) for n in SIZES}


@pytest.fixture(scope="module")
def parsed(headers):
    from ast_canopy import parse_declarations_from_source

    first = headers[SIZES[0]]
    parse_declarations_from_source(first, [first], "sm_90")  # imports, the prelude
    found, calls = {}, {}
    for n, header in headers.items():

        def parse(header=header, n=n):
            found[n] = parse_declarations_from_source(header, [header], "sm_90")

        calls[n] = _calls(parse)
    return found, calls


def assert_linear(calls: dict[int, int]) -> None:
    small, middle, large = (calls[n] for n in SIZES)
    first, second = middle - small, large - middle
    assert first > 0 and abs(second - first) < 0.05 * first, calls


def test_parse_work_is_linear_in_declarations(parsed):
    found, calls = parsed
    for n in SIZES:
        decls = found[n]
        assert len(decls.functions) == 4 * n and len(decls.class_templates) == n
        assert len(decls.macro_constants) == n and len(decls.structs) == n
    assert_linear(calls)


def test_planning_work_is_linear_in_declarations(parsed, headers, monkeypatch):
    from static_support import static_config

    import ast_canopy
    from numbast.static import renderer

    found, _ = parsed
    calls = {}
    for n, header in headers.items():
        monkeypatch.setattr(
            ast_canopy, "parse_declarations_from_source", lambda *a, n=n, **k: found[n]
        )
        config = static_config(header)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            calls[n] = _calls(lambda config=config: renderer.render_bindings(config))
    assert_linear(calls)

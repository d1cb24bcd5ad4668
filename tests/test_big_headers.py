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


def _rendered(found, headers, n, monkeypatch):
    from static_support import static_config

    import ast_canopy
    from numbast.static import renderer

    monkeypatch.setattr(ast_canopy, "parse_declarations_from_source", lambda *a, **k: found[n])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return renderer.render_bindings(
            static_config(headers[n]), embed_runtime=False, with_code=True
        )


def _instructions(code):
    import dis

    return [(i.opname, i.argval if i.opname != "LOAD_CONST" else None, i.positions.lineno)
            for i in dis.get_instructions(code)]  # fmt: skip


def test_the_module_code_is_made_without_compiling_its_rows(parsed, headers, monkeypatch):
    """compile() of a bindings module builds an AST of ~65 bytes per byte of its rows (2.2 GB
    for a 6.5 MB header, issue 23 point 12): the code is compiled from a skeleton whose size
    does not grow with the rows, and is the code compile() makes of the whole source."""
    import marshal

    from numbast.static.module_code import compile_module

    found, _ = parsed
    small, large = (_rendered(found, headers, n, monkeypatch) for n in (SIZES[0], SIZES[-1]))
    grown = len(large.source) - len(small.source)
    # One newline per row stays (tracebacks keep their lines), nothing of the rows.
    assert len(large.code.skeleton) - len(small.code.skeleton) < grown / 20
    assert large.code.skeleton.count("\n") == large.source.count("\n")
    whole = compile(large.source, "bindings.py", "exec")
    made = compile_module(large.source, large.code, "bindings.py")
    assert _instructions(made) == _instructions(whole)  # line numbers too
    assert sorted(map(repr, made.co_consts)) == sorted(map(repr, whole.co_consts))
    # Equal constants shared, as compile() shares them: the .pyc keeps its size.
    assert abs(len(marshal.dumps(made)) - len(marshal.dumps(whole))) < 0.001 * len(
        marshal.dumps(whole)
    )


# A cold import recording every source compile() is given (the module's code is built here).
RECORD_COMPILES = """
import builtins, json
sizes = []
original = builtins.compile
def recorded(source, filename, mode, *args, **kwargs):
    if mode == "exec" and isinstance(source, str):
        sizes.append(len(source))
    return original(source, filename, mode, *args, **kwargs)
builtins.compile = recorded
import cuda_headers.big as big
builtins.compile = original
print("RESULT " + json.dumps({"sizes": sizes, "file": big.__file__, "S3": big.S3.__name__}))
"""


def test_a_cold_import_never_compiles_the_rows(tmp_path):
    """The import system's build makes the module's code from its skeleton (issue 23 point
    12): no source compile() is given holds the rows, and the entry imports."""
    import json

    from import_support import run_python

    _generated_header_module().write_header(tmp_path / "big.cuh", 6)
    (tmp_path / "pyproject.toml").write_text(
        '[tool.numbast-import]\narch = "sm_90"\n[tool.numbast-import.headers]\nbig = "big.cuh"\n'
    )
    done = run_python(RECORD_COMPILES, tmp_path, tmp_path / "cache")
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout.split("RESULT ", 1)[1])
    bindings = Path(found["file"]).read_text()
    assert found["S3"] == "S3" and "g3::S3" in bindings
    assert found["sizes"] and max(found["sizes"]) < len(bindings) / 3, found["sizes"]

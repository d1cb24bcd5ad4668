"""A header's bound functions cost the cyclic GC one tracked object each (the stub), so that
the full collections Numba's compiles run do not grow with the header (issue 22: a kernel
using one function of a 3000-function header compiled 0.03-0.04 s slower than of a 10-function
one, for ~6 tracked objects per function: the stub's closure cell and tuple, its linecache
entry, partial and arguments)."""

from __future__ import annotations

import gc
import inspect

from static_support import generate


def header(directory, name: str, count: int) -> str:
    lines = ["#pragma once"] + [
        f"__device__ inline float {name}{i}(float x) {{ return x * {i}.0f; }}" for i in range(count)
    ]
    (directory / f"{name}.cuh").write_text("\n".join(lines) + "\n")
    return str(directory / f"{name}.cuh")


def tracked_by_import(directory, name: str, count: int) -> tuple[int, object]:
    entry = header(directory, name, count)
    gc.collect()
    before = len(gc.get_objects())
    module = generate(entry, directory)
    gc.collect()
    return len(gc.get_objects()) - before, module


def test_a_bound_function_is_one_object_for_the_cyclic_gc(tmp_path):
    tracked_by_import(tmp_path, "warm", 5)  # the runtime copy, loaded once per process
    few, _ = tracked_by_import(tmp_path, "few", 20)
    many, module = tracked_by_import(tmp_path, "many", 220)
    per_function = (many - few) / 200
    assert per_function < 1.5, f"{per_function:.2f} tracked objects per bound function"
    # What the stubs' objects did still works: the source and the host-side error.
    assert "float many7(float x)  // many.cuh:9" in inspect.getsource(module.many7)
    assert "float many200(float x)" in inspect.getsource(module.many200)
    assert inspect.getsourcelines(module.many200)[1] > inspect.getsourcelines(module.many7)[1]
    try:
        module.many3(1.0)
    except TypeError as exc:
        assert "many3 is a CUDA device function" in str(exc)
    else:
        raise AssertionError("a stub called on the host must raise")

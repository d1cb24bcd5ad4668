"""A standalone module from ``python -m numbast`` has its shims compiled in units beside it
(``<stem>_shims/``), and a kernel links the units of the shims it calls, not the header's every
shim (issue 22). CPU: kernels compiled and linked for sm_90; GPU: their numbers."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from static_support import import_path, static_config

FUNCTIONS = 60
KERNELS = """
import json, sys
sys.path[:0] = [{out!r}, {tests!r}]
from numba import cuda
from numba.cuda import types
import {module} as lib
from support import _as_ltoir_bytes, link_ltoirs_to_cubin

def one(out):
    out[0] = lib.f1(types.float32(2.0))

def two(out):
    out[0] = lib.f1(types.float32(2.0)) + lib.{second}(types.float32(2.0))

def linked(kernel):
    codes, _ = cuda.compile_all(kernel, (types.float32[:],), device=False, abi="numba",
                                cc=(9, 0), output="ltoir")
    objects = codes[1:]
    kinds = sorted(type(code).__name__ for code in objects)
    data = [_as_ltoir_bytes(code) for code in codes]
    assert link_ltoirs_to_cubin(data)
    return {{"kinds": kinds, "sizes": sorted(len(part) for part in data[1:]),
             "ltoir": [part.hex() for part in data[1:]]}}

print("RESULT " + json.dumps({{"one": linked(one), "two": linked(two)}}))
"""


def write_header(directory: Path, count: int, extra: str = "") -> Path:
    lines = ["#pragma once"] + [
        f"__device__ inline float f{i}(float x) {{ return x * {i}.0f + 1.0f; }}"
        for i in range(count)
    ]
    path = directory / "lib.cuh"
    path.write_text("\n".join(lines) + "\n" + extra)
    return path


def generate(directory: Path, count: int, extra: str = "", arch: str = "sm_90") -> Path:
    from numbast.static.cli import generate as generate_module

    header = write_header(directory, count, extra)
    config = static_config(str(header), GPU_Arch=[arch])
    return generate_module(config, str(directory / "out"), run_ruff_format=False)


def run_kernels(module: Path, second: str = "f50") -> dict:
    """Kernels calling f1, and f1 and ``second``, compiled and linked in a fresh process."""
    tests = str(Path(__file__).parent)
    code = KERNELS.format(out=str(module.parent), tests=tests, module=module.stem, second=second)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-3000:]
    line = next(ln for ln in done.stdout.splitlines() if ln.startswith("RESULT "))
    return json.loads(line.removeprefix("RESULT "))


@pytest.fixture(scope="module")
def generated(tmp_path_factory) -> Path:
    return generate(tmp_path_factory.mktemp("unit_files"), FUNCTIONS)


def test_the_generator_writes_the_shims_in_units_beside_the_module(generated):
    directory = generated.with_name("lib_shims")
    index = json.loads((directory / "units.json").read_text())
    units = index["units"]
    assert len(units) == 4 and sum(len(names) for _u, names in units) == FUNCTIONS
    assert index["archs"] == {"sm_90": [unit for unit, _names in units]}
    for unit, _names in units:
        assert (directory / "sm_90" / f"{unit}.ltoir").stat().st_size > 0
    assert "runtime.unit_files" in generated.read_text()  # the loader, in the runtime copy


def test_a_kernel_links_the_units_of_the_shims_it_calls(generated):
    directory = generated.with_name("lib_shims")
    index = json.loads((directory / "units.json").read_text())
    files = {
        unit: (directory / "sm_90" / f"{unit}.ltoir").read_bytes() for unit, _n in index["units"]
    }
    unit_of = {name: unit for unit, names in index["units"] for name in names}
    found = run_kernels(generated)
    # f1 is in the first unit, f50 in the fourth: the kernels link those files, nothing more
    # (before: the header's preamble and every shim used so far, compiled by NVRTC per kernel).
    assert found["one"]["kinds"] == ["_LazyUnit"]
    assert found["one"]["ltoir"] == [files[unit_of["nbi_shim__Z2f1f"]].hex()]
    assert sorted(found["two"]["ltoir"]) == sorted(
        files[unit_of[name]].hex() for name in ("nbi_shim__Z2f1f", "nbi_shim__Z3f50f")
    )
    assert sum(found["one"]["sizes"]) < sum(len(data) for data in files.values()) / 3


def test_few_shims_link_from_source_and_a_stale_directory_goes(tmp_path):
    module = generate(tmp_path, FUNCTIONS)
    assert module.with_name("lib_shims").is_dir()
    module = generate(tmp_path, 3)  # the same module, regenerated with three functions
    assert not module.with_name("lib_shims").exists()
    assert "runtime.unit_files" not in module.read_text()  # the copy stays small
    assert run_kernels(module, "f2")["one"]["kinds"] == ["ObjectCode"]  # NVRTC's, per kernel


def test_a_module_moved_without_its_units_links_from_source(generated, tmp_path):
    moved = tmp_path / "lib.py"
    moved.write_text(generated.read_text())
    found = run_kernels(moved)
    assert found["two"]["kinds"] == ["ObjectCode"]  # NVRTC's, per kernel


def test_a_header_defining_a_symbol_keeps_its_shims_together(tmp_path):
    module = generate(tmp_path, 20, "__device__ int counter;\n")
    assert not module.with_name("lib_shims").exists()


@pytest.mark.gpu
def test_unit_files_on_the_gpu(tmp_path):
    from numba import cuda

    major, minor = cuda.get_current_device().compute_capability
    module = generate(tmp_path, FUNCTIONS, arch=f"sm_{major}{minor}")
    lib = import_path(module)
    import numpy as np

    @cuda.jit
    def kernel(out):
        out[0] = lib.f1(np.float32(2.0)) + lib.f50(np.float32(2.0))
        out[1] = lib.f30(np.float32(2.0))

    out = cuda.device_array(2, dtype=np.float32)
    kernel[1, 1](out)
    assert out.copy_to_host().tolist() == [(2 * 1 + 1) + (2 * 50 + 1), 2 * 30 + 1]
    linked = {type(o).__name__ for o in lib._numbast_shim_library.link_objects()}
    assert "_LazyUnit" in linked

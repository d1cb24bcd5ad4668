"""A header's shims compiled in units that kernels link by name (numbast_import.shim_units),
bound functions registered when a kernel first looks them up, and an edited header compiling
only the units whose shims changed (issue 22). CPU: kernels compiled and linked for sm_90;
GPU: their numbers."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from import_support import entries, run_python

FUNCTIONS = 60


def function(i: int, body: str | None = None) -> str:
    return f"__device__ inline float f{i}(float x) {{ return {body or f'x * {i}.0f + 1.0f'}; }}"


def write_header(
    project: Path, bodies: dict[int, str] | None = None, extra: str = "", before: str = ""
) -> None:
    bodies = bodies or {}
    lines = ["#pragma once", before, *(function(i, bodies.get(i)) for i in range(FUNCTIONS))]
    (project / "lib.cuh").write_text("\n".join(lines) + "\n" + extra)


PYPROJECT = """\
[tool.numbast-import]
arch = "sm_90"
[tool.numbast-import.headers]
lib = "lib.cuh"
"""

# Every NVRTC compile of the process, by target (compiles of this header's shims only here).
COUNT_COMPILES = """
import json, sys
from numbast.core import nvrtc
compiles = []
original = nvrtc.compile_unit
def counted(unit, name, options, target, *args, **kwargs):
    compiles.append(target)
    return original(unit, name, options, target, *args, **kwargs)
nvrtc.compile_unit = counted
import cuda_headers.lib as lib
print("COMPILES " + json.dumps(compiles))
print("SCHEMA " + json.dumps("jsonschema" in sys.modules))
# What a cached kernel (cache=True) calling f30 is checked against.
print("TOKEN " + json.dumps(lib._numbast_shim_library.cache_token(["nbi_shim__Z3f30f"])))
"""

KERNELS = """
import json
from numba import cuda
from numba.cuda import types
import cuda_headers.lib as lib
from numbast.runtime.deferred import waits_for_lookup
from support import link_ltoirs_to_cubin

def one(out):
    out[0] = lib.f1(types.float32(2.0))

def two(out):
    out[0] = lib.f1(types.float32(2.0)) + lib.f50(types.float32(2.0))

def linked(kernel):
    codes, _ = cuda.compile_all(kernel, (types.float32[:],), device=False, abi="numba",
                                cc=(9, 0), output="ltoir")
    data = [bytes(codes[0])] + [bytes(code.data) for code in codes[1:]]
    assert link_ltoirs_to_cubin(data)
    return [len(part) for part in data[1:]]

import sys
print("RESULT " + json.dumps({
    "one": linked(one),
    "two": linked(two),
    "registered": [n for n in ("f1", "f2", "f50") if not waits_for_lookup(getattr(lib, n))],
    # What compiles units: reading one for a kernel's link needs none of it.
    "compilers": [n for n in ("numbast_import.shim_units", "numbast_import.shim_unit_plan",
                              "numbast.core.ptx_symbols") if n in sys.modules],
}))
"""


def result(completed, prefix: str = "RESULT "):
    assert completed.returncode == 0, completed.stderr
    line = next(ln for ln in completed.stdout.splitlines() if ln.startswith(prefix))
    return json.loads(line.removeprefix(prefix))


def manifest(cache: Path) -> dict:
    """The manifest of the entry built last (an edited header's entry sits beside the old)."""
    found = [json.loads((entry / "manifest.json").read_text()) for entry in entries(cache)]
    return max(found, key=lambda m: m["created"])


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    """A project mapping a header of 60 inline functions, its entry built."""
    project = tmp_path_factory.mktemp("units")
    (project / "pyproject.toml").write_text(PYPROJECT)
    write_header(project)
    cache = project / "cache"
    compiles = result(run_python(COUNT_COMPILES, project, cache), "COMPILES ")
    return project, cache, compiles


def test_a_kernel_links_the_units_of_the_shims_it_calls(project):
    project, cache, compiles = project
    units = manifest(cache)["shim_units"]
    assert len(units) >= 3 and sum(len(names) for _d, names in units) == FUNCTIONS
    (entry,) = entries(cache)
    assert not (entry / "shim.ltoir").exists()  # no LTO-IR of every shim
    # The header alone once (does it define symbols?), then each unit once.
    assert compiles.count("ltoir") == len(units) and compiles.count("ptx") == 1, compiles
    if len(units) >= 4:  # NVRTC precompiled the preamble for them
        assert list((cache / "shim-preludes").glob("*/*/prelude.pch"))
    found = result(run_python(KERNELS, project, cache))
    assert len(found["one"]) == 1 and len(found["two"]) == 2  # f1 and f50: two units
    unit_sizes = {
        (cache / "shims" / d[:2] / d / "unit.ltoir").stat().st_size for d, _names in units
    }
    assert set(found["two"]) <= unit_sizes
    # Registered with Numba when a kernel first looked them up: f2 never was.
    assert found["registered"] == ["f1", "f50"]
    assert found["compilers"] == []


def test_an_edited_body_compiles_one_unit_and_an_appended_function_one(tmp_path):
    copy = tmp_path  # units are of the header where it is (its path is in their shims' keys)
    (copy / "pyproject.toml").write_text(PYPROJECT)
    write_header(copy)
    cache = copy / "cache"
    first = run_python(COUNT_COMPILES, copy, cache)
    before = {d: names for d, names in manifest(cache)["shim_units"]}
    assert "nbi_shim__Z3f30f" not in next(iter(before.values()))  # not in the first unit

    write_header(copy, {30: "x * 99.0f"})
    edited = run_python(COUNT_COMPILES, copy, cache)
    compiles = result(edited, "COMPILES ")
    assert compiles == ["ltoir"], compiles  # the unit holding f30's shim; no other compile
    # The mapping satisfied the config schema in the first build: not checked again.
    assert result(edited, "SCHEMA ") is False
    # A kernel cached calling f30 is not reused: its unit changed.
    tokens = result(first, "TOKEN "), result(edited, "TOKEN ")
    assert None not in tokens and tokens[0] != tokens[1]
    after = {d: names for d, names in manifest(cache)["shim_units"]}
    new = [names for d, names in after.items() if d not in before]
    assert len(new) == 1 and "nbi_shim__Z3f30f" in new[0]
    assert [n for d, n in after.items() if d in before] == [
        n for d, n in before.items() if "nbi_shim__Z3f30f" not in n
    ]

    write_header(copy, {30: "x * 99.0f"}, extra=function(FUNCTIONS) + "\n")
    compiles = result(run_python(COUNT_COMPILES, copy, cache), "COMPILES ")
    assert compiles == ["ltoir"], compiles


def test_the_precompiled_preamble_is_of_the_header_as_edited(tmp_path):
    # NVRTC uses a precompiled header given with --use-pch even when the header changed since
    # it was made: a preamble made before an edit must not serve the edited header's units.
    (tmp_path / "pyproject.toml").write_text(PYPROJECT)
    write_header(tmp_path)
    cache = tmp_path / "cache"
    result(run_python(COUNT_COMPILES, tmp_path, cache), "COMPILES ")
    preludes = cache / "shim-preludes"
    first = set(preludes.glob("*/*/prelude.pch"))
    assert len(first) == 1
    write_header(tmp_path, {i: f"x * {i}.5f" for i in range(FUNCTIONS)})  # every unit changes
    compiles = result(run_python(COUNT_COMPILES, tmp_path, cache), "COMPILES ")
    assert compiles.count("ltoir") == len(manifest(cache)["shim_units"]) >= 4, compiles
    made = set(preludes.glob("*/*/prelude.pch")) - first
    assert len(made) == 1, made


def test_a_unit_missing_from_the_cache_is_compiled_again(project, tmp_path):
    source, _cache, _compiles = project
    cache = tmp_path / "cache"
    shutil.copytree(source / "cache", cache)
    units = manifest(cache)["shim_units"]
    for digest, _names in units:
        shutil.rmtree(cache / "shims" / digest[:2] / digest)
    completed = run_python(KERNELS, source, cache)
    assert result(completed)["registered"] == ["f1", "f50"]
    assert completed.stderr.count("is missing from the cache; compiling it again") == 2
    left = [d for d, _n in units if not (cache / "shims" / d[:2] / d / "unit.ltoir").exists()]
    assert len(left) == len(units) - 2  # the two units the kernels linked are back


# Holds the parse until the rest of the build's imports and NVRTC are in: only work running
# beside the parse brings them (at most 30 s: then the parse goes on without).
BESIDE_THE_PARSE = """
import json, sys, time
import numbast.static.renderer
planned_first = "numbast.static.module_plan" in sys.modules
import ast_canopy.parser as parser
from numbast.core import nvrtc
from numbast_import.build_front import IMPORTED_BESIDE_THE_PARSE
original = parser.parse_translation_unit
ready = []
def parse(*args, **kwargs):
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and not ready:
        if nvrtc.nvrtc_version.cache_info().currsize:  # loaded last
            ready.append(all(name in sys.modules for name in IMPORTED_BESIDE_THE_PARSE))
        time.sleep(0.005)
    return original(*args, **kwargs)
parser.parse_translation_unit = parse
import cuda_headers.lib as lib
# Modules only an error or another kind of header needs: the build imports none.
unneeded = [m for m in ("difflib", "fractions", "decimal") if m in sys.modules]
found = {"planned first": planned_first, "ready": ready, "unneeded": unneeded}
found["f2"] = lib.f2.__name__
print("RESULT " + json.dumps(found))
"""


def test_the_rest_of_a_build_is_imported_while_clang_parses(project, tmp_path):
    # An edit's rebuild (issue 22's edit loop) on two cores: the planning and writing code, the
    # shim compiler and NVRTC are loaded beside the parse, not after it.
    (tmp_path / "pyproject.toml").write_text(PYPROJECT)
    header = tmp_path / "lib.cuh"
    header.write_text("\n".join(function(i) for i in range(3)) + "\n")
    cache = tmp_path / "cache"
    shutil.copytree(project[1] / "parser", cache / "parser")  # clang's prelude, made once
    assert run_python("import cuda_headers.lib", tmp_path, cache).returncode == 0
    header.write_text(header.read_text() + function(3) + "\n")  # the edit
    found = result(run_python(BESIDE_THE_PARSE, tmp_path, cache))
    assert found == {"planned first": False, "ready": [True], "unneeded": [], "f2": "f2"}


def test_a_header_defining_symbols_keeps_one_unit(tmp_path):
    (tmp_path / "pyproject.toml").write_text(PYPROJECT)
    write_header(tmp_path, extra="__device__ float strong(float x) { return x + 2.0f; }\n")
    cache = tmp_path / "cache"
    code = KERNELS.replace("lib.f50(", "lib.strong(")
    found = result(run_python(code, tmp_path, cache))
    (entry,) = entries(cache)
    assert (entry / "shim.ltoir").is_file() and "shim_units" not in manifest(cache)
    assert len(found["one"]) == 1 and len(found["two"]) == 1  # the one unit
    # The check's compile also precompiled the header for units, which one unit never uses:
    # not kept (about 25 times the header's size, read whole to be stored; issue 23).
    assert not list((cache / "shim-preludes").glob("*/*/prelude.pch"))


# Namespace-scope constants (internal linkage: a copy in each unit), used by f1 and f50, which
# are in different units; a string literal's characters are a copy too.
CONSTANTS = """
namespace k { constexpr float kScale = 3.0f; const float kTable[2] = {5.0f, 7.0f}; }
constexpr const char *kName = "lib";
__device__ inline float named(float x) { return x + kName[0]; }
"""
CONSTANT_BODIES = {1: "x * k::kScale", 50: "x + k::kTable[1]"}


def test_a_header_of_constants_is_in_units_that_link_together(tmp_path):
    """A header whose only definitions are constants (a copy per unit: issue 23 point 12) is cut
    into units like any other, and a kernel calling shims of two units links."""
    (tmp_path / "pyproject.toml").write_text(PYPROJECT)
    write_header(tmp_path, CONSTANT_BODIES, before=CONSTANTS)
    cache = tmp_path / "cache"
    found = result(run_python(KERNELS, tmp_path, cache))
    units = manifest(cache)["shim_units"]
    assert len(units) >= 3 and len(found["two"]) == 2  # f1 and f50: two units, linked
    (check,) = [json.loads(p.read_text()) for p in (cache / "shims").glob("*/*/check.json")]
    assert check == {"defines_symbols": False, "constants": 4}  # kScale, kTable, kName, "lib"


# The header-alone PTX NVRTC (CUDA 13) writes for namespace-scope variables of each kind.
PTX = """
.global .align 4 .u32 top = 3;
.weak .global .align 4 .u32 inl = 5;
.global .align 4 .u32 _ZN40_INTERNAL_00000000_4_x_cu_d04dd306_2389242_GLOBAL__N__00000000_4_x_cu_d04dd306_238924anonE = 6;
.global .align 4 .b8 _ZN40_INTERNAL_00000000_4_x_cu_d04dd306_238921w3arrE[12] = {0, 0, 128, 63};
.global .align 1 .b8 $str[2] = {120};
.global .align 4 .u32 _ZN40_INTERNAL_00000000_4_x_cu_d04dd306_238921q7counterE;
.visible .global .align 4 .u32 _ZN1q3visE;
"""  # noqa: E501


def test_which_symbols_of_a_header_are_copies_of_constants():
    from numbast.core.ptx_symbols import header_symbols
    from numbast_import.header_items import constant_names, header_items

    header = (
        "constexpr int top = 3;\ninline constexpr int inl = 5;\n"
        "namespace { constexpr int anon = 6; }\n"
        'namespace w { constexpr float arr[3] = {1, 2, 3}; const char *const s = "x"; }\n'
        "namespace q { static __device__ int counter; const int *p; __device__ int vis; }\n"
    )
    names = constant_names(header_items(header))
    assert names == {"top", "inl", "anon", "arr", "s"}
    found = header_symbols(PTX, names)
    assert found.own == ("_ZN40_INTERNAL_00000000_4_x_cu_d04dd306_238921q7counterE", "_ZN1q3visE")
    assert found.constants == 4  # top, anon, arr, the string literal
    # The same name declared as state elsewhere is not taken for a constant.
    assert "top" not in constant_names(header_items(header + "namespace z { int top; }\n"))


def test_a_header_with_internal_state_keeps_one_unit(tmp_path):
    """A variable that is not constant would be one copy per unit: its header stays one unit."""
    (tmp_path / "pyproject.toml").write_text(PYPROJECT)
    state = "namespace k { static __device__ float calls; }\n"
    write_header(tmp_path, {1: "x + k::calls"}, before=CONSTANTS + state)
    cache = tmp_path / "cache"
    found = result(run_python(KERNELS, tmp_path, cache))
    assert "shim_units" not in manifest(cache) and len(found["two"]) == 1


def test_units_grow_with_the_constants_each_copies(tmp_path):
    """Each unit copies every constant, used or not: a header of many makes fewer, larger
    units (their count bounded, not their cost each) and no precompiled preamble."""
    (tmp_path / "pyproject.toml").write_text(PYPROJECT)
    many = "".join(f"constexpr int kConstant{i} = {i};\n" for i in range(100))
    write_header(tmp_path, before=many)
    cache = tmp_path / "cache"
    result(run_python(COUNT_COMPILES, tmp_path, cache), "COMPILES ")
    units = manifest(cache)["shim_units"]
    assert 1 <= len(units) <= 2 and sum(len(names) for _d, names in units) == FUNCTIONS
    assert not list((cache / "shim-preludes").glob("*/*/prelude.pch"))


GPU_KERNELS = """
import json
import numpy as np
from numba import cuda
from numba.cuda import types
import cuda_headers.lib as lib

@cuda.jit(cache=True)
def kernel(out):
    out[0] = lib.f1(types.float32(2.0)) + lib.f50(types.float32(2.0))
    out[1] = lib.f30(types.float32(2.0))

out = cuda.device_array(2, dtype=np.float32)
kernel[1, 1](out)
print("RESULT " + json.dumps({"values": out.copy_to_host().tolist(),
                              "loaded": sum(kernel.stats.cache_hits.values())}))
"""


@pytest.mark.gpu
def test_units_on_the_gpu(tmp_path):
    (tmp_path / "pyproject.toml").write_text(PYPROJECT.replace('arch = "sm_90"\n', ""))
    write_header(tmp_path)
    cache = tmp_path / "cache"
    # cache=True needs the kernel's source in a file (numba-cuda has no cache locator for
    # ``python -c``'s ``<string>``); its cache sits beside it.
    script = tmp_path / "units_kernels.py"
    script.write_text(GPU_KERNELS)
    run_file = f"import runpy; runpy.run_path({str(script)!r}, run_name='__main__')"
    first = result(run_python(run_file, tmp_path, cache))
    assert first["values"] == [(2 * 1 + 1) + (2 * 50 + 1), 2 * 30 + 1] and first["loaded"] == 0
    assert result(run_python(run_file, tmp_path, cache))["loaded"] == 1  # cache=True
    write_header(tmp_path, {30: "x * 99.0f"})
    edited = result(run_python(run_file, tmp_path, cache))
    assert edited["values"] == [104.0, 198.0] and edited["loaded"] == 0


PROBED = """
template <class T> __device__ T twice(T x) { return x + x; }
template <class T> __device__ T member(T x) { return x.value; }
"""


def test_template_probes_in_several_units_find_what_one_unit_finds(monkeypatch):
    """Template probes compile in units of bounded size (a big header's one unit of every probe
    is what NVRTC's memory grows faster with); the outcome does not depend on the cut."""
    from numbast.static.template_probes import TemplateProbe
    from numbast_import import template_coverage

    def uses(name: str) -> tuple[tuple[str, str], ...]:
        return tuple((f"{name}<{t}>", f"(void){name}<{t}>({t}());") for t in ("int", "float"))

    probes = [TemplateProbe("function template", n, uses(n)) for n in ("twice", "member")]

    def outcomes(per_unit: int) -> dict:
        monkeypatch.setattr(template_coverage, "PROBES_PER_UNIT", per_unit)
        return template_coverage.compile_template_probes(probes, PROBED, "probes.cu", "sm_90")

    one, several = outcomes(1000), outcomes(1)
    assert one == several
    assert one["function template", "twice"].instance == "twice<int>"
    assert one["function template", "member"].instance is None
    assert "must have class type" in one["function template", "member"].error

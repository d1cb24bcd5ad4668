"""Static bindings of the CUDA toolkit's cuda_fp16.h, cuda_bf16.h and cuda_fp8.h (with their
.hpp in File List): generated once per session, imported where numbast cannot be, kernels
linked to sm_90 cubins, registrations compared with dynamic binding, and on the GPU the
numerics of the dynamic issue (tests/scripts/cuda_fp_headers.py) run through them."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import types as pytypes
from pathlib import Path

import pytest
from static_support import import_path, render
from test_static_module import run_without_numbast

from numbast.static.config import StaticConfig, config_from_mapping

TESTS = Path(__file__).parent

# module name -> (header, the struct bound as a number, as the dynamic tests bind it)
FORMATS = {
    "cuda_fp16": ("cuda_fp16.h", "__half"),
    "cuda_bf16": ("cuda_bf16.h", "__nv_bfloat16"),
    "cuda_fp8": ("cuda_fp8.h", "__nv_fp8_e4m3"),
}


def format_config(name: str) -> StaticConfig:
    from ast_canopy.toolkit import cudart_include_dir

    header, number = FORMATS[name]
    include = cudart_include_dir()
    entry = os.path.join(include, header)
    raw = {
        "Entry Point": entry,
        "File List": [entry, entry.removesuffix(".h") + ".hpp"],
        "GPU Arch": ["sm_90"],
        "Types": {number: "Number"},
        "Data Models": {number: "PrimitiveModel"},
    }
    return config_from_mapping(raw, base_dir=include, source=f"<{name} test config>")


@pytest.fixture(scope="session")
def format_modules(tmp_path_factory) -> Path:
    """The directory holding cuda_fp16.py, cuda_bf16.py and cuda_fp8.py."""
    directory = tmp_path_factory.mktemp("cuda_formats")
    for name in FORMATS:
        render(format_config(name), directory)
    return directory


def test_generated_modules_bind_the_formats(format_modules):
    fp16 = import_path(format_modules / "cuda_fp16.py")
    bf16 = import_path(format_modules / "cuda_bf16.py")
    fp8 = import_path(format_modules / "cuda_fp8.py")
    for module, struct in ((fp16, "__half"), (bf16, "__nv_bfloat16")):
        assert {struct, f"{struct}2", "hsqrt", "hexp", "__hfma", "__hmax"} <= set(module.__all__)
        assert len(module._nb_rows.functions) > 250
    assert {"__nv_fp8_e4m3", "__nv_fp8_e5m2", "__nv_saturation_t"} <= set(fp8.__all__)
    assert fp8.__nv_fp8_interpretation_t.__NV_E5M2 == 1  # enumerators keep their __ names
    assert fp16.__nv_half is fp16.__half  # typedefs of bound structs are aliases


KERNELS = """
import numpy as np
from numba.cuda import types
from support import link_kernel_to_cubin
import cuda_fp16, cuda_bf16, cuda_fp8


def half_kernel(m, make):
    hsqrt, hexp, hlog, hfma, hmax, hmin, habs = (
        m.hsqrt, m.hexp, m.hlog, m.__hfma, m.__hmax, m.__hmin, m.__habs
    )

    def kernel(x, out, flags):
        a = make(x[0])  # constructors from float and double
        b = make(np.float64(x[1]))
        c = a + b * a - b / a  # arithmetic operators
        c += b  # compound assignment
        out[0] = float(c)  # conversion operator
        out[1] = types.float32(-c)  # ... through a Numba cast, and unary minus
        out[2] = float(hsqrt(a) + hexp(b) + hlog(a))  # math functions
        out[3] = float(hfma(a, b, c) + hmax(a, b) - hmin(a, b) + habs(c))
        flags[0] = a < b
        flags[1] = a == b
        flags[2] = a >= b

    return kernel


def fp8_kernel(m):
    e4m3, e5m2 = m.__nv_fp8_e4m3, m.__nv_fp8_e5m2

    def kernel(x, out, flags):
        out[0] = float(e4m3(x[0]))
        out[1] = float(e5m2(np.float64(x[1])))
        flags[0] = False

    return kernel


SIG = (types.float32[:], types.float32[:], types.boolean[:])
for name, kernel in (
    ("fp16", half_kernel(cuda_fp16, cuda_fp16.__half)),
    ("bf16", half_kernel(cuda_bf16, cuda_bf16.__nv_bfloat16)),
    ("fp8", fp8_kernel(cuda_fp8)),
):
    print(name, "linked", len(link_kernel_to_cubin(kernel, SIG)))

# numba-cuda's own float16 / bfloat16 array elements in and out of the bound functions
from scripts.native_arrays import make_native_array_kernel, native_signature

for name, module, struct, element in (
    ("fp16", cuda_fp16, "__half", types.float16),
    ("bf16", cuda_bf16, "__nv_bfloat16", types.bfloat16),
):
    kernel = make_native_array_kernel(module, struct)
    cubin = link_kernel_to_cubin(kernel, native_signature(element))
    print(name, "on native arrays linked", len(cubin))
"""


def test_kernels_using_the_formats_link_without_numbast(format_modules):
    result = run_without_numbast(format_modules, KERNELS)
    assert result.returncode == 0, result.stderr
    for name in ("fp16", "bf16", "fp8"):
        assert f"{name} linked" in result.stdout
    for name in ("fp16", "bf16"):
        assert f"{name} on native arrays linked" in result.stdout


EQUIVALENCE = """
import pathlib, sys, types, warnings
sys.path[:0] = [{tests!r}]
from static_support import dynamic_registrations, import_path, static_registrations
from test_static_cuda_headers import format_config

warnings.simplefilter("ignore")
config = format_config({name!r})
patch = types.SimpleNamespace(setattr=setattr)
static, _ = static_registrations(import_path(pathlib.Path({module!r})), patch)
dynamic, _ = dynamic_registrations(config, patch)
if sorted(static) == sorted(dynamic):
    print("same", len(static))
else:
    print("only static:", sorted(set(static) - set(dynamic))[:3])
    print("only dynamic:", sorted(set(dynamic) - set(static))[:3])
"""


@pytest.mark.parametrize("name", list(FORMATS))
def test_registrations_equal_dynamic_binding_of_the_same_header(format_modules, name):
    # A process per header: dynamic binding of __half changes the process-wide type table.
    module = str(format_modules / f"{name}.py")
    script = EQUIVALENCE.format(tests=str(TESTS), name=name, module=module)
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("same "), result.stdout


@pytest.mark.gpu
def test_format_numerics_through_the_static_modules(format_modules):
    """The checks of the dynamic issue (scripts/cuda_fp_headers.py), on static modules."""
    import ml_dtypes
    import numpy as np
    from scripts import cuda_fp_headers as checks
    from scripts import native_arrays

    def as_lib(module):
        names = {name: getattr(module, name) for name in module.__all__}
        return pytypes.SimpleNamespace(**names, functions=names)

    fp16 = as_lib(import_path(format_modules / "cuda_fp16.py"))
    bf16 = as_lib(import_path(format_modules / "cuda_bf16.py"))
    fp8 = as_lib(import_path(format_modules / "cuda_fp8.py"))
    problems = checks.check_half("fp16", np.float16, checks.make_half_kernel(fp16, "__half"))
    problems += checks.check_half(
        "bf16", ml_dtypes.bfloat16, checks.make_half_kernel(bf16, "__nv_bfloat16")
    )
    problems += checks.check_fp8(checks.make_fp8_kernel(fp8))
    for name, lib, struct, dtype in (
        ("fp16", fp16, "__half", np.float16),
        ("bf16", bf16, "__nv_bfloat16", ml_dtypes.bfloat16),
    ):
        kernel = native_arrays.make_native_array_kernel(lib, struct)
        problems += native_arrays.check_native_arrays(name, dtype, kernel)
    assert not problems, "\n".join(problems)


def test_script_checks_are_importable():
    # The GPU test above reuses the dynamic issue's checks; keep them importable from here.
    source = (TESTS / "scripts" / "cuda_fp_headers.py").read_text()
    for name in ("def make_half_kernel", "def check_half", "def make_fp8_kernel", "def check_fp8"):
        assert name in source, textwrap.shorten(name, 40)

"""numbast.headers.cufp16 / cubf16 / cufp8: the toolkit's float formats through the same cache
and loader as user headers, with kernels linked to sm_90 cubins through the cached LTO-IR."""

from __future__ import annotations

import pytest
from import_support import entries, make_project, run_python

KERNEL = """
import sys
import cuda.core
from numba.cuda.cudadrv import nvrtc
from numba.cuda import types
from support import link_kernel_to_cubin

import numbast.headers.{name} as m

if {warm}:
    def forbidden(*args, **kwargs):
        raise AssertionError("NVRTC was asked to compile on a warm import")

    cuda.core.Program = forbidden
    nvrtc.compile = nvrtc.Program = forbidden

make = getattr(m, "{struct}")
{body}
link_kernel_to_cubin(kernel, (types.float32[:], types.float32[:]), arch="sm_90")
print("linked", "clang.cindex" in sys.modules)
"""
HALF = """
hsqrt, hfma = m.hsqrt, m.__hfma

def kernel(x, out):
    a = make(x[0])
    out[0] = float(hfma(hsqrt(a), a, a + a))
"""
FP8 = """
def kernel(x, out):
    out[0] = float(make(x[0]))
"""
FORMATS = {
    "cufp16": ("__half", HALF),
    "cubf16": ("__nv_bfloat16", HALF),
    "cufp8": ("__nv_fp8_e4m3", FP8),
}


@pytest.mark.parametrize("name", sorted(FORMATS))
def test_builtin_module_generates_then_links_warm(tmp_path, name):
    project, cache = make_project(tmp_path), tmp_path / "cache"
    struct, body = FORMATS[name]
    code = KERNEL.format(name=name, struct=struct, body=body, warm=False)
    cold = run_python(code, project, cache)
    assert cold.returncode == 0, cold.stderr
    assert f"generating numbast.headers.{name}" in cold.stderr
    warm = run_python(KERNEL.format(name=name, struct=struct, body=body, warm=True), project, cache)
    assert warm.returncode == 0, warm.stderr
    assert "linked False" in warm.stdout and "generating" not in warm.stderr
    assert len(entries(cache)) == 1

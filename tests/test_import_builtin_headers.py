"""The built-in modules numbast.headers.cufp16 / cubf16 / cufp8 / cufp6 / cufp4 / cucomplex:
generated through the same cache and loader as user headers, every binding feature they use
linked to sm_90 cubins (tests/scripts/builtin_formats.py), warm imports with no clang and no
NVRTC, types shared between modules whatever the import order, and on the GPU the numbers.
numbast.headers.curand has a file of its own (test_import_curand.py: pytest-xdist's workers
take whole files, so the two builds run side by side)."""

from __future__ import annotations

import json

import pytest
from builtin_header_support import FORBID_NVRTC, SCRIPTS, run_script
from import_support import entries, make_project, run_python

from numbast_import.builtin_headers import BUILTIN_HEADERS

FORMATS = ["cubf16", "cucomplex", "cufp16", "cufp4", "cufp6", "cufp8"]


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """A project whose cache holds the built-in format modules, built by linking every kernel
    of scripts/builtin_formats.py for sm_90."""
    tmp = tmp_path_factory.mktemp("builtin")
    project, cache = make_project(tmp), tmp / "cache"
    result = run_script("builtin_formats.py", "link", project, cache, NUMBAST_IMPORT_ARCH="sm_90")
    assert result.returncode == 0, result.stderr
    return project, cache, result


def test_every_format_kernel_links_to_an_sm90_cubin(built):
    _project, cache, result = built
    linked = [line.split(" ", 1)[1] for line in result.stdout.splitlines() if line[:7] == "linked "]
    assert linked == [
        "cufp16", "cubf16", "cufp8",
        "cufp16 on float16 arrays", "cubf16 on bfloat16 arrays",  # numba-cuda's own types
        "e2m3", "e3m2", "e2m1", "cucomplex float", "cucomplex double",
    ]  # fmt: skip
    for name in FORMATS:
        assert f"generating numbast.headers.{name} " in result.stderr
    assert len(entries(cache)) == len(FORMATS)  # each module once, used ones included


def test_warm_imports_run_no_clang_and_no_nvrtc(built):
    project, cache, _result = built
    code = FORBID_NVRTC + (
        "sys.argv = ['builtin_formats.py', 'link']\n"
        f"import runpy; runpy.run_path({str(SCRIPTS / 'builtin_formats.py')!r}, "
        "run_name='__main__')\n"
    )
    warm = run_python(code, project, cache, NUMBAST_IMPORT_ARCH="sm_90")
    assert warm.returncode == 0, warm.stderr
    assert "clang loaded: False" in warm.stdout and "generating" not in warm.stderr


SHARED_TYPES = """
import importlib, json
for name in {order}:
    importlib.import_module(name)
import numbast.headers.cufp8 as fp8, numbast.headers.cufp16 as fp16, numbast.headers.cubf16 as bf16
from numba.cuda import types
from numba.cuda.descriptor import cuda_target

typing = cuda_target.typing_context
typing.refresh()
cases = typing.resolve_value_type(fp8.__nv_fp8_e4m3).templates[0].cases
arguments = [str(a) for case in cases for a in case.args]
print(json.dumps({{
    "takes_cufp16_half": fp16.__half._numba_type_ in [a for c in cases for a in c.args],
    "takes_float16": types.float16 in [a for c in cases for a in c.args],
    "bf16_half": (bf16.__nv_bfloat16._numba_type_, fp16.__half._numba_type_) in [
        (c.return_type, c.args[0]) for c in
        typing.resolve_value_type(bf16.__nv_bfloat16).templates[0].cases if len(c.args) == 1
    ],
}}))
"""


@pytest.mark.parametrize(
    "order",
    [
        ["numbast.headers.cufp8", "numbast.headers.cufp16"],
        ["numbast.headers.cufp16", "numbast.headers.cubf16", "numbast.headers.cufp8"],
    ],
)
def test_fp8_takes_cufp16_half_whatever_the_import_order(built, order):
    project, cache, _result = built
    result = run_python(
        SHARED_TYPES.format(order=order), project, cache, NUMBAST_IMPORT_ARCH="sm_90"
    )
    assert result.returncode == 0, result.stderr
    found = json.loads(result.stdout.splitlines()[-1])
    assert found == {"takes_cufp16_half": True, "takes_float16": False, "bf16_half": True}


def test_used_modules_are_in_include_order():
    """A module uses only modules listed before it (no cycles), following the #includes."""
    order = list(BUILTIN_HEADERS)
    for name, table in BUILTIN_HEADERS.items():
        for used in table.get("uses", ()):
            assert order.index(used) < order.index(name), (name, used)


@pytest.mark.gpu
def test_format_numbers(tmp_path):
    project, cache = make_project(tmp_path), tmp_path / "cache"
    result = run_script("builtin_formats.py", "run", project, cache)
    assert result.returncode == 0, result.stderr + result.stdout
    for name in ("cufp16", "cubf16", "cufp8", "e2m3", "e3m2", "e2m1", "complex64", "complex128"):
        assert f"ok {name}" in result.stdout
    assert "ok cufp16 on float16 arrays" in result.stdout
    assert "ok cubf16 on bfloat16 arrays" in result.stdout

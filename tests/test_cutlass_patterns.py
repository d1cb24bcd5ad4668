"""Patterns of CUTLASS's numeric types, one each in a header of our own
(tests/data/import/cutlass_patterns): ``v[i] = x`` through a non-const ``operator[]`` returning
a reference (a class template's, through a typedef, and a plain struct's); specializations
written ``W<int64_t>`` (clang reads long, NVRTC long long) and ``W<long>`` found from Numba's
int64; a template indexed with Numba types inside a kernel (``M.Box[types.int64]``) and the
error when it cannot be; a function template whose type parameter sits inside its parameter's
type, whose only instance is the module's own class (CUTLASS's ``abs(complex<T>)``);
declarations the library's own code makes ill-formed (CUTLASS's ``log(complex<T>)`` and
``complex<float>::red``), which coverage excludes with the reason; explicit specializations
whose argument a call cannot deduce, reached through their template (CUTLASS's ``from_real``:
``M.from_value[M.Half](x)``). The module is built once;
the kernels link to an sm_90 cubin here and run on a GPU."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from import_support import cli, run_python

PROJECT = Path(__file__).parent / "data" / "import" / "cutlass_patterns"


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """The project and its cache, the module built once by ``coverage --json``."""
    root = tmp_path_factory.mktemp("cutlass_patterns")
    project, cache = root / "proj", root / "cache"
    shutil.copytree(PROJECT, project)
    result = cli(project, cache, "coverage", "patterns", "--json")
    assert result.returncode == 0, result.stderr
    return project, cache, json.loads(result.stdout)


KERNELS = """
import numpy as np
from numba import cuda
from numba.cuda import types
import cuda_headers.patterns as M

V = M.Vec[types.float32, 4]


def assign_elements(values, out):
    v = V()
    for i in range(4):
        v[i] = values[i] * 2.0  # Vec<float, 4>::operator[] returns `reference` (T &)
    v[0] = v[1] + 1.0
    q = M.Quad()
    q[2] = values[0]  # Quad::operator[] returns float &
    q[3] += 1.5
    local = cuda.local.array(2, types.float32)  # Numba's own v[i] = x, untouched
    local[1] = 0.25
    boxes = cuda.local.array(1, types.float32)
    boxes[0] = local[1]
    out[0] = v.sum()
    out[1] = q.total() + boxes[0]
    out[2] = v[0]
    out[3] = v[3]


def specializations(out):
    out[0] = M.Width[types.int64]().bits()  # Width<int64_t>
    out[1] = M.Width[types.uint64]().bits()  # Width<uint64_t>
    out[2] = M.Width[types.int32]().bits()  # Width<int32_t>
    out[3] = M.Width[types.int16]().bits()  # the primary template
    out[4] = M.Tag[types.int64]().code()  # Tag<long>
    out[5] = M.Tag[types.uint64]().code()  # Tag<unsigned long long>


def kernel_subscripts(values, out):
    box = M.Box[types.int64](values[0])  # the template indexed inside the kernel
    out[0] = box.get() * 3
    pair = M.Pair[M.Half](M.Half(3.0), M.Half(4.0))
    out[1] = np.int64(M.magnitude(pair).v)  # magnitude<Half>: coverage's instance


def explicit_specializations(out):
    out[0] = M.from_value[M.Half](1.5).v  # from_value<Half>: the header's specialization
    out[1] = M.from_value[types.float32](2.5)  # the primary template (not retained)
    out[2] = M.from_value[M.Pair[types.float32]](4.0).im  # from_value<Pair<float>>


F32, I32, I64 = types.float32[:], types.int32[:], types.int64[:]
"""

LINK = (
    KERNELS
    + """
from support import link_kernel_to_cubin
for kernel, signature in ((assign_elements, (F32, F32)), (specializations, (I32,)),
                          (kernel_subscripts, (I64, I64)), (explicit_specializations, (F32,))):
    print(kernel.__name__, len(link_kernel_to_cubin(kernel, signature, arch="sm_90")))
"""
)

RUN = (
    KERNELS
    + """
values = np.float32([1.5, -2.0, 0.25, 3.0])
out = np.zeros(4, np.float32)
cuda.jit(assign_elements)[1, 1](values, out)
v = values * 2
v[0] = v[1] + 1
assert np.allclose(out, [v.sum(), values[0] + 1.5 + 0.25, v[0], v[3]]), out
codes = np.zeros(6, np.int32)
cuda.jit(specializations)[1, 1](codes)
assert codes.tolist() == [64, 65, 32, -1, 8, 9], codes
got = np.zeros(2, np.int64)
cuda.jit(kernel_subscripts)[1, 1](np.int64([7]), got)
assert got.tolist() == [21, 5], got
made = np.zeros(3, np.float32)
cuda.jit(explicit_specializations)[1, 1](made)
assert made.tolist() == [3.0, 2.5, -1.0], made
print("numbers ok")
"""
)

ERRORS = """
from numba import cuda
from numba.cuda import types
import cuda_headers.patterns as M
from support import link_kernel_to_cubin


def not_constant(out, n):
    out[0] = M.Box[n](1).get()


def refused(out):
    out[0] = M.Box[types.int64, 3](1).get()


I64 = types.int64
for kernel, signature in ((not_constant, (I64[:], I64)), (refused, (I64[:],))):
    try:
        link_kernel_to_cubin(kernel, signature, arch="sm_90")
    except Exception as exc:
        print("ERROR", kernel.__name__, " ".join(str(exc).split()))
    else:
        print("LINKED", kernel.__name__)
"""


def test_coverage_finds_the_module_class_instance_and_binds_all(built):
    _project, _cache, data = built
    functions = data["kinds"]["function template"]
    assert functions["instances"] == {
        "cp::magnitude": "::cp::magnitude<::cp::Half>",
        # the template of the header's explicit specializations, declared in a header not
        # retained: a call names its argument (CUTLASS's from_real)
        "cp::from_value": "::cp::from_value<int>",
    }
    callables = data["device_callables"]
    assert callables["bound"] == callables["found"], data


def test_coverage_excludes_what_the_library_itself_makes_ill_formed(built):
    _project, _cache, data = built
    left_out = {
        item["what"]: item for counts in data["kinds"].values() for item in counts["not_bound"]
    }
    assert set(left_out) == {"cp::lg", "cp::Acc<double>::add_word(int)"}, left_out
    lg, add_word = left_out["cp::lg"], left_out["cp::Acc<double>::add_word(int)"]
    assert lg["outcome"] == add_word["outcome"] == "excluded"
    assert lg["reason"].startswith("ill-formed in the library: every instance tried fails")
    assert "::cp::lg<::cp::Half>" in lg["reason"]  # the module's own classes were tried
    assert 'no instance of function template "cp::lg"' in lg["reason"]
    assert add_word["reason"].startswith("ill-formed in the library: its body fails")
    assert "static assertion failed" in add_word["reason"]


def test_the_patterns_link_to_sm90(built):
    project, cache, _data = built
    linked = run_python(LINK, project, cache)
    assert linked.returncode == 0, linked.stderr
    for name in ("assign_elements", "specializations", "kernel_subscripts",
                 "explicit_specializations"):  # fmt: skip
        assert f"{name} " in linked.stdout
    assert "generating" not in linked.stderr  # the module coverage built


def test_a_template_indexed_in_a_kernel_that_cannot_be_says_why(built):
    project, cache, _data = built
    ran = run_python(ERRORS, project, cache)
    assert ran.returncode == 0, ran.stderr
    lines = {}  # kernel name -> its line
    for line in ran.stdout.splitlines():
        if line.startswith(("ERROR ", "LINKED ")):
            lines[line.split()[1]] = line
    assert lines["not_constant"].startswith("ERROR")
    assert "cp::Box[...] in a kernel takes constant template arguments" in lines["not_constant"]
    assert "outside the kernel" in lines["not_constant"]
    assert lines["refused"].startswith("ERROR")
    assert "cp::Box[int64, 3] in a kernel" in lines["refused"]
    assert "takes 1 template argument(s), 2 given" in lines["refused"]
    assert "AssertionError" not in ran.stdout


@pytest.mark.gpu
def test_the_patterns_compute_on_a_gpu(built):
    project, cache, _data = built
    ran = run_python(RUN, project, cache)
    assert ran.returncode == 0, ran.stderr
    assert "numbers ok" in ran.stdout

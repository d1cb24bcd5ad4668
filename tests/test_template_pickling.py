"""Class templates, their instances and function templates pickle by reference to their header
module (numbast.runtime.templates.pickling): another process, with no pyproject.toml, gets its
own module's objects (the same instance, which its Numba knows), with pickle and cloudpickle,
and a kernel that holds them in its globals links there."""

from __future__ import annotations

import shutil
import textwrap
from pathlib import Path

import pytest
from import_support import run_python

pytest.importorskip("cloudpickle")

GEO = Path(__file__).parent / "data" / "templates" / "geo.cuh"
PROJECT = """[project]
name = "template-pickling"
version = "0"

[tool.numbast-import]
arch = "sm_90"

[tool.numbast-import.headers]
geo = "geo.cuh"
"""

PICKLE = """
import pickle, cloudpickle
import numpy as np
from numba import cuda
from numba.cuda import types
import cuda_headers.geo as geo

Arr3f, Pairf, times3 = geo.Arr[types.float32, 3], geo.Pair[types.float32], geo.times[3]
Nested = geo.Pair[Arr3f]  # an instance as another's argument

@cuda.jit
def kernel(out):
    a = Arr3f(np.float32(1.5))
    q = Pairf(np.float32(1.0), np.float32(4.0))
    out[0] = a.sum() + q.total() + times3(np.float32(2.5))

objects = {"Arr": geo.Arr, "Arr3f": Arr3f, "Pairf": Pairf, "Nested": Nested,
           "clamp": geo.clamp, "times3": times3, "kernel": kernel}
for name, value in objects.items():
    for how in (pickle, cloudpickle):
        with open(f"{OUT}/{name}.{how.__name__}", "wb") as f:
            f.write(how.dumps(value))
"""

UNPICKLE = """
import pickle, sys
from numba.cuda import types

def load(name, how):
    with open(f"{OUT}/{name}.{how}", "rb") as f:
        return pickle.loads(f.read())

for how in ("pickle", "cloudpickle"):
    loaded = {name: load(name, how) for name in
              ("Arr", "Arr3f", "Pairf", "Nested", "clamp", "times3", "kernel")}
    geo = sys.modules["cuda_headers.geo"]
    arr3f = geo.Arr[types.float32, 3]
    same = [loaded["Arr"] is geo.Arr, loaded["Arr3f"] is arr3f,
            loaded["Pairf"] is geo.Pair[types.float32], loaded["Nested"] is geo.Pair[arr3f],
            loaded["clamp"] is geo.clamp, loaded["times3"] is geo.times[3]]
    print(how, "same objects:", same)
    if RUN:
        import numpy as np
        from numba import cuda
        out = cuda.to_device(np.zeros(1, np.float32))
        loaded["kernel"][1, 1](out)
        print(how, "value:", out.copy_to_host()[0])
    else:
        from support import link_kernel_to_cubin
        cubin = link_kernel_to_cubin(loaded["kernel"].py_func, (types.float32[:],), arch="sm_90")
        print(how, "linked:", len(cubin) > 0)
"""


def _code(template: str, out: Path, run: bool = False) -> str:
    return f"OUT = {str(out)!r}\nRUN = {run}\n" + textwrap.dedent(template)


@pytest.fixture(scope="module")
def pickled(tmp_path_factory):
    """Pickles (pickle and cloudpickle) made in a project mapping geo.cuh, and its cache."""
    tmp = tmp_path_factory.mktemp("template_pickling")
    project, cache, out = tmp / "proj", tmp / "cache", tmp / "pickles"
    project.mkdir()
    out.mkdir()
    shutil.copy(GEO, project / "geo.cuh")
    (project / "pyproject.toml").write_text(PROJECT)
    result = run_python(_code(PICKLE, out), project, cache)
    assert result.returncode == 0, result.stderr
    return cache, out


def _elsewhere(tmp_path: Path) -> Path:
    elsewhere = tmp_path / "elsewhere"  # no pyproject.toml: the pickles carry the mapping
    elsewhere.mkdir()
    return elsewhere


def test_templates_and_instances_unpickle_as_the_modules_own(pickled, tmp_path):
    cache, out = pickled
    result = run_python(_code(UNPICKLE, out), _elsewhere(tmp_path), cache)
    assert result.returncode == 0, result.stderr
    for how in ("pickle", "cloudpickle"):
        assert f"{how} same objects: [True, True, True, True, True, True]" in result.stdout
        assert f"{how} linked: True" in result.stdout


def test_templates_of_bind_header_say_why_they_do_not_pickle():
    import pickle

    from numba.cuda import types
    from support import bound_test_header

    lib = bound_test_header("templates.cuh")
    with pytest.raises(pickle.PicklingError, match="import the header as a module"):
        pickle.dumps(lib.Vec[types.float32, 3])


@pytest.mark.gpu
def test_a_kernel_with_instances_in_its_globals_runs_in_another_process(pickled, tmp_path):
    cache, out = pickled
    result = run_python(_code(UNPICKLE, out, run=True), _elsewhere(tmp_path), cache)
    assert result.returncode == 0, result.stderr
    for how in ("pickle", "cloudpickle"):
        # Arr<float, 3>(1.5).sum() + Pair<float>(1, 4).total() + times<3>(2.5), as C++ computes
        # it: Pair's constructor fills its Arr<float, 3> with 1, so total() is 1 * 3 + 4.
        assert f"{how} value: 19.0" in result.stdout  # 1.5 * 3 + (1 * 3 + 4) + 2.5 * 3

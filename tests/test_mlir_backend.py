"""The numba-cuda-mlir backend: the bindings numba-cuda kernels call, called from
``numba_cuda_mlir`` kernels, from the same rows and the same shims.

Without numba-cuda-mlir installed only the first test runs: applying bindings loads nothing of
the backend and keeps what it would register (the library and rows numba-cuda uses). The
others compile kernels with numba-cuda-mlir and link them to an sm_90 cubin (``mlir_support``:
no GPU needed), and on a GPU check their numbers against NumPy, with numba-cuda kernels of the
same bindings in the same process. Header modules of the import system:
test_mlir_headers.py; structs passed by address (cuRAND): test_mlir_struct_pointers.py.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from mlir_support import compile_cubin, mlir_types, numba_cuda_mlir

HEADER = Path(__file__).parent / "data" / "mlir" / "shapes.cuh"
DEMO_HEADER = Path(__file__).parent.parent / "examples" / "demo.cuh"  # the README's quick start
POINTERS_HEADER = Path(__file__).parent / "data" / "binding" / "struct_pointers.cuh"
INPUT = np.array([1.5, -2.0, 3.0, 0.5], dtype=np.float32)

WAITING_PROBE = f"""
import importlib.util, json, sys
from numbast.runtime import backends, other_backends
if sys.argv[1] == "pretend-installed":  # what would wait for it, were it installed
    other_backends.INSTALLED["numba-cuda-mlir"] = True
from numbast import bind_header
lib = bind_header({str(HEADER)!r})
waiting = list(backends._WAITING.get("numba-cuda-mlir", []))
report = {{}}
if sys.argv[1] == "pretend-installed":  # the seed demo's and the cuRAND pattern's rows too
    from numba.cuda import types
    from numba.cuda.datamodel.models import PrimitiveModel
    from numbast.runtime import struct_pointers
    from numbast.runtime.calls import Call
    demo = bind_header({str(DEMO_HEADER)!r}, parent_types={{"__myfloat16": types.Number}},
                       data_models={{"__myfloat16": PrimitiveModel}})
    walker = bind_header({str(POINTERS_HEADER)!r})
    more = backends._WAITING["numba-cuda-mlir"][len(waiting):]
    report["demo"] = sorted(
        (e.row.qual_name, getattr(e.row.data_model, "__name__", e.row.data_model),
         type(e.numba_type).__mro__[1].__name__,
         e.stub is demo.structs["__myfloat16"], r.library is demo.shim_writer)
        for r in more for e in r.structs if r.library is demo.shim_writer
    ) + sorted(
        e.row.qual_name for r in more for e in r.functions if r.library is demo.shim_writer
    )
    # positions taking a struct by address, as numbast.runtime_mlir.registration computes them
    # from the registration, and as numba-cuda's rewrite has them from its own registration
    report["pointer_positions"] = {{
        e.key._numbast_qual_name_: struct_pointers.struct_pointer_positions(
            Call(e.row.call, r.types, r.shims).visible_args)
        for r in more for e in r.functions if r.library is walker.shim_writer
    }}
    report["classic_positions"] = {{
        stub._numbast_qual_name_: sorted(struct_pointers._POSITIONS.get(stub, ()))
        for stub in walker.functions.values()
    }}
print(json.dumps({{**report,
    "installed": importlib.util.find_spec("numba_cuda_mlir") is not None,
    "backend_loaded": any(m.startswith("numbast.runtime_mlir") for m in sys.modules),
    "compiler_loaded": "numba_cuda_mlir" in sys.modules,
    "watching": any(type(f).__name__ == "_ImportWatcher" for f in sys.meta_path),
    "waiting": len(waiting),
    "same_library": all(r.library is lib.shim_writer for r in waiting),
    "structs": sorted(e.row.qual_name for r in waiting for e in r.structs),
    "stubs_are_the_modules": all(
        e.stub is lib.structs[e.row.python_name] for r in waiting for e in r.structs
        if e.row.python_name in lib.structs
    ),
    "functions": sorted(e.row.qual_name for r in waiting for e in r.functions),
    "function_keys_are_the_modules": all(
        e.key is lib.functions[e.row.python_name] for r in waiting for e in r.functions
        if not e.row.operator
    ),
}}))
"""


def run_waiting_probe(mode: str) -> dict:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    done = subprocess.run(
        [sys.executable, "-c", WAITING_PROBE, mode], capture_output=True, text=True, env=env
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_bindings_wait_for_numba_cuda_mlir_and_load_nothing_of_it():
    """A process that never imports numba_cuda_mlir loads no part of the backend; what waits
    for it is the module's own objects and numba-cuda's shim library; where it is not
    installed, nothing waits and nothing watches the imports."""
    probe = run_waiting_probe("pretend-installed")
    assert not probe["backend_loaded"] and not probe["compiler_loaded"]
    assert probe["watching"] and probe["waiting"] >= 1 and probe["same_library"]
    assert probe["structs"] == ["shapes::Point"]
    assert probe["stubs_are_the_modules"] and probe["function_keys_are_the_modules"]
    assert {"shapes::dot", "shapes::in_unit", "shapes::bigger"} <= set(probe["functions"])
    # the seed demo's struct (a Number held as a 16-bit value), operator+ and hsqrt
    assert probe["demo"] == [
        ["__myfloat16", "PrimitiveModel", "Number", True, True],
        "hsqrt",
        "operator+",
    ]
    # numba-cuda-mlir passes structs by address at the positions numba-cuda's rewrite uses
    assert probe["pointer_positions"] == {
        "walker_init": [1], "walker_step": [0], "walker_swap": [0, 1], "walker_peek": [0],
        "walker_total": [0],
    }  # fmt: skip
    assert probe["classic_positions"] == probe["pointer_positions"]

    as_installed = run_waiting_probe("as-installed")
    assert not as_installed["backend_loaded"] and not as_installed["compiler_loaded"]
    if as_installed["installed"]:
        assert as_installed["waiting"] == probe["waiting"] and as_installed["watching"]
    else:
        assert as_installed["waiting"] == 0 and not as_installed["watching"]


# -- with numba-cuda-mlir ------------------------------------------------------------------


@pytest.fixture(scope="module")
def lib():
    numba_cuda_mlir()
    from numbast import bind_header

    return bind_header(HEADER)


def make_shapes_kernel(lib, cuda):
    """One kernel using a struct (constructors, fields, a const method, member and free
    operators, an explicit conversion), enums across calls, a free function through the
    module object, and a class template instance."""
    from numba.cuda import types as numba_cuda_types

    Point, Unit, Axis = lib.Point, lib.Unit, lib.Axis
    dot, in_unit, bigger = lib.dot, lib.in_unit, lib.bigger
    PairF = lib.Pair[numba_cuda_types.float32]

    def shapes_kernel(x, out):
        a = Point(x[0], x[1])
        b = Point(x[2], x[3])
        out[0] = (a + b).x
        out[1] = (b - a).y
        out[2] = (a * x[2]).y
        out[3] = dot(a, b)
        out[4] = a.norm2()
        out[5] = a.along(Axis.AXIS_Y)
        out[6] = in_unit(x[2], Unit.Feet)
        out[7] = float(a)
        out[8] = 1.0 if a == b else 0.0
        out[9] = 1.0 if a == a else 0.0
        out[10] = 1.0 if bigger(Unit.Meters, Unit.Feet) == Unit.Feet else 0.0
        out[11] = lib.dot(b, b)
        p = PairF(x[0], x[3])
        q = p + p
        out[12] = q.sum()
        out[13] = q.first

    return cuda.jit(shapes_kernel) if cuda is not None else shapes_kernel


def expected_shapes(x: np.ndarray) -> np.ndarray:
    f = np.float32
    a, b = x[:2], x[2:]
    return np.array(
        [
            a[0] + b[0], b[1] - a[1], a[1] * x[2], a @ b, a @ a, a[1], x[2] * f(3.28084),
            f(np.float64(a[0]) + np.float64(a[1])), 0.0, 1.0, 1.0, b @ b,
            2 * (x[0] + x[3]), 2 * x[0],
        ],
        dtype=np.float32,
    )  # fmt: skip


def test_header_kernel_links_to_sm90_cubin(lib):
    types = mlir_types()
    compile_cubin(make_shapes_kernel(lib, None), (types.float32[:], types.float32[:]))


def test_numba_cuda_kernel_of_the_same_bindings_still_links(lib):
    """numba-cuda kernels keep working beside numba-cuda-mlir ones in one process."""
    from numba.cuda import types
    from support import link_kernel_to_cubin

    types_mlir = mlir_types()
    compile_cubin(make_shapes_kernel(lib, None), (types_mlir.float32[:], types_mlir.float32[:]))
    cubin = link_kernel_to_cubin(make_shapes_kernel(lib, None), (types.float32[:],) * 2)
    assert cubin[:4] == b"\x7fELF"


STATIC_PROBE = f"""
import sys
sys.path.insert(0, {str(Path(__file__).parent)!r})
from numbast.static.config import config_from_mapping
from static_support import import_path, render
from mlir_support import compile_cubin
from numba_cuda_mlir import types

raw = {{"Entry Point": "shapes.cuh", "File List": ["shapes.cuh"], "GPU Arch": ["sm_90"]}}
config = config_from_mapping(raw, base_dir={str(HEADER.parent)!r}, source="<shapes config>")
shapes = import_path(render(config, __import__("pathlib").Path(sys.argv[1])))

def kernel(x, out):
    a = shapes.Point(x[0], x[1])
    out[0] = shapes.dot(a + a, a)
    out[1] = a.along(shapes.Axis.AXIS_Y)

compile_cubin(kernel, (types.float32[:], types.float32[:]))
print("linked")
"""


def test_standalone_static_module_kernel_links_to_sm90_cubin(tmp_path):
    """A module from ``python -m numbast`` carrying its runtime copy (in a process of its own:
    it registers shapes:: types as the dynamic bindings of this module's tests do)."""
    numba_cuda_mlir()
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    done = subprocess.run(
        [sys.executable, "-c", STATIC_PROBE, str(tmp_path)], capture_output=True, text=True,
        env=env,
    )  # fmt: skip
    assert done.returncode == 0 and done.stdout.strip().endswith("linked"), done.stderr[-3000:]


IMPORT_LATER_PROBE = f"""
import sys
from numbast import bind_header
lib = bind_header({str(HEADER)!r})
assert "numbast.runtime_mlir" not in sys.modules
sys.path.insert(0, {str(Path(__file__).parent)!r})
from mlir_support import compile_cubin
from numba_cuda_mlir import types

def kernel(x, out):
    out[0] = lib.dot(lib.Point(x[0], x[1]), lib.Point(x[2], x[3]))

compile_cubin(kernel, (types.float32[:], types.float32[:]))
print("linked")
"""


def test_bindings_made_before_numba_cuda_mlir_is_imported_register_with_it():
    numba_cuda_mlir()
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    done = subprocess.run(
        [sys.executable, "-c", IMPORT_LATER_PROBE], capture_output=True, text=True, env=env
    )
    assert done.returncode == 0 and done.stdout.strip().endswith("linked"), done.stderr[-3000:]


# -- numbers (GPU) -------------------------------------------------------------------------


@pytest.mark.gpu
def test_header_kernel_numbers_match_numpy_and_numba_cuda(lib):
    numba_cuda_mlir()
    from numba import cuda as numba_cuda
    from numba_cuda_mlir import cuda

    out = cuda.device_array(14, np.float32)
    make_shapes_kernel(lib, cuda)[1, 1](cuda.to_device(INPUT), out)
    np.testing.assert_allclose(out.copy_to_host(), expected_shapes(INPUT), rtol=1e-5)

    classic = numba_cuda.device_array(14, np.float32)
    make_shapes_kernel(lib, numba_cuda)[1, 1](numba_cuda.to_device(INPUT), classic)
    np.testing.assert_allclose(classic.copy_to_host(), out.copy_to_host(), rtol=1e-6)


CACHED_KERNEL_SCRIPT = f"""
import sys
import numpy as np
from numbast import bind_header
from numba_cuda_mlir import cuda

lib = bind_header({str(HEADER)!r})

@cuda.jit(cache=True)
def cached_dot(x, out):
    out[0] = lib.dot(lib.Point(x[0], x[1]), lib.Point(x[2], x[3]))

x = np.array({INPUT.tolist()!r}, dtype=np.float32)
out = cuda.device_array(1, np.float32)
cached_dot[1, 1](cuda.to_device(x), out)
print(sum(cached_dot.stats.cache_hits.values()), float(out.copy_to_host()[0]))
"""


@pytest.mark.gpu
def test_cache_true_kernel_calling_bindings_loads_from_numba_cuda_mlirs_cache(tmp_path):
    """numba-cuda-mlir's own ``cache=True``: the second process loads the linked kernel (shims
    included) and computes the same number."""
    numba_cuda_mlir()
    script = tmp_path / "cached_kernel.py"
    script.write_text(CACHED_KERNEL_SCRIPT)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path),
               NUMBA_CACHE_DIR=str(tmp_path / "numba_cache"))  # fmt: skip
    runs = []
    for _ in range(2):
        done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                              env=env)  # fmt: skip
        assert done.returncode == 0, done.stderr[-3000:]
        hits, value = done.stdout.split()[-2:]
        runs.append((int(hits), float(value)))
    expected = float(INPUT[0] * INPUT[2] + INPUT[1] * INPUT[3])
    assert runs[0] == (0, pytest.approx(expected)) and runs[1][0] >= 1
    assert runs[1][1] == runs[0][1]

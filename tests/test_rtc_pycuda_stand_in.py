"""The ``pycuda`` stand-in of tests/scripts/pycuda_programs.py: its modules are ours, every name
PyCUDA's examples and test/test_driver.py import is there, and test_driver.py imports (which
it could not before issue 21). Without a GPU; the programs run in the script, on one."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPTS = Path(__file__).parent / "scripts"
sys.path.insert(0, str(SCRIPTS))
import pycuda_programs  # noqa: E402

MIRROR = Path("/work/.mirror/inducer+pycuda/repo")  # a git directory (fetched PyCUDA), if any


def _mirror_has_test_driver() -> bool:
    if not MIRROR.is_dir():
        return False
    done = subprocess.run(["git", "-C", str(MIRROR), "cat-file", "-e", "HEAD:test/test_driver.py"],
                          capture_output=True)  # fmt: skip
    return done.returncode == 0


# what the examples issue 21 names and test_driver.py import from pycuda
IMPORTS = """
import pycuda.driver as drv, numbast_import.driver
assert drv is numbast_import.driver
from pycuda import gpuarray, compiler
from pycuda.compiler import SourceModule, DynamicModule, DynamicSourceModule, DEFAULT_NVCC_FLAGS
from pycuda.tools import dtype_to_ctype, mark_cuda_test, context_dependent_memoize, bitlog2
from pycuda.tools import DeviceMemoryPool, PageLockedMemoryPool, make_default_context
from pycuda.tools import clear_context_caches
from pycuda.elementwise import get_linear_combination_kernel, ScalarArg, VectorArg
from pycuda.elementwise import get_elwise_module, ElementwiseKernel
from pycuda.reduction import ReductionKernel
from pycuda.curandom import rand
for name in ["PointerHolderBase", "get_version", "get_driver_version", "Event", "Stream",
             "pagelocked_zeros", "pagelocked_empty_like", "memcpy_htod_async", "mem_get_info",
             "from_device_like", "to_device", "matrix_to_texref", "bind_array_to_texref",
             "make_multichannel_2d_array", "ArrayDescriptor3D", "Memcpy3D", "Array",
             "dtype_to_array_format", "aligned_empty", "register_host_memory", "In", "Out",
             "InOut", "array_format", "mem_alloc_like", "Context", "Device"]:
    assert hasattr(drv, name), name
assert gpuarray.vec.make_float3(1, 2, 3)["y"] == 2
print("ok")
"""


def _environment(stand_in: Path) -> dict[str, str]:
    paths = [str(stand_in), *sys.path]
    return dict(os.environ, PYTHONPATH=os.pathsep.join(paths), PYTHONDONTWRITEBYTECODE="1")


def test_stand_in_modules_are_ours_and_have_what_programs_import(tmp_path):
    stand_in = pycuda_programs.build_stand_in(tmp_path)
    done = subprocess.run([sys.executable, "-c", IMPORTS], env=_environment(stand_in),
                          capture_output=True, text=True, cwd=tmp_path)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"


@pytest.mark.skipif(not _mirror_has_test_driver(), reason=f"no PyCUDA mirror at {MIRROR}")
def test_pycudas_test_driver_imports_and_collects(tmp_path):
    stand_in = pycuda_programs.build_stand_in(tmp_path)
    source = subprocess.run(["git", "-C", str(MIRROR), "show", "HEAD:test/test_driver.py"],
                            capture_output=True, text=True, check=True).stdout  # fmt: skip
    (tmp_path / "test_driver.py").write_text(source)
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider",
         "-c", "pytest.ini", "test_driver.py"],
        env=_environment(stand_in), capture_output=True, text=True, cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert "test_driver.py::TestDriver::test_simple_kernel" in done.stdout
    assert "test_driver.py::test_pointer_holder_base" in done.stdout

"""On a GPU: the import system asks the device for its arch, and the device wins over a pin
for another arch (a project pinned for its build machine still runs where it is imported)."""

from __future__ import annotations

import json

import pytest
from import_support import entries, make_project, run_python

KERNEL = """
import numpy as np
from numba import cuda
import cuda_headers.vec as vec

Vec2, scaled_dot = vec.Vec2, vec.scaled_dot


@cuda.jit
def kernel(out):
    a = Vec2(1.0, 2.0)
    out[0] = scaled_dot(a, a)


out = cuda.to_device(np.zeros(1, dtype=np.float32))
kernel[1, 1](out)
print("result", out.copy_to_host()[0])
"""


def _device_arch() -> str:
    from numba import cuda

    major, minor = cuda.get_current_device().compute_capability
    return f"sm_{major}{minor}"


@pytest.mark.gpu
def test_the_device_query_names_the_gpu_numba_uses():
    from numbast_import.arch import current_gpu_arch

    assert current_gpu_arch() == (_device_arch(), "")


@pytest.mark.gpu
def test_a_project_pinned_to_another_arch_runs_on_this_gpu(tmp_path):
    device = _device_arch()
    pin = "sm_80" if device != "sm_80" else "sm_90"
    project, cache = make_project(tmp_path), tmp_path / "cache"
    pyproject = project / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace('arch = "sm_90"', f'arch = "{pin}"'))
    result = run_python(KERNEL, project, cache)
    assert result.returncode == 0, result.stderr
    assert "result 10.0" in result.stdout  # SCALE (2) * dot((1, 2), (1, 2))
    assert f"for {device}" in result.stderr
    (entry,) = entries(cache)
    assert json.loads((entry / "manifest.json").read_text())["key"]["arch"] == device


@pytest.mark.gpu
def test_a_later_process_takes_the_arch_remembered_for_this_gpu(tmp_path):
    device = _device_arch()
    project, cache = make_project(tmp_path), tmp_path / "cache"  # made by the first import
    # cuInit is quick while another process (this one) holds the GPU: the second process's
    # driver answers a second late, as a first cuInit on an idle GPU is late, so the import
    # must take the remembered arch; its kernel runs, and the answer, when it comes, agrees.
    late = (
        "import time\nimport numbast_import.arch as arch\n"
        "_asked = arch._device_capability\n"
        "arch._device_capability = lambda: (time.sleep(1.0), _asked())[1]\n"
    )
    told = (
        "\nimport threading\n"  # the answer's check of the memo, done
        "[t.join() for t in threading.enumerate() if t.name == 'numbast-import-arch']\n"
        "print('remembered', arch._memo_checked, 'answer', arch._device_arch.result()[0])\n"
    )
    first = run_python(late + KERNEL + told, project, cache)
    assert first.returncode == 0, first.stderr
    assert "result 10.0" in first.stdout
    assert f"remembered False answer {device}" in first.stdout
    (memo,) = (cache / "keys").glob("arch-*")
    assert memo.read_text() == f"{device}\n"
    second = run_python(late + KERNEL + told, project, cache)
    assert second.returncode == 0, second.stderr
    assert "result 10.0" in second.stdout
    assert f"remembered True answer {device}" in second.stdout, second.stderr
    assert memo.read_text() == f"{device}\n"  # checked against the answer, and kept

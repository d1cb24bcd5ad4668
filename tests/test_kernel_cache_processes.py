"""cache=True kernels that call bindings, across fresh processes, without a GPU.

Each scenario writes a kernel script, and runs it in fresh interpreters that compile, link (sm_90,
nvJitLink) and save the kernel through the dispatcher's cache, or load it with NVVM, NVRTC and
the linker made to fail (tests/kernel_cache_support.py). They prove that the second process
loads the very cubin the first linked, that editing the header (or a header it includes) makes
it compile again, and that the loaded kernel carries the live library's Module Callbacks.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

from import_support import make_project
from kernel_cache_support import result_of
from static_support import render, static_config

TESTS = Path(__file__).resolve().parent
EXAMPLES = TESTS.parent / "examples"

PRELUDE = """\
import sys
from kernel_cache_support import main, pretend_device
pretend_device()
from numba import cuda
from numba.cuda import types
"""

DEMO_KERNEL = """
@cuda.jit(cache=True)
def kernel(arr):
    three = myfloat16(1.0) + myfloat16(2.0)
    arr[0] = types.float64(three)
    arr[1] = types.float64(hsqrt(three))

main(kernel, (types.float64[:],))
"""


def run(script: Path, cache: Path, cwd: Path | None = None) -> dict:
    environment = {
        **os.environ,
        "NUMBA_CACHE_DIR": str(cache),
        "PYTHONPATH": os.pathsep.join([str(TESTS), str(script.parent)]),
        "NUMBAST_CACHE_DIR": str(cache / "numbast"),
        "NUMBAST_IMPORT_QUIET": "1",
    }
    environment.pop("NUMBAST_IMPORT_ARCH", None)
    done = subprocess.run(
        [sys.executable, str(script)],
        cwd=cwd or script.parent,
        env=environment,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return result_of(done.stdout)


def test_dynamic_bindings_load_the_cached_cubin_and_a_header_edit_recompiles(tmp_path):
    header = tmp_path / "demo.cuh"
    shutil.copy(EXAMPLES / "demo.cuh", header)
    script = tmp_path / "dynamic_kernel.py"
    script.write_text(
        PRELUDE
        + textwrap.dedent(
            """
            import os
            from numba.cuda.datamodel.models import PrimitiveModel
            from numbast import bind_header

            header = os.path.join(os.path.dirname(os.path.abspath(__file__)), "demo.cuh")
            demo = bind_header(
                header, parent_types={"__myfloat16": types.Number},
                data_models={"__myfloat16": PrimitiveModel},
            )
            myfloat16, hsqrt = demo.__myfloat16, demo.hsqrt
            """
        )
        + DEMO_KERNEL
    )
    cache = tmp_path / "cache"
    first = run(script, cache)
    second = run(script, cache)
    assert (first["loaded"], second["loaded"]) == (False, True)
    assert second["cubin"] == first["cubin"]
    # The live shim writer of the second process (its name is its id, so it differs).
    assert [name.startswith("numbast_shims_") for name in second["links"]] == [True]

    # A change inside a definition leaves every declaration and shim as it was: only the
    # header's content tells that the cubin is stale.
    text = header.read_text()
    header.write_text(text.replace("sqrt(double(a))", "sqrt(double(a)) + 1.0"))
    third = run(script, cache)
    assert third["loaded"] is False
    assert third["cubin"] != first["cubin"]
    assert run(script, cache)["loaded"] is True  # the entry was overwritten


def test_an_imported_header_module_reuses_kernels_until_an_included_header_changes(tmp_path):
    project = make_project(tmp_path)
    script = project / "vec_kernel.py"
    script.write_text(
        PRELUDE
        + textwrap.dedent(
            """
            import cuda_headers.vec as vec

            @cuda.jit(cache=True)
            def kernel(out):
                a = vec.Vec2(1.0, 2.0)
                out[0] = vec.scaled_dot(a, a)

            main(kernel, (types.float32[:],))
            """
        )
    )
    cache = tmp_path / "cache"
    first = run(script, cache)
    second = run(script, cache)
    assert (first["loaded"], second["loaded"]) == (False, True)
    assert second["cubin"] == first["cubin"]
    assert second["links"] == ["cuda_headers.vec_shims.ltoir"]

    scale = project / "include" / "scale.h"
    scale.write_text(scale.read_text().replace("2.0f", "3.0f"))
    third = run(script, cache)
    assert third["loaded"] is False
    assert third["cubin"] != first["cubin"]


def test_a_static_module_s_cached_kernel_keeps_its_module_callbacks(tmp_path):
    (tmp_path / "hooks.py").write_text(
        "loaded = []\n\n\ndef setup(module):\n    loaded.append(module)\n"
    )
    config = static_config(
        "functions.cuh",
        Output_Name="function_bindings.py",
        Additional_Import=["hooks"],
        Module_Callbacks={"setup": "hooks.setup", "teardown": "lambda module: None"},
    )
    render(config, tmp_path)
    script = tmp_path / "static_kernel.py"
    script.write_text(
        PRELUDE
        + textwrap.dedent(
            """
            import hooks
            import function_bindings as fn
            from kernel_cache_support import emit, outcome

            @cuda.jit(cache=True)
            def kernel(out):
                out[0] = fn.scale(types.float32(1.5), types.float32(2.0))

            loaded, result = outcome(kernel, (types.float32[:],))
            # What numba-cuda does when it loads the cubin: call every setup recorded. The
            # library's own callback runs, once per module however often the kernel lists it.
            module = object()
            for setup in loaded.library._setup_functions:
                setup(module)
            result["hooks"] = [m is module for m in hooks.loaded]
            emit(result)
            """
        )
    )
    cache = tmp_path / "cache"
    first = run(script, cache)
    second = run(script, cache)
    assert (first["loaded"], second["loaded"]) == (False, True)
    assert second["cubin"] == first["cubin"]
    assert second["setup"] == first["setup"] >= 1
    assert second["teardown"] == first["teardown"] >= 1
    assert first["hooks"] == second["hooks"] == [True]

"""A bound call compiles to the same machine code as the equivalent plain-Numba call.

Links the benchmark's kernel (64 chained calls of a bound ``my_fma``) and its plain-Numba twin
(``cuda.fma``) to sm_90 cubins and compares their SASS, read with cuobjdump/nvdisasm from the
NVIDIA wheels. No GPU needed.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from numba import cuda
from numba.cuda import types
from support import link_kernel_to_cubin

HEADER = Path(__file__).resolve().parents[1] / "benchmarks" / "data" / "my_fma.cuh"
SIGNATURE = (types.float32[:], types.float32[:], types.float32, types.float32)


def _cuobjdump() -> str | None:
    from cuda.pathfinder import find_nvidia_binary_utility

    return find_nvidia_binary_utility("cuobjdump") or shutil.which("cuobjdump")


def _sass(cubin: bytes, tmp_path: Path, name: str) -> list[str]:
    tool = _cuobjdump()
    if tool is None:
        pytest.skip("cuobjdump is not installed (pip install nvidia-cuda-cuobjdump)")
    path = tmp_path / f"{name}.cubin"
    path.write_bytes(cubin)
    env = dict(os.environ, PATH=f"{Path(tool).parent}{os.pathsep}{os.environ.get('PATH', '')}")
    out = subprocess.run([tool, "-sass", str(path)], capture_output=True, text=True, env=env)
    assert out.returncode == 0, out.stderr
    instructions = [
        re.sub(r"/\*.*?\*/", "", line).split(";")[0].strip()
        for line in out.stdout.splitlines()
        if re.search(r"/\*[0-9a-f]{4}\*/", line)
    ]
    return [i for i in instructions if i and not i.startswith("NOP")]


def test_bound_call_has_the_sass_of_plain_numba(tmp_path):
    from numbast import bind_header

    my_fma = bind_header(HEADER).my_fma

    def bound(x, out, b, c):
        i = cuda.grid(1)
        if i < x.size:
            v = x[i]
            for _ in range(64):
                v = my_fma(v, b, c)
            out[i] = v

    def plain(x, out, b, c):
        i = cuda.grid(1)
        if i < x.size:
            v = x[i]
            for _ in range(64):
                v = cuda.fma(v, b, c)
            out[i] = v

    bound_sass = _sass(link_kernel_to_cubin(bound, SIGNATURE), tmp_path, "bound")
    plain_sass = _sass(link_kernel_to_cubin(plain, SIGNATURE), tmp_path, "plain")
    opcodes = [i.split()[0] for i in bound_sass]
    assert opcodes.count("FFMA") == 64
    assert not any(op in ("CALL", "CALL.REL", "CALL.ABS") for op in opcodes), "shim not inlined"
    assert len(bound_sass) == len(plain_sass)
    assert [i.split()[0] for i in plain_sass] == opcodes


def test_bound_call_has_the_sass_of_plain_numba_cuda_mlir(tmp_path):
    """The same in numba-cuda-mlir kernels (the shim's LTO-IR inlines there too)."""
    from mlir_support import compile_cubin, numba_cuda_mlir

    numba_cuda_mlir()
    from numba_cuda_mlir import cuda as mlir_cuda
    from numba_cuda_mlir import types as mlir_types

    from numbast import bind_header

    my_fma = bind_header(HEADER).my_fma

    def bound(x, out, b, c):
        i = mlir_cuda.grid(1)
        if i < x.size:
            v = x[i]
            for _ in range(64):
                v = my_fma(v, b, c)
            out[i] = v

    def plain(x, out, b, c):
        i = mlir_cuda.grid(1)
        if i < x.size:
            v = x[i]
            for _ in range(64):
                v = mlir_cuda.fma(v, b, c)
            out[i] = v

    signature = (mlir_types.float32[:], mlir_types.float32[:], mlir_types.float32,
                 mlir_types.float32)  # fmt: skip
    bound_sass = _sass(compile_cubin(bound, signature), tmp_path, "bound")
    plain_sass = _sass(compile_cubin(plain, signature), tmp_path, "plain")
    opcodes = [i.split()[0] for i in bound_sass]
    assert opcodes.count("FFMA") == 64
    assert not any(op in ("CALL", "CALL.REL", "CALL.ABS") for op in opcodes), "shim not inlined"
    assert bound_sass == plain_sass

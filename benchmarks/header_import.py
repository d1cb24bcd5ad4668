"""Start-up cost of using cuda_fp16.h in a kernel: cached import vs. binding in every process.

Each measurement is a fresh Python process (median of N, default 5) that makes the bindings
available and then compiles a kernel calling ``hsqrt`` on ``__half`` for sm_90 to LTO-IR (no
GPU needed; this is where numba-cuda runs NVRTC on the shims):

- ``numba.cuda only``: ``import numba.cuda``;
- ``plain kernel``: the same kernel without the header (``out[i] = x[i]``): the floor of
  Numba's own import and compile that every variant pays;
- ``dynamic (re-parse)``: parse and bind the header in-process with ``numbast.bind_header``,
  the way NVIDIA's Numbast works: every process parses, and every kernel compiles its shims
  with NVRTC;
- ``import, cold``: ``import numbast.headers.cufp16`` with an empty cache (parse, render,
  compile the shims to LTO-IR once, store);
- ``import, warm``: the same with the cache filled: no clang, no NVRTC.

    python benchmarks/header_import.py [--runs 5]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time

KERNEL = textwrap.dedent(
    """
    from numba import cuda, types

    def kernel(x, out):
        i = cuda.grid(1)
        if i < x.size:
            out[i] = float(hsqrt(__half(x[i])))

    codes, _ = cuda.compile_all(
        kernel, (types.float32[:], types.float64[:]), device=False, abi="numba", cc=(9, 0),
        output="ltoir",
    )
    """
)

PLAIN_KERNEL = KERNEL.replace("float(hsqrt(__half(x[i])))", "x[i]")

VARIANTS = {
    "numba.cuda only": "import numba.cuda\n",
    "plain kernel": PLAIN_KERNEL,
    "dynamic (re-parse)": textwrap.dedent(
        """
        import os, warnings
        from numba.cuda import types
        from numba.cuda.datamodel.models import PrimitiveModel
        from ast_canopy.toolkit import cudart_include_dir
        from numbast import bind_header

        inc = cudart_include_dir()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            lib = bind_header(
                os.path.join(inc, "cuda_fp16.h"), retain=[os.path.join(inc, "cuda_fp16.hpp")],
                parent_types={"__half": types.Number}, data_models={"__half": PrimitiveModel},
            )
        __half, hsqrt = lib.__half, lib.hsqrt
        """
    )
    + KERNEL,
    "import (cache)": textwrap.dedent(
        """
        import numbast.headers.cufp16 as fp16
        __half, hsqrt = fp16.__half, fp16.hsqrt
        """
    )
    + KERNEL,
}


def run(code: str, env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], check=True, env=env, capture_output=True)
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    runs = parser.parse_args(argv).runs
    results: dict[str, list[float]] = {}
    with tempfile.TemporaryDirectory() as scratch:
        env = dict(os.environ, NUMBAST_IMPORT_ARCH="sm_90", NUMBAST_IMPORT_QUIET="1")
        for _ in range(runs):
            for name in ("numba.cuda only", "plain kernel", "dynamic (re-parse)"):
                results.setdefault(name, []).append(run(VARIANTS[name], env))
            cache = tempfile.mkdtemp(dir=scratch)
            cached_env = dict(env, NUMBAST_CACHE_DIR=cache)
            code = VARIANTS["import (cache)"]
            results.setdefault("import, cold", []).append(run(code, cached_env))
            results.setdefault("import, warm", []).append(run(code, cached_env))
    floor = statistics.median(results["plain kernel"])
    print(f"cuda_fp16.h + one kernel compiled for sm_90; whole processes, medians of {runs}")
    for name, times in results.items():
        median = statistics.median(times)
        extra = f"   ({median - floor:+.2f} s vs plain kernel)" if name != "plain kernel" else ""
        print(f"  {name:20s} {median:6.2f} s{extra}")
    dynamic = statistics.median(results["dynamic (re-parse)"]) - floor
    warm = statistics.median(results["import, warm"]) - floor
    print(
        f"cost of the header beyond a plain kernel: re-parse {dynamic:.2f} s, warm import "
        f"{warm:.2f} s ({dynamic / warm:.1f}x less)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())

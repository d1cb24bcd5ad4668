"""Real headers through NVRTC: what a cold import compiles, what NVRTC rejects, and what pinning
the rejected shims costs (CPU; no GPU needed unless --gpu).

Each case is imported cold in a fresh process with a fresh cache (NUMBAST_IMPORT_ARCH=sm_90),
N times (default 3), interleaved; medians. Timed inside the process:

- ``import``: the whole cold ``import cuda_headers.<case>`` (parse, render, shims, template probes);
- ``shims``: ``compile_shims_to_ltoir`` of the module's shims (rounds, probes, the final unit);
- ``reference``: one NVRTC compile of the final unit (the shims NVRTC kept), in the same
  process right after: what compiling the shims costs when nothing is rejected. The ratio
  ``shims / reference`` is the price of pinning rejected shims.

Random123 is not on the package index: give a checkout (``--random123 PATH``, the directory
holding ``include/Random123``); it is mapped with the two defines its NVRTC path lacks.
CUTLASS comes from the ``nvidia-cutlass`` package (the test extra). With ``--gpu``, the
Random123 case also runs Philox4x32-10 on a zero counter and key on the GPU and checks the
known-answer vector of Random123's kat_vectors. The philox case also links a kernel calling
``r123array2x64::incr()`` (a defaulted argument, returns ``*this``) and ``mulhilo64`` (a
``uint64_t *`` parameter) to an sm_90 cubin; with ``--gpu`` it runs it and checks the numbers.

    python benchmarks/nvrtc_shims.py [--runs 3] [--random123 PATH] [--gpu] [--only cg ...]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

CHILD = r"""
import json, os, sys, time
import numbast_import
import numbast_import.shim_compiler as shim_compiler
from numbast.core import nvrtc

case = json.loads(sys.argv[1])
seen = {}
real = shim_compiler.compile_shims_to_ltoir
calls = {"n": 0}
real_compile = nvrtc.compile_unit

def counting(*args, **kwargs):
    calls["n"] += 1
    return real_compile(*args, **kwargs)

def timed(preamble, shims, name, arch, include_dirs=(), nvrtc_options=(), **more):
    # A header's shims may compile in several units: times, compiles and counts add up.
    if not name.endswith("_shims.cu"):
        return real(preamble, shims, name, arch, include_dirs, nvrtc_options, **more)
    calls["n"] = 0
    start = time.perf_counter()
    compiled = real(preamble, shims, name, arch, include_dirs, nvrtc_options, **more)
    seen["shims"] = seen.get("shims", 0.0) + time.perf_counter() - start
    seen["compiles"] = seen.get("compiles", 0) + calls["n"]
    seen["count"] = seen.get("count", 0) + len(shims)
    seen["rejected"] = seen.get("rejected", 0) + len(compiled.left_out)
    options = nvrtc.unit_options(arch, lto=True, user_dirs=include_dirs, extra=nvrtc_options)
    start = time.perf_counter()
    nvrtc.compile_unit(compiled.source, name, options, "ltoir")
    seen["reference"] = seen.get("reference", 0.0) + time.perf_counter() - start
    return compiled

nvrtc.compile_unit = counting
shim_compiler.compile_shims_to_ltoir = timed
numbast_import.register(case["name"], case["header"], **case["options"])
start = time.perf_counter()
module = __import__(f"cuda_headers.{case['name']}", fromlist=["x"])
seen["import"] = time.perf_counter() - start
seen["default_device"] = "-default-device" in module._numbast_shim_library.nvrtc_options
if case.get("kat"):
    import numpy as np
    from numba import cuda

    @cuda.jit
    def philox(out):
        counter = module.r123array4x32()
        key = module.r123array2x32()
        result = module.philox4x32_R(10, counter, key)
        out[0] = result.front()
        out[1] = result.back()

    out = cuda.to_device(np.zeros(2, dtype=np.uint32))
    philox[1, 1](out)
    seen["kat"] = [hex(int(v)) for v in out.copy_to_host()]
if case.get("idioms"):
    # Random123's idioms at the clang/NVRTC seam: incr() (a defaulted argument, returns *this)
    # and mulhilo64's uint64_t *hip (clang: unsigned long, NVRTC: unsigned long long).
    import numpy as np
    from numba import cuda, types

    sys.path.insert(0, case["tests"])
    from support import link_kernel_to_cubin

    a, b = 0xFFFFFFFF00000001, 0x100000003

    def idioms(out):
        counter = module.r123array2x64()
        counter.incr()
        counter.incr(np.uint64(2))
        out[0] = counter.front()
        out[1] = module.mulhilo64(np.uint64(a), np.uint64(b), out[2:])

    link_kernel_to_cubin(idioms, (types.uint64[::1],))
    seen["idioms"] = "linked"
    if case.get("kat"):
        out = cuda.to_device(np.zeros(3, dtype=np.uint64))
        cuda.jit(idioms)[1, 1](out)
        got = [int(v) for v in out.copy_to_host()]
        want = [3, (a * b) % 2**64, (a * b) >> 64]
        seen["idioms"] = "numbers ok" if got == want else f"wrong: {got} != {want}"
print("RESULT " + json.dumps(seen))
"""


def cases(random123: str | None, gpu: bool) -> list[dict]:
    sys.path.insert(0, str(ROOT / "src"))
    from ast_canopy.toolkit import cudart_include_dir

    found = [
        {"name": "cg", "header": os.path.join(cudart_include_dir(), "cooperative_groups.h"),
         "options": {}},
        {"name": "rejected", "header": str(ROOT / "tests" / "data" / "nvrtc" / "rejected.cuh"),
         "options": {}},
    ]  # fmt: skip
    spec = importlib.util.find_spec("cutlass_library")
    if spec is not None and spec.submodule_search_locations:
        include = os.path.join(next(iter(spec.submodule_search_locations)), "source", "include")
        retain = [os.path.join(include, "cutlass", n) for n in ("half.h", "complex.h",
                                                                 "numeric_types.h")]  # fmt: skip
        found.append(
            {"name": "cutlass", "header": str(ROOT / "tests" / "data" / "nvrtc" /
                                               "cutlass_types.cuh"),
             "options": {"include_dirs": [include], "retain": retain}}
        )  # fmt: skip
    if random123:
        include = os.path.join(random123, "include")
        defines = ["R123_STATIC_INLINE=static inline", "R123_FORCE_INLINE(decl)=decl"]
        for header in ("philox.h", "threefry.h"):
            found.append(
                {"name": header.split(".")[0],
                 "header": os.path.join(include, "Random123", header),
                 "options": {"include_dirs": [include], "defines": defines,
                             "retain": [os.path.join(include, "Random123", "array.h")]},
                 "kat": gpu and header == "philox.h", "idioms": header == "philox.h",
                 "tests": str(ROOT / "tests")}
            )  # fmt: skip
    return found


def run(case: dict) -> dict:
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, NUMBAST_CACHE_DIR=cache, NUMBAST_IMPORT_ARCH="sm_90",
                   NUMBAST_IMPORT_QUIET="1")  # fmt: skip
        done = subprocess.run(
            [sys.executable, "-c", CHILD, json.dumps(case)],
            env=env, cwd=cache, capture_output=True, text=True, check=False,
        )  # fmt: skip
    for line in done.stdout.splitlines():
        if line.startswith("RESULT "):
            return json.loads(line[len("RESULT ") :])
    return {"error": (done.stderr.strip().splitlines() or ["no output"])[-1]}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--random123", help="a Random123 checkout (holding include/Random123)")
    parser.add_argument("--gpu", action="store_true", help="run Random123's Philox KAT")
    parser.add_argument("--only", nargs="*", help="case names (cg rejected cutlass philox ...)")
    options = parser.parse_args(argv)
    todo = [c for c in cases(options.random123, options.gpu)
            if not options.only or c["name"] in options.only]  # fmt: skip
    results: dict[str, list[dict]] = {case["name"]: [] for case in todo}
    for _ in range(options.runs):
        for case in todo:
            results[case["name"]].append(run(case))
    print(f"{'case':10s} {'import s':>9s} {'shims s':>8s} {'ref s':>6s} {'ratio':>6s} "
          f"{'compiles':>8s} {'shims':>6s} {'rejected':>8s}  default-device")  # fmt: skip
    for name, runs in results.items():
        good = [r for r in runs if "error" not in r]
        if not good:
            print(f"{name:10s} failed: {runs[0]['error']}")
            continue

        def median(key: str, rows: list[dict] = good) -> float:
            return statistics.median(r[key] for r in rows)

        ratio = statistics.median(r["shims"] / r["reference"] for r in good)
        last = good[-1]
        print(
            f"{name:10s} {median('import'):9.2f} {median('shims'):8.2f} "
            f"{median('reference'):6.2f} {ratio:6.2f} {last['compiles']:8d} {last['count']:6d} "
            f"{last['rejected']:8d}  {last['default_device']}"
            + (f"  KAT {last['kat']}" if "kat" in last else "")
            + (f"  incr/mulhilo64 {last['idioms']}" if "idioms" in last else "")
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

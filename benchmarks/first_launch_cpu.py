"""The CPU side of the demo kernel's warm first launch, against plain Numba (no GPU needed).

``benchmarks/first_launch.py`` times the first launch on a GPU. Most of it is CPU work that
this machine can do without one: importing, the typing context's refresh (where our deferred
registrations run), typing and lowering the kernel, NVVM, and linking with nvJitLink. Here each
variant is a fresh process that imports, compiles the kernel to LTO-IR for sm_90
(``cuda.compile_all``: refresh, typing, lowering, NVVM) and links it with what it collected into
a cubin (nvJitLink, LTO), timing each phase in CPU seconds (``time.process_time``):

- ``plain``: the demo arithmetic in float64 with Numba alone (nothing to link but the kernel);
- ``ours``: the demo kernel of ``first_launch.py`` through ``import cuda_headers.demo`` from a
  filled import cache (the kernel's LTO-IR linked with the cached shim LTO-IR).

Not timed here: the CUDA context, the module load, the launch, and for plain Numba the driver's
own PTX link (it gives Numba PTX, not LTO-IR): so ``plain`` is what plain Numba's first launch
pays on the CPU at the least. ``--reference DIR`` times another checkout's ``ours`` too,
interleaved, with its own cache.

    python benchmarks/first_launch_cpu.py [--runs 9] [--reference OTHER_CHECKOUT]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from warm_path import PYPROJECT  # the demo header's mapping (run from benchmarks/)

ROOT = Path(__file__).resolve().parent.parent

PROBE = """
import json, os, time
def clock():
    times = os.times()
    return time.process_time() + times.children_user + times.children_system
T0 = clock()
import math
from numba import cuda, types
T1 = clock()
{bindings}
T2 = clock()

def kernel(arr):
{body}

codes, _ = cuda.compile_all(kernel, (types.float64[:],), device=False, abi="numba", cc=(9, 0),
                            output="ltoir")
T3 = clock()
from cuda.core import Linker, LinkerOptions, ObjectCode

def ltoir(code):
    if isinstance(code, (bytes, bytearray)):
        return bytes(code)
    for attribute in ("code", "data"):
        data = getattr(code, attribute, None)
        if isinstance(data, (bytes, bytearray)):
            return bytes(data)
    raise TypeError(type(code))

objects = [ObjectCode.from_ltoir(ltoir(c), name=f"part{{i}}") for i, c in enumerate(codes)]
cubin = Linker(*objects, options=LinkerOptions(arch="sm_90", link_time_optimization=True)).link(
    "cubin"
).code
T4 = clock()
assert cubin
print("PHASES " + json.dumps({{"numba": T1 - T0, "bindings": T2 - T1, "compile": T3 - T2,
                               "link": T4 - T3, "objects": len(objects)}}))
"""
PLAIN = PROBE.format(
    bindings="",
    body="    three = 1.0 + 2.0\n    arr[0] = three\n    arr[1] = math.sqrt(three)",
)
OURS = PROBE.format(
    bindings="import cuda_headers.demo as demo\nmyfloat16, hsqrt = demo.__myfloat16, demo.hsqrt",
    body=(
        "    three = myfloat16(1.0) + myfloat16(2.0)\n"
        "    arr[0] = types.float64(three)\n"
        "    arr[1] = types.float64(hsqrt(three))"
    ),
)
PHASES = ("numba", "bindings", "compile", "link")


def run(code: str, cwd: Path, env: dict[str, str]) -> dict:
    done = subprocess.run([sys.executable, "-c", code], cwd=cwd, env=env, capture_output=True,
                          text=True)  # fmt: skip
    if done.returncode != 0:
        raise SystemExit(f"failed with PYTHONPATH={env.get('PYTHONPATH')}:\n{done.stderr[-3000:]}")
    line = next(ln for ln in done.stdout.splitlines() if ln.startswith("PHASES "))
    return json.loads(line.removeprefix("PHASES "))


def environment(scratch: Path, name: str, tree: Path | None) -> tuple[Path, dict[str, str]]:
    project = scratch / name
    project.mkdir()
    shutil.copy(ROOT / "examples" / "demo.cuh", project / "demo.cuh")
    (project / "pyproject.toml").write_text(PYPROJECT)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.update(NUMBAST_CACHE_DIR=str(project / "cache"), NUMBAST_IMPORT_ARCH="sm_90")
    env["NUMBAST_IMPORT_QUIET"] = "1"
    if tree is not None:
        env["PYTHONPATH"] = os.pathsep.join((str(tree / "src"), str(tree)))
    return project, env


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--reference", type=Path, help="another checkout, timed interleaved")
    options = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as scratch_name:
        scratch = Path(scratch_name)
        variants: dict[str, tuple[str, Path, dict[str, str]]] = {}
        this = ROOT if options.reference is not None else None
        variants["plain"] = (PLAIN, *environment(scratch, "plain", this))
        variants["ours"] = (OURS, *environment(scratch, "ours", this))
        if options.reference is not None:
            reference = options.reference.resolve()
            variants["ours (reference)"] = (OURS, *environment(scratch, "reference", reference))
        for code, cwd, env in variants.values():  # fill the caches and the .pyc files
            run(code, cwd, env)
            run(code, cwd, env)
        samples: dict[str, dict[str, list[float]]] = {
            name: {phase: [] for phase in (*PHASES, "total")} for name in variants
        }
        for _ in range(options.runs):
            for name, (code, cwd, env) in variants.items():
                phases = run(code, cwd, env)
                for phase in PHASES:
                    samples[name][phase].append(phases[phase])
                samples[name]["total"].append(sum(phases[p] for p in PHASES))
    print(f"CPU seconds, fresh processes, medians of {options.runs}")
    print(f"  {'':18s}" + "".join(f"{phase:>10s}" for phase in (*PHASES, "total")))
    medians = {
        name: {phase: statistics.median(values) for phase, values in phases.items()}
        for name, phases in samples.items()
    }
    for name, phases in medians.items():
        print(f"  {name:18s}" + "".join(f"{phases[p]:10.4f}" for p in (*PHASES, "total")))
    # Differences within each round (the same load), their medians: import numba.cuda is the
    # same code in every variant, so its difference shows the noise.
    for name in medians:
        if name != "plain":
            pairs = {
                phase: zip(samples[name][phase], samples["plain"][phase], strict=True)
                for phase in (*PHASES, "total")
            }
            beyond = {phase: statistics.median(a - b for a, b in p) for phase, p in pairs.items()}
            ours = statistics.median(
                sum(samples[name][p][i] - samples["plain"][p][i] for p in PHASES[1:])
                for i in range(options.runs)
            )
            shown = ", ".join(f"{p} {v:+.4f}" for p, v in beyond.items())
            print(f"{name} beyond plain, medians of the rounds' differences: {shown}")
            print(f"  after import numba.cuda (bindings + compile + link): {ours:+.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

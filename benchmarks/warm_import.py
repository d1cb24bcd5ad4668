"""Warm import of a built-in header module on top of ``import numba.cuda`` (CPU; no GPU needed).

Fresh processes, interleaved, medians of N (default 9), timed inside each process:

- ``import``: ``import numbast.headers.cufp16`` (cuda_fp16.h: ~300 bindings) with the import
  cache filled, after ``import numba.cuda`` (the issue-9 target: under 0.10 s);
- ``import + registration``: the same, then the CUDA typing context's refresh, which Numba does
  before it types or loads any kernel: the module's deferred registrations run there, along
  with numba-cuda's own lazy imports, so it is compared with the refresh alone (``refresh``).

The cache is built once in a temporary directory before timing (NUMBAST_IMPORT_ARCH=sm_90).
``--clock cpu`` times CPU seconds instead (the process's, ``time.process_time``, nanosecond
resolution, plus its finished children's from ``os.times``): on a machine shared with other
work, wall time measures the load as much as the import. ``--reference DIR`` times another
checkout too (e.g. the commit before a change), interleaved with this one, each with its own
cache, and prints the ratios.

    python benchmarks/warm_import.py [--runs 9] [--module numbast.headers.cufp16] [--clock cpu]
                                     [--reference OTHER_CHECKOUT]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]

PROBE = """
import json, os, time
clock = {clock}
start = clock()
import numba.cuda
numba_done = clock()
{body}
end = clock()
print(json.dumps({{"numba": numba_done - start, "rest": end - numba_done}}))
"""
CLOCKS = {
    "wall": "time.perf_counter",
    "cpu": "lambda: time.process_time() + os.times().children_user + os.times().children_system",
}
REFRESH = "from numba.cuda.descriptor import cuda_target\ncuda_target.typing_context.refresh()"
VARIANTS = {
    "refresh": REFRESH,
    "import": "import {module}",
    "import + registration": "import {module}\n" + REFRESH,
}


def run(body: str, env: dict[str, str], clock: str = "wall") -> dict[str, float]:
    done = subprocess.run(
        [sys.executable, "-c", PROBE.format(body=body, clock=CLOCKS[clock])],
        env=env,
        cwd=env["NUMBAST_CACHE_DIR"] + "-cwd",  # not a checkout: python -c imports from the cwd
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        raise SystemExit(f"failed with PYTHONPATH={env.get('PYTHONPATH')}:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def _environment(cache: str, tree: Path | None) -> dict[str, str]:
    env = dict(os.environ, NUMBAST_CACHE_DIR=cache, NUMBAST_IMPORT_ARCH="sm_90")
    env["NUMBAST_IMPORT_QUIET"] = "1"
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # an installed package has its .pyc files
    env.pop("NUMBAST_CACHE_PATH", None)
    if tree is not None:
        # In front of what the shell gives (the dependencies may be installed there, as on the
        # GPU machine: .gpu/run.sh's /tmp/site).
        inherited = [path for path in env.get("PYTHONPATH", "").split(os.pathsep) if path]
        env["PYTHONPATH"] = os.pathsep.join([str(tree / "src"), str(tree), *inherited])
    return env


def _report(label: str, runs: int, unit: str, numba: list, samples: dict) -> dict:
    medians = {name: statistics.median(values) for name, values in samples.items()}
    print(f"{label}; fresh processes, medians of {runs}, {unit}")
    print(f"  import numba.cuda            {statistics.median(numba):.4f}")
    for name, value in medians.items():
        print(f"  + {name:26s} {value:.4f}")
    registration = medians["import + registration"] - medians["refresh"]
    print(f"warm import on top of numba.cuda: {medians['import']:.4f} s (target < 0.10)")
    print(f"import and registration beyond numba's own refresh: {registration:.4f} s")
    return {**medians, "registration": registration}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--module", default="numbast.headers.cufp16")
    parser.add_argument("--clock", choices=sorted(CLOCKS), default="wall")
    parser.add_argument("--reference", type=Path, help="another checkout, timed interleaved")
    options = parser.parse_args(argv)
    # None: the packages as this interpreter finds them (this checkout's PYTHONPATH or install)
    trees: dict[str, Path | None] = {"this tree": None}
    if options.reference is not None:
        trees["this tree"] = HERE
        trees["reference"] = options.reference.resolve()
    with tempfile.TemporaryDirectory() as tmp:
        envs = {}
        for name, tree in trees.items():
            envs[name] = _environment(os.path.join(tmp, name.replace(" ", "-")), tree)
            os.mkdir(envs[name]["NUMBAST_CACHE_DIR"] + "-cwd")
            run(f"import {options.module}", envs[name])  # build the entry
            run(f"import {options.module}", envs[name])  # and settle it (stamps, memos, .pyc)
        samples = {tree: {name: [] for name in VARIANTS} for tree in trees}
        numba: dict[str, list[float]] = {tree: [] for tree in trees}
        for _ in range(options.runs):
            for tree in trees:
                for name, body in VARIANTS.items():
                    measured = run(body.format(module=options.module), envs[tree], options.clock)
                    samples[tree][name].append(measured["rest"])
                    numba[tree].append(measured["numba"])
    unit = "seconds" if options.clock == "wall" else "CPU seconds"
    medians = {
        tree: _report(
            f"{options.module}, warm, {tree}", options.runs, unit, numba[tree], samples[tree]
        )  # fmt: skip
        for tree in trees
    }
    if options.reference is not None:
        for what in ("import", "registration"):
            new, old = medians["this tree"][what], medians["reference"][what]
            print(f"{what}: {new:.4f} vs {old:.4f} reference ({new / old:.2f}x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Warm import of a built-in header module on top of ``import numba.cuda`` (CPU; no GPU needed).

Fresh processes, interleaved, medians of N (default 9), timed inside each process:

- ``import``: ``import numbast.headers.cufp16`` (cuda_fp16.h: ~300 bindings) with the import
  cache filled, after ``import numba.cuda`` (the issue-9 target: under 0.10 s);
- ``import + registration``: the same, then the CUDA typing context's refresh, which Numba does
  before it types or loads any kernel: the module's deferred registrations run there, along
  with numba-cuda's own lazy imports, so it is compared with the refresh alone (``refresh``).

The cache is built once in a temporary directory before timing (NUMBAST_IMPORT_ARCH=sm_90).
``--clock cpu`` times CPU seconds instead (the process's and its finished children's, from
``os.times``): on a machine shared with other work, wall time measures the load as much as the
import.

    python benchmarks/warm_import.py [--runs 9] [--module numbast.headers.cufp16] [--clock cpu]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

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
CLOCKS = {"wall": "time.perf_counter", "cpu": "lambda: sum(os.times()[:4])"}
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
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--module", default="numbast.headers.cufp16")
    parser.add_argument("--clock", choices=sorted(CLOCKS), default="wall")
    options = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, NUMBAST_CACHE_DIR=cache, NUMBAST_IMPORT_ARCH="sm_90")
        env["NUMBAST_IMPORT_QUIET"] = "1"
        env.pop("PYTHONDONTWRITEBYTECODE", None)  # an installed package has its .pyc files
        run(f"import {options.module}", env)  # build the entry
        run(f"import {options.module}", env)  # and settle it (stamps, memos, .pyc files)
        samples: dict[str, list[float]] = {name: [] for name in VARIANTS}
        numba: list[float] = []
        for _ in range(options.runs):
            for name, body in VARIANTS.items():
                measured = run(body.format(module=options.module), env, options.clock)
                samples[name].append(measured["rest"])
                numba.append(measured["numba"])
    medians = {name: statistics.median(values) for name, values in samples.items()}
    unit = "seconds" if options.clock == "wall" else "CPU seconds"
    print(f"{options.module}, warm; fresh processes, medians of {options.runs}, {unit}")
    print(f"  import numba.cuda            {statistics.median(numba):.3f}")
    for name, value in medians.items():
        print(f"  + {name:26s} {value:.3f}")
    registration = medians["import + registration"] - medians["refresh"]
    print(f"warm import on top of numba.cuda: {medians['import']:.3f} s (target < 0.10)")
    print(f"import and registration beyond numba's own refresh: {registration:.3f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Where a warm bindings import spends its time beyond plain Numba (CPU; no GPU needed).

A kernel loaded from numba-cuda's cache costs a process ``import numba.cuda`` and the target
context's refresh (numba-cuda's registries: the same modules a bindings import needs). On top of
that, a kernel calling bindings pays the warm import of its header module. Fresh processes,
medians of N (default 7):

- ``numba``: ``import numba.cuda`` and the refresh;
- ``+ demo``: the same, then ``import cuda_headers.demo`` from a filled import cache;
- ``+ cufp16``: the same with ``import numbast.headers.cufp16`` (cuda_fp16.h, ~300 bindings).

Then, once per module and under cProfile (so slower than the medians, but in proportion), the
cumulative time of the import's parts: finding the mapping (``finder``), the entry key
(``entry_key``: config, included-file hashes, generator fingerprint), the lookup, running the
cached module (``run_entry``: compiling its source, executing it), and inside that the runtime's
registration (``apply_module``); and the import of ``ast_canopy`` wherever it happens.

    python benchmarks/warm_path.py [--runs 7]
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

ROOT = Path(__file__).resolve().parent.parent
REFRESH = (
    "import numba.cuda\n"
    "from numba.cuda.descriptor import cuda_target\n"
    "cuda_target.target_context.refresh()\n"
)
MODULES = {"+ demo": "cuda_headers.demo", "+ cufp16": "numbast.headers.cufp16"}
PARTS = {
    "finder": "numbast_import/finder.py:find_spec",
    "entry_key": "numbast_import/entry_key.py:entry_key",
    "lookup": "numbast_import/cache/store.py:lookup",
    "run_entry": "numbast_import/entry_context.py:run_entry",
    "apply_module": "numbast/runtime/apply.py:apply_module",
    "ast_canopy import": "ast_canopy/__init__.py:<module>",
}
PROFILE = """
import cProfile, json, pstats, time
{refresh}
profile = cProfile.Profile()
start = time.perf_counter()
profile.runcall(__import__, {module!r})
total = time.perf_counter() - start
stats = pstats.Stats(profile).stats
parts = {{}}
for (path, _line, name), (_cc, _nc, _tt, cumulative, _callers) in stats.items():
    for label, where in {parts!r}.items():
        file, function = where.split(":")
        if path.endswith(file) and name == function:
            parts[label] = parts.get(label, 0.0) + cumulative
print("PARTS " + json.dumps(dict(parts, total=total)))
"""

PYPROJECT = """\
[tool.numbast-import]
arch = "sm_90"

[tool.numbast-import.headers.demo]
header = "demo.cuh"
types = { __myfloat16 = "Number" }
data-models = { __myfloat16 = "PrimitiveModel" }
"""


def run(code: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", code], cwd=cwd, env=env, check=True, capture_output=True, text=True
    )


def timed(code: str, cwd: Path, env: dict[str, str]) -> float:
    import time

    start = time.perf_counter()
    run(code, cwd, env)
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    runs = parser.parse_args(argv).runs
    with tempfile.TemporaryDirectory() as scratch_name:
        scratch = Path(scratch_name)
        shutil.copy(ROOT / "examples" / "demo.cuh", scratch / "demo.cuh")
        (scratch / "pyproject.toml").write_text(PYPROJECT)
        # .pyc files as users have them (a PYTHONDONTWRITEBYTECODE shell would compile every
        # module from source in every process).
        inherited = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env = dict(
            inherited,
            NUMBAST_CACHE_DIR=str(scratch / "cache"),
            NUMBAST_IMPORT_ARCH="sm_90",
            NUMBAST_IMPORT_QUIET="1",
        )
        codes = {"numba": REFRESH}
        codes.update({name: f"{REFRESH}import {module}\n" for name, module in MODULES.items()})
        for code in codes.values():  # fill the import cache and the .pyc files
            run(code, scratch, env)
        times: dict[str, list[float]] = {name: [] for name in codes}
        for _ in range(runs):
            for name, code in codes.items():
                times[name].append(timed(code, scratch, env))
        medians = {name: statistics.median(values) for name, values in times.items()}
        print(f"fresh processes, medians of {runs} (s)")
        for name, median in medians.items():
            extra = "" if name == "numba" else f"   ({median - medians['numba']:+.3f} s)"
            print(f"  {name:10s} {median:6.3f}{extra}")
        for module in MODULES.values():
            code = PROFILE.format(refresh=REFRESH, module=module, parts=PARTS)
            line = next(
                ln for ln in run(code, scratch, env).stdout.splitlines() if ln.startswith("PARTS ")
            )
            parts = json.loads(line.removeprefix("PARTS "))
            shown = ", ".join(f"{label} {parts.get(label, 0.0):.3f}" for label in PARTS)
            print(f"{module} under cProfile: total {parts['total']:.3f} s: {shown}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

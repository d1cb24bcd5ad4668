"""A cold import of a large generated header (issue 23, point 12): time per stage and peak
memory, at several sizes, to show that the import grows linearly with the header and stays
under its memory bound.

The header is ``benchmarks/generated_header.py``'s (blocks of the declarations real device
headers have; 8000 blocks is about 6 MB). Each size is imported cold in a fresh process
(NUMBAST_IMPORT_ARCH=sm_90, an empty cache), which reports, measured inside it:

- ``parse``: ``ast_canopy.parse_declarations_from_source``;
- ``plan+render``: the rest of rendering the bindings module (planning rows, writing them);
- ``shims``: compiling the shims to LTO-IR (NVRTC);
- ``probes``: compiling the template probes for coverage (NVRTC);
- ``total``: the whole ``import`` statement (also storing the entry and running the module);
- ``peak``: the process's peak resident memory (VmHWM), after each stage and at the end;

then a warm import of the same header in another fresh process.

    python benchmarks/generated_import.py [--blocks 1700,3400,6800] [--runs 1]
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

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from generated_header import write_header  # noqa: E402

PROBE = r"""
import json, sys, time

def peak_mb():
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return 0.0

stages, peaks = {}, {}

def timed(module, name, stage):
    import importlib
    target = importlib.import_module(module)
    original = getattr(target, name)
    def wrapper(*args, **kwargs):
        start = time.perf_counter()
        try:
            return original(*args, **kwargs)
        finally:
            stages[stage] = stages.get(stage, 0.0) + time.perf_counter() - start
            peaks[stage] = peak_mb()
    setattr(target, name, wrapper)

timed("ast_canopy", "parse_declarations_from_source", "parse")
timed("numbast.static.renderer", "render_bindings", "render")
timed("numbast_import.shim_compiler", "compile_shims_to_ltoir", "shims")
timed("numbast_import.template_coverage", "compile_template_probes", "probes")
start = time.perf_counter()
import cuda_headers.big as big
total = time.perf_counter() - start
stages["plan+render"] = stages.pop("render", 0.0) - stages.get("parse", 0.0)
print(json.dumps({"stages": stages, "peaks": peaks, "total": total, "peak": peak_mb(),
                  "names": len(big.__all__), "file": big.__file__}))
"""

WARM = r"""
import json, time
start = time.perf_counter()
import cuda_headers.big
print(json.dumps({"total": time.perf_counter() - start}))
"""


def run(code: str, project: Path, cache: Path) -> dict:
    env = {**os.environ, "NUMBAST_CACHE_DIR": str(cache), "NUMBAST_IMPORT_ARCH": "sm_90"}
    env["NUMBAST_IMPORT_QUIET"] = "1"
    env.pop("NUMBAST_CACHE_PATH", None)
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=project, env=env, capture_output=True, text=True
    )
    if done.returncode != 0:
        raise SystemExit(f"the import failed:\n{done.stderr[-4000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def measure(blocks: int, runs: int) -> dict:
    results, warm = [], []
    for _ in range(runs):
        with tempfile.TemporaryDirectory() as tmp:
            project = Path(tmp)
            header = write_header(project / "big.cuh", blocks)
            (project / "pyproject.toml").write_text(
                '[tool.numbast-import]\narch = "sm_90"\n\n[tool.numbast-import.headers]\n'
                'big = "big.cuh"\n'
            )
            size = header.stat().st_size
            results.append(run(PROBE, project, project / "cache"))
            warm.append(run(WARM, project, project / "cache")["total"])
    stages = {
        stage: statistics.median(r["stages"].get(stage, 0.0) for r in results)
        for stage in ("parse", "plan+render", "shims", "probes")
    }
    return {
        "blocks": blocks,
        "megabytes": round(size / 1e6, 2),
        "names": results[0]["names"],
        "stages_s": {k: round(v, 2) for k, v in stages.items()},
        "total_s": round(statistics.median(r["total"] for r in results), 2),
        "peak_mb": round(max(r["peak"] for r in results)),
        "peak_after_mb": {k: round(v) for k, v in results[0]["peaks"].items()},
        "warm_s": round(statistics.median(warm), 3),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--blocks", default="1700,3400,6800", help="sizes, comma-separated")
    parser.add_argument("--runs", type=int, default=1)
    options = parser.parse_args(argv)
    rows = [measure(int(b), options.runs) for b in options.blocks.split(",")]
    print(json.dumps(rows, indent=1))
    print(f"{'blocks':>7} {'MB':>5} {'parse':>7} {'plan+r':>7} {'shims':>7} {'probes':>7} "
          f"{'total':>7} {'ms/blk':>7} {'peak MB':>8} {'warm':>6}")  # fmt: skip
    for row in rows:
        s = row["stages_s"]
        print(
            f"{row['blocks']:>7} {row['megabytes']:>5} {s['parse']:>7} {s['plan+render']:>7} "
            f"{s['shims']:>7} {s['probes']:>7} {row['total_s']:>7} "
            f"{1000 * row['total_s'] / row['blocks']:>7.2f} {row['peak_mb']:>8} "
            f"{row['warm_s']:>6}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())

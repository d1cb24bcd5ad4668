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
- ``child``: the peak of the child process that parses, plans and renders a big header
  (``numbast_import.build_process``; 0 when the header was parsed in the importer), and
  ``both``: that peak plus what the importer held while the child ran (the two at once);

then a warm import of the same header in another fresh process. ``--reference CHECKOUT``
measures another checkout of this repository too (its ``src`` and root first on PYTHONPATH),
interleaved run by run, so that a change is judged against the code before it on one machine
at one time (medians of ``--runs``; a small header, ``--blocks 20``, for the cost of a cold
import of an everyday header).

    python benchmarks/generated_import.py [--blocks 1700,3400,6800] [--runs 1] [--reference DIR]
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

def rss_mb():
    for line in open("/proc/self/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0

stages, peaks, held = {}, {}, {}

def timed(module, name, stage):
    import importlib
    try:
        target = importlib.import_module(module)
    except ModuleNotFoundError:  # an older tree (--reference) without it
        return
    original = getattr(target, name)
    def wrapper(*args, **kwargs):
        held.setdefault(stage, rss_mb())  # what this process holds as the stage starts
        start = time.perf_counter()
        try:
            return original(*args, **kwargs)
        finally:
            stages[stage] = stages.get(stage, 0.0) + time.perf_counter() - start
            peaks[stage] = peak_mb()
    setattr(target, name, wrapper)

timed("ast_canopy", "parse_declarations_from_source", "parse")
timed("numbast.static.renderer", "render_bindings", "render")
timed("numbast_import.build_process", "render_in_child", "child")
timed("numbast_import.shim_compiler", "compile_shims_to_ltoir", "shims")
timed("numbast_import.template_coverage", "compile_template_probes", "probes")
start = time.perf_counter()
import cuda_headers.big as big
total = time.perf_counter() - start
stages["plan+render"] = stages.pop("render", 0.0) - stages.get("parse", 0.0)
import resource
# A child that parsed, planned and rendered (numbast_import.build_process): its peak, and what
# this process held while it ran (the two were alive at once).
# (Only when the child ran: other children, such as a device query, count in ru_maxrss too.)
child = 0.0
if "child" in stages:
    stages["plan+render"] = stages.pop("child")
    child = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
print(json.dumps({"stages": stages, "peaks": peaks, "total": total, "peak": peak_mb(),
                  "child_peak": child, "held_at_child": held.get("child", 0.0),
                  "names": len(big.__all__), "file": big.__file__}))
"""

WARM = r"""
import json, time
start = time.perf_counter()
import cuda_headers.big
print(json.dumps({"total": time.perf_counter() - start}))
"""


def run(code: str, project: Path, cache: Path, tree: Path | None = None) -> dict:
    env = {**os.environ, "NUMBAST_CACHE_DIR": str(cache), "NUMBAST_IMPORT_ARCH": "sm_90"}
    if tree is not None:
        env["PYTHONPATH"] = os.pathsep.join([str(tree / "src"), str(tree)])
    env["NUMBAST_IMPORT_QUIET"] = "1"
    env.pop("NUMBAST_CACHE_PATH", None)
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=project, env=env, capture_output=True, text=True
    )
    if done.returncode != 0:
        raise SystemExit(f"the import failed:\n{done.stderr[-4000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def measure(blocks: int, runs: int, tree: Path | None = None) -> dict:
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
            results.append(run(PROBE, project, project / "cache", tree))
            warm.append(run(WARM, project, project / "cache", tree)["total"])
    stages = {
        stage: statistics.median(r["stages"].get(stage, 0.0) for r in results)
        for stage in ("parse", "plan+render", "shims", "probes")
    }
    return {
        "tree": "this" if tree is None else str(tree),
        "blocks": blocks,
        "megabytes": round(size / 1e6, 2),
        "names": results[0]["names"],
        "stages_s": {k: round(v, 2) for k, v in stages.items()},
        "total_s": round(statistics.median(r["total"] for r in results), 2),
        "peak_mb": round(max(r["peak"] for r in results)),
        "child_peak_mb": round(max(r["child_peak"] for r in results)),
        "together_mb": round(max(r["child_peak"] + r["held_at_child"] for r in results)),
        "peak_after_mb": {k: round(v) for k, v in results[0]["peaks"].items()},
        "warm_s": round(statistics.median(warm), 3),
    }


def _median_row(measured: list[dict]) -> dict:
    """One row of runs measured alike: medians of the times, the largest peak."""
    row = dict(measured[0])
    row["stages_s"] = {
        stage: round(statistics.median(m["stages_s"][stage] for m in measured), 2)
        for stage in row["stages_s"]
    }
    for name in ("total_s", "warm_s"):
        row[name] = round(statistics.median(m[name] for m in measured), 3)
    for name in ("peak_mb", "child_peak_mb", "together_mb"):
        row[name] = max(m[name] for m in measured)
    row["runs"] = len(measured)
    return row


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--blocks", default="1700,3400,6800", help="sizes, comma-separated")
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--reference", type=Path, help="another checkout, measured alike")
    options = parser.parse_args(argv)
    trees = [None] if options.reference is None else [None, options.reference.resolve()]
    rows = []
    for blocks in options.blocks.split(","):
        by_tree: dict = {tree: [] for tree in trees}
        for run_number in range(options.runs):  # interleaved: load changes alike for both
            # in turn first: the first of a pair ran ~0.3 s slower (2 s imports, load ~4)
            for tree in trees if run_number % 2 == 0 else trees[::-1]:
                by_tree[tree].append(measure(int(blocks), 1, tree))
        rows += [_median_row(measured) for measured in by_tree.values()]
    print(json.dumps(rows, indent=1))
    print(f"{'tree':>6} {'blocks':>7} {'MB':>5} {'parse':>7} {'plan+r':>7} {'shims':>7} "
          f"{'probes':>7} {'total':>7} {'ms/blk':>7} {'peak MB':>8} {'child':>6} "
          f"{'both':>6} {'warm':>6}")  # fmt: skip
    for row in rows:
        s = row["stages_s"]
        print(
            f"{row['tree'][-6:]:>6} {row['blocks']:>7} {row['megabytes']:>5} {s['parse']:>7} "
            f"{s['plan+render']:>7} {s['shims']:>7} {s['probes']:>7} {row['total_s']:>7} "
            f"{1000 * row['total_s'] / row['blocks']:>7.2f} {row['peak_mb']:>8} "
            f"{row['child_peak_mb']:>6} {row['together_mb']:>6} "
            f"{row['warm_s']:>6}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())

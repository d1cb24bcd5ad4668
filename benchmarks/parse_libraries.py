"""The parser on real device libraries and on big generated headers (``benchmarks/parse.py``'s
``--libraries`` and ``--generated`` modes).

``--libraries``: CUB's block and warp primitives (one wrapper header including block_reduce,
block_scan, block_load, block_store, block_radix_sort and warp_reduce; cub/block and cub/warp
retained), libcu++'s <cuda/std/complex>, <cuda/std/bit> and <cuda/std/limits> (cuda/std
retained), cooperative_groups.h, math_constants.h and sm_32_intrinsics.h from the CUDA wheels;
CUTLASS's numeric_types.h and complex.h (``--cutlass DIR``, default: the ``nvidia-cutlass``
package's headers when installed) and Random123's philox.h and threefry.h (``--random123 DIR``:
its include directory). For each: the median parse time with the prelude built, the clang
diagnostics at every severity, and what was found.

``--generated N[,N...]``: ``benchmarks/generated_header.py`` headers of N blocks, each parsed in
a fresh process (peak resident memory is that process's): wall time, peak memory, declarations,
and time per thousand declarations, which stays flat when the parse is linear.
"""

from __future__ import annotations

import importlib.util
import json
import logging
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CUB_PRIMITIVES = (
    "cub/block/block_reduce.cuh",
    "cub/block/block_scan.cuh",
    "cub/block/block_load.cuh",
    "cub/block/block_store.cuh",
    "cub/block/block_radix_sort.cuh",
    "cub/warp/warp_reduce.cuh",
)


def _files_under(*paths: Path) -> list[str]:
    found = []
    for path in paths:
        if path.is_dir():
            found += [str(p) for p in sorted(path.rglob("*")) if p.is_file()]
        elif path.is_file():
            found.append(str(path))
    return found


def _default_cutlass() -> str | None:
    spec = importlib.util.find_spec("cutlass_library")
    if spec is None or spec.origin is None:
        return None
    include = Path(spec.origin).parent / "source" / "include"
    return str(include) if include.is_dir() else None


def library_headers(scratch: Path, cutlass: str | None, random123: str | None) -> list[tuple]:
    """(name, header, retained files, include dirs) for each library found."""
    from cuda.pathfinder import find_nvidia_header_directory

    cccl = Path(find_nvidia_header_directory("cccl"))
    cudart = Path(find_nvidia_header_directory("cudart"))
    cub = scratch / "cub_primitives.cuh"
    cub.write_text("".join(f"#include <{h}>\n" for h in CUB_PRIMITIVES))
    cases = [("cub (block + warp)", cub, _files_under(cccl / "cub/block", cccl / "cub/warp"), [])]
    for name in ("complex", "bit", "limits"):
        wrapper = scratch / f"std_{name}.cuh"
        wrapper.write_text(f"#include <cuda/std/{name}>\n")
        cases.append((f"cuda/std/{name}", wrapper, _files_under(cccl / "cuda/std"), []))
    groups = cudart / "cooperative_groups.h"
    cases.append(
        ("cooperative_groups.h", groups, _files_under(groups, cudart / "cooperative_groups"), [])
    )
    for header in ("math_constants.h", "sm_32_intrinsics.h"):
        cases.append((header, cudart / header, [str(cudart / header)], []))
    cutlass = cutlass or _default_cutlass()
    if cutlass:
        root = Path(cutlass)
        for header in ("numeric_types.h", "complex.h"):
            path = root / "cutlass" / header
            cases.append((f"cutlass/{header}", path, _files_under(root / "cutlass"), [cutlass]))
    if random123:
        root = Path(random123)
        for header in ("philox.h", "threefry.h"):
            path = root / "Random123" / header
            cases.append(
                (f"Random123/{header}", path, _files_under(root / "Random123"), [random123])
            )
    return cases


class _Diagnostics(logging.Handler):
    def __init__(self) -> None:
        super().__init__()
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        message = record.getMessage()
        if any(f": {s}:" in message for s in ("note", "warning", "error", "fatal error")):
            self.lines.append(message)


def time_libraries(args, scratch: Path) -> list[dict]:
    from ast_canopy import parse_declarations_from_source

    handler = _Diagnostics()
    logging.getLogger("ast_canopy").addHandler(handler)
    logging.getLogger("ast_canopy").setLevel(logging.INFO)
    results = []
    for name, header, retained, includes in library_headers(scratch, args.cutlass, args.random123):
        handler.lines.clear()
        parse_declarations_from_source(  # builds the prelude; records the diagnostics
            str(header), retained, args.arch, additional_includes=includes, verbose=True
        )
        diagnostics = list(handler.lines)
        times = []
        for _ in range(args.runs):
            started = time.perf_counter()
            decls = parse_declarations_from_source(
                str(header), retained, args.arch, additional_includes=includes
            )
            times.append(time.perf_counter() - started)
        results.append(
            {
                "library": name,
                "median_s": round(statistics.median(times), 3),
                "min_s": round(min(times), 3),
                "diagnostics": len(diagnostics),
                "first_diagnostics": diagnostics[:3],
                "functions": len(decls.functions),
                "function_templates": len(decls.function_templates),
                "structs": len(decls.structs),
                "class_templates": len(decls.class_templates),
                "macro_constants": len(decls.macro_constants),
                "included_files": len(decls.included_files),
            }
        )
    return results


def print_libraries(results: list[dict]) -> None:
    print(
        f"{'library':<26}{'median':>9}{'min':>8}{'diags':>6}{'fns':>6}{'fn tmpl':>8}"
        f"{'structs':>8}{'cls tmpl':>9}{'macros':>7}{'files':>6}"
    )
    for r in results:
        print(
            f"{r['library']:<26}{r['median_s']:>8.3f}s{r['min_s']:>7.3f}s{r['diagnostics']:>6}"
            f"{r['functions']:>6}{r['function_templates']:>8}{r['structs']:>8}"
            f"{r['class_templates']:>9}{r['macro_constants']:>7}{r['included_files']:>6}"
        )
        for line in r["first_diagnostics"]:
            print(f"    {line}")


# -- generated headers ------------------------------------------------------------------------

_CHILD = """
import json, resource, sys, time
sys.path.insert(0, {benchmarks!r})
from generated_header import write_header
from ast_canopy import parse_declarations_from_source
header = str(write_header({path!r}, {blocks}))
parse_declarations_from_source(header, [header], {arch!r})  # the prelude, imports
started = time.perf_counter()
decls = parse_declarations_from_source(header, [header], {arch!r})
elapsed = time.perf_counter() - started
count = sum(len(v) for k, v in vars(decls).items() if isinstance(v, list) and k != "included_files")
count += sum(len(s.methods) for s in decls.structs)
print(json.dumps({{"seconds": elapsed, "declarations": count,
                  "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}}))
"""


def time_generated(args, scratch: Path) -> list[dict]:
    results = []
    for blocks in args.generated:
        path = scratch / f"generated_{blocks}.cuh"
        code = _CHILD.format(
            benchmarks=str(Path(__file__).parent), path=str(path), blocks=blocks, arch=args.arch
        )
        runs = []
        for _ in range(args.runs):
            done = subprocess.run(
                [sys.executable, "-c", code], capture_output=True, text=True, check=True
            )
            runs.append(json.loads(done.stdout.strip().splitlines()[-1]))
        seconds = statistics.median(r["seconds"] for r in runs)
        declarations = runs[0]["declarations"]
        results.append(
            {
                "blocks": blocks,
                "megabytes": round(path.stat().st_size / 1e6, 2),
                "declarations": declarations,
                "median_s": round(seconds, 2),
                "peak_mb": round(max(r["peak_mb"] for r in runs)),
                "ms_per_1000_declarations": round(1000 * seconds / declarations * 1000, 1),
            }
        )
    return results


def print_generated(results: list[dict]) -> None:
    print(f"{'blocks':>7}{'MB':>7}{'decls':>8}{'median':>9}{'peak':>9}{'ms/1000 decls':>15}")
    for r in results:
        print(
            f"{r['blocks']:>7}{r['megabytes']:>7.2f}{r['declarations']:>8}{r['median_s']:>8.2f}s"
            f"{r['peak_mb']:>7}MB{r['ms_per_1000_declarations']:>15.1f}"
        )


def run(args) -> int:
    """The --libraries / --generated modes of benchmarks/parse.py."""
    with tempfile.TemporaryDirectory(prefix="ast_canopy-bench-") as scratch:
        os.environ["AST_CANOPY_CACHE_DIR"] = str(Path(scratch) / "cache")
        report: dict = {
            "runs": args.runs,
            "arch": args.arch,
            "cpus": os.cpu_count(),
            "load_average": os.getloadavg(),
        }
        if args.libraries:
            report["libraries"] = time_libraries(args, Path(scratch))
        if args.generated:
            report["generated"] = time_generated(args, Path(scratch))
    report["peak_mb_this_process"] = round(
        resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    )
    if args.json:
        print(json.dumps(report, indent=1))
        return 0
    print(
        f"{args.runs} runs, arch {args.arch}, {os.cpu_count()} CPUs, load average "
        + " ".join(f"{x:.2f}" for x in report["load_average"])
    )
    if args.libraries:
        print_libraries(report["libraries"])
    if args.generated:
        print_generated(report["generated"])
    return 0

"""Real libraries through ``import cuda_headers.X`` (issue 20): for each of CUB, libcu++,
cooperative groups, CUTLASS's numeric types and math_constants.h, imported as
docs/libraries.md does (a one-line wrapper header and a ``retain`` list), the declarations
found, bound and left out (by outcome and reason), the cold import (an empty cache, a fresh
process) and the warm one (the entry built, a fresh process), and whether each worked example's
kernel links to a cubin for the arch (``--arch``, default sm_90).

The headline is coverage's: device-callable declarations (functions, operators, methods,
function, class and alias templates) bound / (found - host-only - excluded). Host-only ones
include what a header declares only where ``__CUDACC_RTC__`` is not defined (NVRTC, which
compiles the shims, never sees it); excluded ones, besides the mapping's, are operators a Python
kernel has no syntax for (``=``, ``++``, ``--``, ``!``, literal suffixes) and declarations the
library's own code makes ill-formed (``numbast.static.library_defects``). The headline line says
how many of each it leaves out.

Every import runs in a fresh process (``--child``): the cold one builds the entry into a cache
of its own, the warm ones import from it; times are medians over ``--cold-runs`` and
``--warm-runs``. The libraries, wrappers and kernels are those of the tests
(tests/library_examples.py, tests/cub_support.py), whichever headers the installed toolkit and
nvidia-cutlass ship. CPU only::

    python benchmarks/libraries.py [--cold-runs 1] [--warm-runs 3] [--only libcudacxx,cub]
"""

from __future__ import annotations

import argparse
import collections
import importlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TESTS = Path(__file__).resolve().parent.parent / "tests"


def _libraries() -> dict:
    sys.path.insert(0, str(TESTS))
    import library_examples as ex

    return {"cub": None, **{library.name: library for library in ex.LIBRARIES}}


def _register(name: str, directory: Path) -> str:
    """Map ``cuda_headers.<module>`` for library ``name``; returns the module's name."""
    import numbast_import

    library = _libraries()[name]
    if library is None:
        from cub_support import register_cub

        name = register_cub(directory)
        # A header modified just before its build may have been read half-written (the
        # import then keeps the entry in memory only): this one is complete, date it back.
        past = time.time() - 10
        os.utime(directory / "cub_blocks.cuh", (past, past))
        return name
    header, options = library.mapping(directory)
    numbast_import.register(library.name, str(header), **options)
    return f"cuda_headers.{library.name}"


def _worked_kernels(name: str, module, arch: str) -> dict[str, str]:
    """Each worked example of ``name`` linked to a cubin: "links", or the error's first line."""
    from support import link_kernel_to_cubin

    if name == "cub":
        import cub_support as cs
        from numba.cuda import types

        i32, f32 = types.int32[:], types.float32[:]
        kernels = {
            "reduce": (cs.reduce_kernel, (i32, i32)),
            "scan": (cs.scan_kernel, (i32, i32, i32)),
            "warp_reduce": (cs.warp_kernel, (f32, f32)),
            "load_store_direct": (lambda m: cs.load_store_kernel(m, "DIRECT"), (i32, i32)),
            "load_store_transpose": (
                lambda m: cs.load_store_kernel(m, "WARP_TRANSPOSE"),
                (i32, i32),
            ),
            "sort_int32": (lambda m: cs.sort_kernel(m, types.int32), (i32, i32)),
            "sort_float32": (lambda m: cs.sort_kernel(m, types.float32), (f32, f32)),
            "direct_functions": (cs.direct_functions_kernel, (i32, i32)),
            "load_transform": (cs.transform_kernel, (i32, i32)),
        }
    else:
        import library_examples as ex

        kernels = ex.WORKED[name]
    results = {}
    for label, (make_kernel, signature) in kernels.items():
        try:
            link_kernel_to_cubin(make_kernel(module), signature, arch=arch)
            results[label] = "links"
        except Exception as exc:  # noqa: BLE001 -- reported, the benchmark goes on
            results[label] = f"{type(exc).__name__}: {str(exc).strip().splitlines()[0][:120]}"
    return results


def child(name: str, directory: Path, arch: str, link: bool) -> dict:
    """One import of library ``name`` with the cache under ``directory`` (this process)."""
    os.environ["NUMBAST_CACHE_DIR"] = str(directory / "cache")
    os.environ.setdefault("NUMBAST_IMPORT_ARCH", arch)
    os.environ["NUMBAST_IMPORT_QUIET"] = "1"
    import warnings

    module_name = _register(name, directory)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # what is left out is in the coverage
        start = time.perf_counter()
        module = importlib.import_module(module_name)
        seconds = time.perf_counter() - start
    manifest = json.loads(Path(module.__file__).with_name("manifest.json").read_text())
    result = {"seconds": seconds, "coverage": manifest["coverage"]}
    if link:
        result["kernels"] = _worked_kernels(name, module, arch)
    return result


def _run_child(name: str, directory: Path, arch: str, link: bool) -> dict:
    command = [sys.executable, __file__, "--child", name, "--dir", str(directory), "--arch", arch]
    command += ["--link"] if link else []
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"{name}: the import failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def _reason_head(item: dict) -> str:
    """A left-out declaration's outcome and the first words of its reason (for grouping)."""
    reason = item["reason"].split(": ", 1)[0].split(" (tried", 1)[0][:70]
    return f"{item['outcome']}: {reason}" if reason else item["outcome"]


def measure(name: str, arch: str, cold_runs: int, warm_runs: int) -> dict:
    colds, warms, result = [], [], {}
    for _ in range(cold_runs):
        with tempfile.TemporaryDirectory(prefix=f"libraries-{name}-") as scratch:
            directory = Path(scratch)
            cold = _run_child(name, directory, arch, link=False)
            colds.append(cold["seconds"])
            for run in range(warm_runs):
                warm = _run_child(name, directory, arch, link=run == warm_runs - 1)
                warms.append(warm["seconds"])
            result = warm
    coverage = result["coverage"]
    left_out = collections.Counter(
        _reason_head(item) for counts in coverage["kinds"].values() for item in counts["not_bound"]
    )
    return {
        "library": name,
        "device_callables": coverage["device_callables"],
        "kinds": {
            k: {o: v[o] for o in ("found", "bound", "skipped", "excluded", "host_only")}
            for k, v in coverage["kinds"].items()
        },  # fmt: skip
        "left_out": dict(left_out.most_common()),
        "cold_s": statistics.median(colds),
        "warm_s": statistics.median(warms),
        "kernels": result.get("kernels", {}),
    }


def report(row: dict) -> None:
    callables = row["device_callables"]
    counted = [row["kinds"][k] for k in callables["kinds"] if k in row["kinds"]]
    host_only = sum(counts["host_only"] for counts in counted)
    excluded = sum(counts["excluded"] for counts in counted)
    print(f"\n== {row['library']}: device-callable {callables['bound']} / {callables['found']} "
          f"bound ({callables['percent']}%; not counted: {host_only} host-only, including what "
          f"NVRTC never sees, and {excluded} excluded, by the mapping, for having no Python "
          f"syntax or ill-formed in the library); cold import {row['cold_s']:.2f} s, "
          f"warm {row['warm_s'] * 1e3:.0f} ms")  # fmt: skip
    for kind, counts in sorted(row["kinds"].items()):
        print(f"   {kind:18} found {counts['found']:4}  bound {counts['bound']:4}  "
              f"skipped {counts['skipped']:3}  host-only {counts['host_only']:3}  "
              f"excluded {counts['excluded']:3}")  # fmt: skip
    for reason, count in row["left_out"].items():
        print(f"   left out {count:4}  {reason}")
    for label, outcome in row["kernels"].items():
        print(f"   kernel {label:22} {outcome}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", help="comma-separated libraries (default: all)")
    parser.add_argument("--arch", default="sm_90")
    parser.add_argument("--cold-runs", type=int, default=1)
    parser.add_argument("--warm-runs", type=int, default=3)
    parser.add_argument("--json", help="also write the results here")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--dir", help=argparse.SUPPRESS)
    parser.add_argument("--link", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    sys.path.insert(0, str(TESTS))
    if args.child:
        print(json.dumps(child(args.child, Path(args.dir), args.arch, args.link)))
        return
    names = args.only.split(",") if args.only else list(_libraries())
    rows = []
    for name in names:
        try:
            row = measure(name, args.arch, args.cold_runs, args.warm_runs)
        except (LookupError, RuntimeError) as exc:
            print(f"\n== {name}: not measured: {exc}")
            continue
        report(row)
        rows.append(row)
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()

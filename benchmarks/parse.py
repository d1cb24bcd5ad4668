"""Time ast_canopy's parse + extraction on the CUDA toolkit's own headers.

    python benchmarks/parse.py [--runs 9] [--arch sm_90] [--json]
    python benchmarks/parse.py --libraries [--cutlass DIR] [--random123 DIR] [--runs 5]
    python benchmarks/parse.py --generated 1000,2000,4000,8000 [--runs 3]

(The last two are in benchmarks/parse_libraries.py, which says what they measure.)

For each header (cuda_fp16, cuda_bf16, cuda_fp8, cuda_fp4, and curand_kernel when the cuRAND
headers are installed), with its ``.hpp`` retained, it reports the median wall time of
``parse_declarations_from_source`` over ``--runs`` calls in two modes:

- ``prelude``: the normal path, with the precompiled prelude already in the cache (the state of
  every parse after the first one on a machine);
- ``plain``: ``AST_CANOPY_PRELUDE=0``, clang parses the CUDA runtime wrapper every time (the
  state of the very first parse, less the one-time prelude build, reported separately).

The cache lives in a temporary directory so that the numbers do not depend on what an earlier
run left behind. Counts are distinct device-callable free functions (by mangled name), operator
overloads among them, structs, enums, and function templates.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path


def _headers() -> list[tuple[str, list[str]]]:
    from ast_canopy.toolkit import cudart_include_dir, curand_include_dir

    include = Path(cudart_include_dir())
    found = []
    for name in ("cuda_fp16", "cuda_bf16", "cuda_fp8", "cuda_fp4"):
        header, impl = include / f"{name}.h", include / f"{name}.hpp"
        if header.is_file():
            found.append((str(header), [str(header), str(impl)]))
    curand = curand_include_dir()
    if curand and (Path(curand) / "curand_kernel.h").is_file():
        header = Path(curand) / "curand_kernel.h"
        retain = sorted(str(p) for p in Path(curand).glob("curand*.h"))
        found.append((str(header), retain))
    return found


def _counts(decls) -> dict[str, int]:
    device = [f for f in decls.functions if f.exec_space.is_device_callable]
    return {
        "structs": len(decls.structs),
        "device_functions": len({f.mangled_name for f in device}),
        "operators": len({f.mangled_name for f in device if f.is_operator}),
        "enums": len(decls.enums),
        "function_templates": len(decls.function_templates),
    }


def _time(header: str, retain: list[str], arch: str, runs: int) -> tuple[float, list[float], dict]:
    from ast_canopy import parse_declarations_from_source

    times = []
    decls = None
    for _ in range(runs):
        started = time.perf_counter()
        decls = parse_declarations_from_source(header, retain, arch)
        times.append(time.perf_counter() - started)
    return statistics.median(times), times, _counts(decls)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--arch", default="sm_90")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--libraries", action="store_true", help="real device libraries")
    parser.add_argument("--cutlass", help="CUTLASS include directory (default: nvidia-cutlass)")
    parser.add_argument("--random123", help="Random123's include directory")
    parser.add_argument(
        "--generated",
        type=lambda text: [int(n) for n in text.split(",")],
        help="generated headers of these many blocks, each parsed in a fresh process",
    )
    args = parser.parse_args(argv)
    if args.libraries or args.generated:
        sys.path.insert(0, str(Path(__file__).parent))
        import parse_libraries

        return parse_libraries.run(args)

    with tempfile.TemporaryDirectory(prefix="ast_canopy-bench-") as cache:
        os.environ["AST_CANOPY_CACHE_DIR"] = cache
        from ast_canopy import parse_declarations_from_source

        headers = _headers()
        # Warm up imports and the toolkit lookup; then time the one-time prelude build.
        os.environ["AST_CANOPY_PRELUDE"] = "0"
        parse_declarations_from_source(headers[0][0], headers[0][1], args.arch)
        os.environ["AST_CANOPY_PRELUDE"] = "1"
        started = time.perf_counter()
        parse_declarations_from_source(headers[0][0], headers[0][1], args.arch)
        first_with_build = time.perf_counter() - started

        results = []
        for header, retain in headers:
            os.environ["AST_CANOPY_PRELUDE"] = "1"
            warm, warm_all, counts = _time(header, retain, args.arch, args.runs)
            os.environ["AST_CANOPY_PRELUDE"] = "0"
            plain, plain_all, _ = _time(header, retain, args.arch, args.runs)
            results.append(
                {
                    "header": Path(header).name,
                    "median_prelude_s": round(warm, 4),
                    "median_plain_s": round(plain, 4),
                    "min_prelude_s": round(min(warm_all), 4),
                    "min_plain_s": round(min(plain_all), 4),
                    **counts,
                }
            )

    report = {
        "runs": args.runs,
        "arch": args.arch,
        "first_parse_with_prelude_build_s": round(first_with_build, 3),
        "cpus": os.cpu_count(),
        "load_average": os.getloadavg(),
        "headers": results,
    }
    if args.json:
        print(json.dumps(report, indent=1))
        return 0
    print(
        f"{args.runs} runs per mode, arch {args.arch}, {os.cpu_count()} CPUs, load average "
        + " ".join(f"{x:.2f}" for x in report["load_average"])
    )
    print(f"first parse, building the prelude: {first_with_build:.3f} s")
    columns = ("header", "prelude", "plain", "structs", "dev fns", "ops", "enums", "fn tmpl")
    print("{:<16}{:>9}{:>9}{:>9}{:>9}{:>6}{:>7}{:>9}".format(*columns))
    for r in results:
        print(
            f"{r['header']:<16}{r['median_prelude_s']:>8.3f}s{r['median_plain_s']:>8.3f}s"
            f"{r['structs']:>9}{r['device_functions']:>9}{r['operators']:>6}{r['enums']:>7}"
            f"{r['function_templates']:>9}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())

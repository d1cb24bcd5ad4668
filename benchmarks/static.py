"""Time the static generator and the import of what it generates, as whole processes.

    python benchmarks/static.py [--runs 7] [--header cuda_bf16] [--json]

1. Generation: the median wall time of ``python -m numbast --cfg-path CONFIG --output-dir DIR``
   for the header (with its ``.hpp`` in File List and its 16-bit struct bound as
   Number / PrimitiveModel), ruff format included when ruff is installed. The parser's
   precompiled prelude is built by a first, untimed run, as it is on any machine after its first
   generation.
2. Import: the median wall time of ``python -c "import numba.cuda; import <module>"`` minus the
   median of ``python -c "import numba.cuda"``, i.e. what the generated module adds on top of
   numba-cuda. A first, untimed import writes the module's ``.pyc``; the cold cost (compiling
   the ``.py``) is reported separately.

Targets on the 2-core dev machine: generation under 1.0 s, import under 0.3 s.
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
import time
from pathlib import Path


def _config_text(header: str) -> str:
    from ast_canopy.toolkit import cudart_include_dir

    include = Path(cudart_include_dir())
    number = {"cuda_fp16": "__half", "cuda_bf16": "__nv_bfloat16", "cuda_fp8": "__nv_fp8_e4m3"}
    entry, impl = include / f"{header}.h", include / f"{header}.hpp"
    lines = [
        f"Entry Point: {entry}",
        f"File List: [{entry}, {impl}]",
        "GPU Arch: [sm_90]",
    ]
    if header in number:
        lines += [
            f"Types: {{{number[header]}: Number}}",
            f"Data Models: {{{number[header]}: PrimitiveModel}}",
        ]
    return "\n".join(lines) + "\n"


def _wall(command: list[str], cwd: Path, env: dict[str, str] | None = None) -> float:
    start = time.perf_counter()
    subprocess.run(command, cwd=cwd, env=env, check=True, capture_output=True)
    return time.perf_counter() - start


def _median(command: list[str], cwd: Path, runs: int, env=None) -> tuple[float, list[float]]:
    times = [_wall(command, cwd, env) for _ in range(runs)]
    return statistics.median(times), times


def run(header: str, runs: int) -> dict:
    work = Path(tempfile.mkdtemp(prefix="numbast_static_bench_"))
    try:
        config = work / "config.yml"
        config.write_text(_config_text(header))
        out = work / "out"
        generate = [sys.executable, "-m", "numbast", "--cfg-path", str(config)]
        generate += ["--output-dir", str(out)]
        _wall(generate, work)  # builds the parser's prelude if this machine has none yet
        generation, generation_runs = _median(generate, work, runs)

        module = out / f"{header}.py"
        env = dict(os.environ, PYTHONPATH=str(out), PYTHONDONTWRITEBYTECODE="")
        baseline_cmd = [sys.executable, "-c", "import numba.cuda"]
        import_cmd = [sys.executable, "-c", f"import numba.cuda; import {header}"]
        shutil.rmtree(out / "__pycache__", ignore_errors=True)
        cold = _wall(import_cmd, work, env) - _wall(baseline_cmd, work, env)
        _wall(import_cmd, work, env)  # the .pyc exists from here on
        baseline, _ = _median(baseline_cmd, work, runs, env)
        with_module, _ = _median(import_cmd, work, runs, env)
        return {
            "header": f"{header}.h",
            "runs": runs,
            "generation_median_s": round(generation, 3),
            "generation_runs_s": [round(t, 3) for t in generation_runs],
            "import_numba_cuda_median_s": round(baseline, 3),
            "import_with_module_median_s": round(with_module, 3),
            "import_added_median_s": round(with_module - baseline, 3),
            "import_added_cold_s": round(cold, 3),
            "module_bytes": module.stat().st_size,
        }
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--header", default="cuda_bf16", help="cuda_fp16, cuda_bf16 or cuda_fp8")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    result = run(args.header, args.runs)
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    print(f"{result['header']}, median of {args.runs} whole processes each")
    print(f"  generation (python -m numbast ...):      {result['generation_median_s']:.3f} s")
    print(f"    runs: {', '.join(f'{t:.3f}' for t in result['generation_runs_s'])}")
    print(
        f"  import numba.cuda:                       {result['import_numba_cuda_median_s']:.3f} s"
    )
    print(
        f"  import numba.cuda + the module:          {result['import_with_module_median_s']:.3f} s"
    )
    print(f"  the module on top of numba.cuda:         {result['import_added_median_s']:.3f} s")
    print(f"    first import (compiles the .py):       {result['import_added_cold_s']:.3f} s")
    print(f"  module size:                             {result['module_bytes']} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())

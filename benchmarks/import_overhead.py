"""Start-up cost of importing the four packages, over a bare interpreter.

Runs ``python -c pass`` and ``python -c "import numbast_import, ast_canopy, numbast,
cuda_headers"`` alternately, N times each (default 21), and prints both medians and the
difference (target: under 100 ms; nothing heavy is imported eagerly).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time

IMPORTS = "import numbast_import, ast_canopy, numbast, cuda_headers"


def wall_time(code: str) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], check=True)
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=21)
    runs = parser.parse_args(argv).runs
    bare, packages = [], []
    for _ in range(runs):
        bare.append(wall_time("pass"))
        packages.append(wall_time(IMPORTS))
    bare_ms, packages_ms = statistics.median(bare) * 1e3, statistics.median(packages) * 1e3
    print(
        f"python -c pass: {bare_ms:.1f} ms   imports: {packages_ms:.1f} ms   "
        f"overhead: {packages_ms - bare_ms:.1f} ms (target < 100 ms)   medians of {runs}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())

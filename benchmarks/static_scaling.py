"""How a standalone module from ``python -m numbast`` scales with its header (issue 22): generated
headers of N one-line device functions (``header_scaling.function_header``), a kernel calling
one, compiled and linked for sm_90 in a fresh process (CPU).

Each header's module is generated once (timed) and used two ways: as generated, with its shim
units beside it (``<stem>_shims/``: a kernel links the units of the shims it calls), and copied
alone into another directory (no units: NVRTC compiles the header and the shims used for each
kernel, as every module did before). Within a round every variant runs once, in a rotating
order; each is compared with the smallest header's same variant of the round (median [middle
half] of the paired differences).

    python benchmarks/static_scaling.py [--sizes 10,3000] [--rounds 9] [--clock cpu]
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

sys.path.insert(0, str(Path(__file__).parent))
from header_scaling import CLOCKS, CPU_WORK, function_header, paired  # noqa: E402
from header_scaling import PROBE as HEADER_PROBE  # noqa: E402

# header_scaling's probe, importing the module from its directory instead of cuda_headers.
PROBE = HEADER_PROBE.replace(
    "import cuda_headers.h as h", "sys.path.insert(0, {directory!r})\nimport h"
)
assert "{directory!r}" in PROBE


def generate(scratch: Path, size: int) -> tuple[dict[str, Path], float, int]:
    """The module of a ``size``-function header, with its units and without; the generation's
    wall time and the units' bytes."""
    project = scratch / f"h{size}"
    project.mkdir()
    (project / "h.cuh").write_text(function_header(size))
    (project / "cfg.yml").write_text(
        f"Entry Point: {project / 'h.cuh'}\nFile List: [{project / 'h.cuh'}]\nGPU Arch: [sm_90]\n"
    )
    started = time.perf_counter()
    command = [sys.executable, "-m", "numbast", "--cfg-path", str(project / "cfg.yml")]
    command += ["--output-dir", str(project / "units"), "-fmt", "false"]
    subprocess.run(command, check=True, capture_output=True)
    seconds = time.perf_counter() - started
    (project / "alone").mkdir()
    shutil.copy(project / "units" / "h.py", project / "alone" / "h.py")
    units = project / "units" / "h_shims"
    size_bytes = sum(p.stat().st_size for p in units.rglob("*") if p.is_file())
    return {"units": project / "units", "alone": project / "alone"}, seconds, size_bytes


def run_probe(directory: Path, clock: str) -> dict:
    work = CPU_WORK.format(call="h.f1(types.float32(2.0))")
    code = PROBE.format(clock=CLOCKS[clock], directory=str(directory), work=work)
    env = {**os.environ, "NUMBAST_IMPORT_QUIET": "1"}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    if done.returncode != 0:
        raise RuntimeError(f"{directory} failed:\n{done.stderr}")
    line = next(ln for ln in done.stdout.splitlines() if ln.startswith("RESULT "))
    return json.loads(line.removeprefix("RESULT "))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10,3000")
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--clock", choices=sorted(CLOCKS), default="cpu")
    options = parser.parse_args(argv)
    sizes = [int(s) for s in options.sizes.split(",") if s]
    load = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="static-scaling-") as scratch_name:
        scratch = Path(scratch_name)
        modules = {}
        for size in sizes:
            variants, seconds, size_bytes = generate(scratch, size)
            print(f"{size:6d} functions: generated in {seconds:.2f} s, units {size_bytes} bytes")
            for variant, directory in variants.items():
                modules[f"{size} {variant}"] = directory
                run_probe(directory, options.clock)  # the .pyc, NVRTC's first run
        warm: dict[str, dict[str, list[float]]] = {}
        labels = list(modules)
        for round_ in range(options.rounds):
            shift = round_ % len(labels)
            for label in labels[shift:] + labels[:shift]:
                measured = run_probe(modules[label], options.clock)
                measured["compile + link"] = measured["compile"] + measured["link"]
                for key, value in measured.items():
                    warm.setdefault(key, {}).setdefault(label, []).append(value)
    print(f"load average {load:.1f} at the start, {os.getloadavg()[0]:.1f} at the end; "
          f"{options.clock} clock, medians of {options.rounds} rounds")  # fmt: skip
    for key in ("import", "compile", "link", "compile + link", "linked_bytes"):
        print(f"  {key}")
        for label in labels:
            median = statistics.median(warm[key][label])
            reference = f"{sizes[0]} {label.split()[1]}"
            against = "" if label == reference else paired(warm[key], label, reference)
            print(f"    {label:14s} {median:10.3f}   {against}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

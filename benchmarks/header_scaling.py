"""How start-up grows with the header: generated headers of N device functions, a kernel calling
one (issue 22).

Headers: ``sizes`` one-line inline device functions (``f0`` ... ``fN-1``), and one with
``--overloads`` overloads of one name (``g``, on arity and scalar types). Each header has its own
project and cache. Every measurement is a fresh process; within a round every header runs once,
in a rotating order, and each header is compared with the smallest one of the same round (the
median and middle half of those paired differences are reported besides the medians: the
machine's load moves single processes by more than the differences measured).

- ``cold``: ``import cuda_headers.h`` with an empty cache (the parser's prelude kept), after
  ``import numba.cuda``; and the entry's size on disk (the header entry and the compiled shim
  units it links, without the parser's prelude and the shim preamble's PCH, reported apart);
- ``warm``: the same import with the cache filled; then (CPU) the kernel compiled to LTO-IR for
  sm_90 with ``cuda.compile_all`` and linked to a cubin with nvJitLink (``compile``, ``link``,
  and the bytes it linked), or (``--gpu``) launched once: ``first launch`` (compile, link, load,
  launch, synchronize) and the whole process;
- ``--edit``: the edit loop: a 50-function header imported warm, then ``--edits`` times: append
  one function and import again (in a fresh process, timed after ``import numba.cuda``), and
  the same with one function's body changed.

    python benchmarks/header_scaling.py [--sizes 10,100,1000,3000] [--overloads 300]
        [--rounds 9] [--cold-rounds 3] [--gpu] [--edit] [--edits 9] [--json] [--clock cpu]

``--clock cpu`` times CPU seconds of each process (and its finished children) instead of wall
seconds: on a loaded machine wall time cannot resolve the 0.03 s the compile target asks.

The GPU mode builds for the current GPU (no arch pin); the CPU mode for sm_90.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from itertools import product
from pathlib import Path

SCALARS = ("float", "double", "int", "unsigned int", "long long")

PROBE = """
import json, os, sys, time
clock = {clock}
started = clock()
import numba.cuda
from numba import cuda, types
numba_done = clock()
import cuda_headers.h as h
imported = clock()
result = {{"numba": numba_done - started, "import": imported - numba_done}}
{work}
print("RESULT " + json.dumps(result))
"""

CPU_WORK = """
def kernel(out):
    out[0] = {call}

codes, _ = cuda.compile_all(kernel, (types.float32[:],), device=False, abi="numba", cc=(9, 0),
                            output="ltoir")
compiled = clock()
from cuda.core import Linker, LinkerOptions, ObjectCode

def data(code):
    if isinstance(code, (bytes, bytearray)):
        return bytes(code)
    return bytes(getattr(code, "code", None) or code.data)

parts = [data(code) for code in codes]
objects = [ObjectCode.from_ltoir(part, name=f"part{{i}}") for i, part in enumerate(parts)]
Linker(*objects, options=LinkerOptions(arch="sm_90", link_time_optimization=True)).link("cubin")
linked = clock()
result.update(compile=compiled - imported, link=linked - compiled,
              linked_bytes=sum(len(p) for p in parts[1:]))
"""

GPU_WORK = """
import numpy as np

@cuda.jit
def kernel(out):
    out[0] = {call}

out = cuda.device_array(1, dtype=np.float32)
kernel[1, 1](out)
cuda.synchronize()
launched = clock()
assert abs(out.copy_to_host()[0] - {expected}) < 1e-3, out.copy_to_host()
result.update({{"first launch": launched - imported, "to result": launched - started}})
"""


def function_header(count: int, extra: str = "") -> str:
    lines = ["#pragma once"]
    lines += [
        f"__device__ inline float f{i}(float x) {{ return x * {i + 1}.0f + 1.0f; }}"
        for i in range(count)
    ]
    return "\n".join(lines) + "\n" + extra


def overload_header(count: int) -> str:
    """``count`` overloads of ``g``: every combination of SCALARS of arity 1, 2, 3, 4..."""
    signatures = []
    arity = 1
    while len(signatures) < count:
        signatures += list(product(SCALARS, repeat=arity))
        arity += 1
    lines = ["#pragma once"]
    for number, parameters in enumerate(signatures[:count]):
        params = ", ".join(f"{t} a{i}" for i, t in enumerate(parameters))
        total = " + ".join(f"(float)a{i}" for i in range(len(parameters)))
        lines.append(f"__device__ inline float g({params}) {{ return {total} + {number}.0f; }}")
    return "\n".join(lines) + "\n"


class Header:
    """A generated header in a project of its own, with its cache."""

    def __init__(
        self, scratch: Path, label: str, declarations: int, text: str, call: str, expected: float
    ) -> None:
        self.label = label
        self.declarations = declarations
        self.project = scratch / label
        self.project.mkdir()
        (self.project / "h.cuh").write_text(text)
        self.call = call
        self.expected = expected
        self.cache = self.project / "cache"

    def write_pyproject(self, arch: str | None) -> None:
        pin = f'arch = "{arch}"\n' if arch else ""
        (self.project / "pyproject.toml").write_text(
            f'[tool.numbast-import]\n{pin}[tool.numbast-import.headers]\nh = "h.cuh"\n'
        )


# What the probes time with (``--clock``): wall seconds, or the process's CPU seconds (its
# finished children's too), which a loaded machine moves far less than wall time.
CLOCKS = {
    "wall": "time.perf_counter",
    "cpu": "lambda: time.process_time() + os.times().children_user + os.times().children_system",
}
_clock = ["wall"]


def run_probe(header: Header, work: str, cache: Path) -> dict:
    code = PROBE.format(
        clock=CLOCKS[_clock[0]], work=work.format(call=header.call, expected=header.expected)
    )
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE",)}
    env.update(NUMBAST_CACHE_DIR=str(cache), NUMBAST_IMPORT_QUIET="1")
    env.pop("NUMBAST_IMPORT_ARCH", None)
    spawned = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=header.project, env=env, capture_output=True, text=True
    )
    wall = time.perf_counter() - spawned
    if done.returncode != 0:
        raise RuntimeError(f"{header.label} failed:\n{done.stdout}\n{done.stderr}")
    line = next(ln for ln in done.stdout.splitlines() if ln.startswith("RESULT "))
    return {**json.loads(line.removeprefix("RESULT ")), "process": wall}


def entry_size(cache: Path) -> dict[str, int]:
    """Bytes in the cache: the entry with its shim units, and what is kept beside it."""
    sizes = {"entry": 0, "preludes": 0}
    for path in cache.rglob("*"):
        if not path.is_file():
            continue
        parts = path.relative_to(cache).parts
        beside = parts[0] in ("parser", "keys") or path.suffix == ".pch"
        sizes["preludes" if beside else "entry"] += path.stat().st_size
    return sizes


def seed_parser_prelude(source: Path, target: Path) -> None:
    """A fresh cache that keeps the parser's prelude of ``source`` (a cold build of the header,
    not of clang's CUDA wrapper, which every header shares)."""
    target.mkdir(mode=0o700)
    if (source / "parser").is_dir():
        shutil.copytree(source / "parser", target / "parser")


def paired(values: dict[str, list[float]], label: str, reference: str) -> str:
    differences = sorted(a - b for a, b in zip(values[label], values[reference], strict=True))
    quarter = len(differences) // 4
    median = statistics.median(differences)
    return f"{median:+.3f} [{differences[quarter]:+.3f}, {differences[-1 - quarter]:+.3f}]"


def measure_scaling(headers: list[Header], options) -> dict:
    work = GPU_WORK if options.gpu else CPU_WORK
    prelude_source = headers[0].project / "prelude-cache"
    run_probe(headers[0], "", prelude_source)  # the parser's prelude, built once
    cold: dict[str, list[float]] = {h.label: [] for h in headers}
    sizes: dict[str, dict[str, int]] = {}
    for round_ in range(options.cold_rounds):
        for header in headers:
            cache = header.project / f"cold-{round_}"
            seed_parser_prelude(prelude_source, cache)
            cold[header.label].append(run_probe(header, "", cache)["import"])
            sizes[header.label] = entry_size(cache)
            if round_ == options.cold_rounds - 1:
                shutil.rmtree(header.cache, ignore_errors=True)
                cache.rename(header.cache)
            else:
                shutil.rmtree(cache)
    for header in headers:  # settle (stamps, memos); the first kernel compile
        run_probe(header, work, header.cache)
    warm: dict[str, dict[str, list[float]]] = {}
    for round_ in range(options.rounds):
        shift = round_ % len(headers)
        for header in headers[shift:] + headers[:shift]:
            measured = run_probe(header, work, header.cache)
            for key, value in measured.items():
                warm.setdefault(key, {}).setdefault(header.label, []).append(value)
    return {"cold": cold, "sizes": sizes, "warm": warm}


def report_scaling(headers: list[Header], results: dict, options) -> None:
    reference = headers[0].label
    cold, sizes, warm = results["cold"], results["sizes"], results["warm"]
    print(
        f"cold import after import numba.cuda, medians of {options.cold_rounds}; entry size; "
        f"per declaration beyond {reference} (the slope)"
    )
    first = headers[0]
    first_seconds = statistics.median(cold[first.label])
    first_size = sizes[first.label]["entry"]
    for header in headers:
        seconds = statistics.median(cold[header.label])
        size = sizes[header.label]
        more = header.declarations - first.declarations
        slope = (
            f"{1000 * (seconds - first_seconds) / more:6.2f} ms/decl "
            f"{(size['entry'] - first_size) / more / 1e3:6.2f} KB/decl"
            if more > 0
            else ""
        )
        print(
            f"  {header.label:14s} {seconds:8.3f} s  {size['entry'] / 1e6:8.3f} MB  {slope}  "
            f"(beside it: {size['preludes'] / 1e6:.1f} MB)"
        )
    keys = (
        ["import", "first launch", "to result", "process"]
        if options.gpu
        else ["import", "compile", "link", "linked_bytes"]
    )
    print(
        f"warm, medians of {options.rounds} rounds; per round against {reference}: median "
        "[middle half] of the differences"
    )
    for key in keys:
        print(f"  {key}")
        for header in headers:
            values = warm[key]
            median = statistics.median(values[header.label])
            if key == "linked_bytes":
                print(f"    {header.label:14s} {int(median):10d} bytes")
                continue
            against = "" if header.label == reference else paired(values, header.label, reference)
            print(f"    {header.label:14s} {median:8.3f} s   {against}")
    if not options.gpu:
        both = {
            label: [a + b for a, b in zip(warm["compile"][label], warm["link"][label], strict=True)]
            for label in warm["compile"]
        }
        print("  compile + link")
        for header in headers[1:]:
            print(f"    {header.label:14s} {paired(both, header.label, reference)}")


def measure_edits(scratch: Path, options) -> dict:
    """The edit loop: append a function, import again; change a body, import again."""
    header = Header(scratch, "edit50", 50, function_header(50), "h.f1(types.float32(2.0))", 5.0)
    header.write_pyproject(None if options.gpu else "sm_90")
    run_probe(header, "", header.cache)  # the entry, warm
    run_probe(header, "", header.cache)
    path = header.project / "h.cuh"
    timings: dict[str, list[float]] = {"append": [], "change a body": [], "numba": []}
    for edit in range(options.edits):
        with path.open("a") as stream:
            stream.write(f"__device__ inline float e{edit}(float x) {{ return x + {edit}; }}\n")
        measured = run_probe(header, "", header.cache)
        timings["append"].append(measured["import"])
        timings["numba"].append(measured["numba"])
        # f1's body: return x * 2.0f + <edit + 2>.0f
        text = re.sub(r"(f1\(float x\) \{ return x \* 2\.0f \+ )\d+", rf"\g<1>{edit + 2}",
                      path.read_text())  # fmt: skip
        path.write_text(text)
        timings["change a body"].append(run_probe(header, "", header.cache)["import"])
    return timings


def report_edits(timings: dict, options) -> None:
    print(f"edit loop, 50-function header, medians of {options.edits} edits (import after numba)")
    print(f"  import numba.cuda   {statistics.median(timings['numba']):.3f} s")
    for key in ("append", "change a body"):
        values = sorted(timings[key])
        median, low, high = statistics.median(values), values[0], values[-1]
        print(f"  {key:18s}  {median:.3f} s  (range {low:.3f}-{high:.3f})")


def build_headers(scratch: Path, options) -> list[Header]:
    headers = []
    for size in options.sizes:
        call = "h.f1(types.float32(2.0))"
        header = Header(scratch, f"{size} functions", size, function_header(size), call, 5.0)
        headers.append(header)
    if options.overloads:
        count = options.overloads
        call = "h.g(types.float32(2.0), types.float32(3.0))"  # g(float, float): number 5
        header = Header(scratch, f"{count} overloads", count, overload_header(count), call, 10.0)
        headers.append(header)
    for header in headers:
        header.write_pyproject(None if options.gpu else "sm_90")
    return headers


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10,100,1000,3000")
    parser.add_argument("--overloads", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--cold-rounds", type=int, default=3)
    parser.add_argument("--gpu", action="store_true", help="launch on the GPU (first launch)")
    parser.add_argument("--edit", action="store_true", help="the edit loop only")
    parser.add_argument("--edits", type=int, default=9)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--clock", choices=sorted(CLOCKS), default="wall")
    options = parser.parse_args(argv)
    options.sizes = [int(s) for s in options.sizes.split(",") if s]
    _clock[0] = options.clock
    load = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="header-scaling-") as scratch_name:
        scratch = Path(scratch_name)
        if options.edit:
            results = {"edits": measure_edits(scratch, options)}
        else:
            headers = build_headers(scratch, options)
            results = measure_scaling(headers, options)
    load_after = os.getloadavg()
    print(f"load average {load[0]:.1f} at the start, {load_after[0]:.1f} at the end "
          f"({os.cpu_count()} CPUs)")  # fmt: skip
    if options.json:
        print(json.dumps(results, indent=1))
    elif options.edit:
        report_edits(results["edits"], options)
    else:
        report_scaling(headers, results, options)
    return 0


if __name__ == "__main__":
    sys.exit(main())

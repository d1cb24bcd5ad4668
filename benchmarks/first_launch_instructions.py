"""The CPU side of the demo kernel's first launch in instructions (callgrind; no GPU needed).

``first_launch_cpu.py`` times the phases in CPU seconds; on a shared 2-core machine their noise
(+-0.01 s) is as large as what is measured. Here the same probe runs once per variant under
valgrind's callgrind, which counts the instructions executed (deterministic to ~0.1% with
``PYTHONHASHSEED`` fixed and ``.pyc`` files written), dumping the count at each phase's end:
``bindings`` (the import), ``compile`` (``cuda.compile_all`` to LTO-IR: the typing context's
refresh, typing, lowering, NVVM), ``objects`` (reading the link objects' bytes: a cached shim
unit) and ``link`` (nvJitLink, LTO, to an sm_90 cubin). Variants:

- ``plain``: plain Numba, ``first_launch_cpu.py``'s kernel (its arithmetic folds to constants);
- ``plain, same calls``: plain Numba with the demo kernel's calls (``float(1.0) + float(2.0)``,
  ``types.float64(...)``, ``math.sqrt``), the reference for what the kernel's shape costs;
- ``ours``: ``import cuda_headers.demo`` from a filled cache, the demo kernel;
- ``ours (reference)`` with ``--reference DIR``: another checkout's.

``--preimport`` imports, before counting, every module plain Numba's first compile imports, so
the compile counts work rather than the imports numba-cuda's refresh does in either variant.
Needs valgrind, its ``callgrind.h`` and a C compiler; each variant takes a minute or two.

    python benchmarks/first_launch_instructions.py [--reference OTHER_CHECKOUT] [--preimport]
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from first_launch_cpu import OURS, PLAIN, environment  # run from benchmarks/

CONTROL = r"""
#include <valgrind/callgrind.h>
void phase_done(const char *name) { CALLGRIND_DUMP_STATS_AT(name); }
void count_from_here(void) { CALLGRIND_START_INSTRUMENTATION; CALLGRIND_ZERO_STATS; }
"""
# The kernel of ``ours`` written with Numba's own calls (CPython folds ``1.0 + 2.0``, not this).
SAME_CALLS = PLAIN.replace(
    "    three = 1.0 + 2.0\n    arr[0] = three\n    arr[1] = math.sqrt(three)",
    "    three = float(1.0) + float(2.0)\n    arr[0] = types.float64(three)\n"
    "    arr[1] = types.float64(math.sqrt(three))",
)
# What plain Numba's probe has imported by its end (imported first with --preimport).
PREIMPORT = PLAIN + "\nimport sys\nprint('MODULES ' + ' '.join(sorted(sys.modules)))\n"
PHASES = ("bindings", "compile", "objects", "link")
# The probe's clock() marks -> what happens there: counting starts after ``import numba.cuda``
MARKS = {"T1": "start", "T2": "bindings", "T3": "compile", "T4": "link"}


def instrumented(probe: str, control: Path, modules: list[str]) -> str:
    """``probe`` with the count of each phase dumped at its end."""
    head = (
        "import ctypes as _ct, importlib as _il\n"
        f"_cg = _ct.CDLL({str(control)!r})\n"
        f"for _m in {modules!r}:\n"
        "    try:\n        _il.import_module(_m)\n    except Exception:\n        pass\n"
    )

    def mark(match: re.Match) -> str:
        what = MARKS.get(match.group(1))
        if what is None:
            return match.group(0)
        if what == "start":
            return f"{match.group(0)}; _cg.count_from_here()"
        return f"_cg.phase_done(b{what!r}); {match.group(0)}"

    body = re.sub(r"^(T[0-9]) = clock\(\)$", mark, probe, flags=re.M)
    # The link objects' bytes are read where they are made, before the Linker.
    return head + body.replace("\ncubin = Linker(", "\n_cg.phase_done(b'objects')\ncubin = Linker(")


def counts(code: str, cwd: Path, env: dict[str, str], out: Path) -> dict[str, int]:
    for _ in range(2):  # fill the import cache and the .pyc files (no counting outside valgrind)
        subprocess.run([sys.executable, "-c", code], cwd=cwd, env=env, check=True,
                       capture_output=True)  # fmt: skip
    out.mkdir()
    command = ["valgrind", "--tool=callgrind", "--instr-atstart=no",
               f"--callgrind-out-file={out}/cg.%p", sys.executable, "-c", code]  # fmt: skip
    subprocess.run(command, cwd=cwd, env=env, check=True, capture_output=True)
    found: dict[str, int] = {}
    for dump in sorted(out.glob("cg.*.*"), key=lambda p: int(p.suffix[1:])):
        text = dump.read_text(errors="replace")
        name = re.search(r"^desc: Trigger: Client Request: (\S+)", text, re.M)
        total = re.search(r"^totals: (\d+)", text, re.M)
        if name and total:
            found[name.group(1)] = found.get(name.group(1), 0) + int(total.group(1))
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reference", type=Path, help="another checkout's ours, counted too")
    parser.add_argument("--preimport", action="store_true", help="imports done before counting")
    options = parser.parse_args(argv)
    if shutil.which("valgrind") is None:
        raise SystemExit("valgrind is needed (apt-get install valgrind)")
    with tempfile.TemporaryDirectory() as scratch_name:
        scratch = Path(scratch_name)
        control = scratch / "control.so"
        (scratch / "control.c").write_text(CONTROL)
        subprocess.run(["cc", "-O2", "-shared", "-fPIC", "-o", str(control),
                        str(scratch / "control.c")], check=True)  # fmt: skip
        this = Path(__file__).resolve().parent.parent
        variants = {
            "plain": (PLAIN, *environment(scratch, "plain", this)),
            "plain, same calls": (SAME_CALLS, *environment(scratch, "same", this)),
            "ours": (OURS, *environment(scratch, "ours", this)),
        }
        if options.reference is not None:
            reference = options.reference.resolve()
            variants["ours (reference)"] = (OURS, *environment(scratch, "ref", reference))
        for _code, _cwd, env in variants.values():
            env["PYTHONHASHSEED"] = "0"
        modules: list[str] = []
        if options.preimport:
            _code, cwd, env = variants["plain"]
            done = subprocess.run([sys.executable, "-c", PREIMPORT], cwd=cwd, env=env,
                                  check=True, capture_output=True, text=True)  # fmt: skip
            line = next(ln for ln in done.stdout.splitlines() if ln.startswith("MODULES "))
            modules = [m for m in line.split()[1:] if m != "__main__"]
        results = {}
        for index, (name, (code, cwd, env)) in enumerate(variants.items()):
            probe = instrumented(code, control, modules)
            results[name] = counts(probe, cwd, env, scratch / f"out{index}")
            print(f"  counted {name}", file=sys.stderr, flush=True)
    print(f"millions of instructions{' (imports done first)' if modules else ''}, os.getloadavg "
          f"{os.getloadavg()[0]:.1f}")  # fmt: skip
    print(f"  {'':26s}" + "".join(f"{p:>10s}" for p in (*PHASES, "c+o+l")))
    for name, found in results.items():
        values = [found.get(p, 0) / 1e6 for p in PHASES]
        print(f"  {name:26s}" + "".join(f"{v:10.1f}" for v in values) + f"{sum(values[1:]):10.1f}")
    plain = results["plain"]
    for name, found in results.items():
        if name != "plain":
            beyond = [(found.get(p, 0) - plain.get(p, 0)) / 1e6 for p in PHASES]
            print(f"  {name + ' - plain':26s}" + "".join(f"{v:+10.1f}" for v in beyond)
                  + f"{sum(beyond[1:]):+10.1f}")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Run PyCUDA's own example programs and its ``test/test_driver.py`` unchanged, on
numbast_import, through a ``pycuda`` stand-in package whose modules only re-export ours.

    python tests/scripts/pycuda_programs.py PYCUDA_CHECKOUT [--work DIR] [--timeout 300]

PYCUDA_CHECKOUT is a PyCUDA source tree (its ``examples/`` and ``test/`` are used; nothing
of it is imported). The stand-in package and the copies are written to ``--work`` (a new
temporary directory by default), outside this repository. Prints one line per program and
per test with the reason of each failure or skip, then the totals; exits 1 when anything
failed. Needs a GPU. On the GPU machine (no network there), carry a checkout along:

    git -C /work/.mirror/inducer+pycuda/repo archive HEAD examples test | tar -x -C .gpu/pycuda
    bash .gpu/run.sh python3 tests/scripts/pycuda_programs.py .gpu/pycuda
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ElementTree
from collections.abc import Callable
from pathlib import Path

# pycuda.<name> -> numbast_import.<name>
MODULES = [
    "driver",
    "compiler",
    "autoinit",
    "autoprimaryctx",
    "gpuarray",
    "elementwise",
    "reduction",
    "tools",
    "curandom",
]

STAND_IN = '''"""Stand-in for pycuda.{name}: numbast_import.{name} under PyCUDA's name."""

import sys

import numbast_import.{name} as _ours

sys.modules[__name__] = _ours
'''


def _zeros_printed(out: str) -> str | None:
    numbers = re.findall(r"-?\d+\.?\d*(?:e[-+]?\d+)?", out)
    if numbers and all(float(n) == 0 for n in numbers):
        return None
    return "printed a difference that is not all zeros"


def _lines_starting(prefix: str, count: int) -> Callable[[str], str | None]:
    def check(out: str) -> str | None:
        found = sum(1 for line in out.splitlines() if line.startswith(prefix))
        return None if found == count else f"printed {found} lines '{prefix}...', not {count}"

    return check


def _no_large_difference(out: str) -> str | None:
    tail = out.split("CPU-GPU difference:", 1)[-1]
    numbers = [abs(float(n)) for n in re.findall(r"-?\d+\.\d*(?:e[-+]?\d+)?", tail)]
    return None if numbers and max(numbers) < 1e-4 else "CPU and GPU results differ"


# the examples issue 21 names, with what their output must show beyond exiting cleanly
EXAMPLES: dict[str, Callable[[str], str | None] | None] = {
    "hello_gpu.py": _zeros_printed,
    "demo.py": None,
    "demo_struct.py": None,
    "from-wiki/c++_function_templates.py": None,
    "from-wiki/using_printf.py": _lines_starting("I am ", 16),
    "from-wiki/threads_and_blocks.py": _lines_starting("I am ", 64),
    "from-wiki/matrixmul_simple.py": _no_large_difference,
    "from-wiki/gpu_scalar_mult.py": None,
}


def build_stand_in(root: Path) -> Path:
    package = root / "standin" / "pycuda"
    package.mkdir(parents=True, exist_ok=True)
    (package / "__init__.py").write_text('"""Stand-in for PyCUDA: modules of numbast_import."""\n')
    for name in MODULES:
        (package / f"{name}.py").write_text(STAND_IN.format(name=name))
    return package.parent


def _environment(stand_in: Path, cache: Path) -> dict[str, str]:
    paths = [str(stand_in), *os.environ.get("PYTHONPATH", "").split(os.pathsep)]
    return dict(
        os.environ,
        PYTHONPATH=os.pathsep.join(p for p in paths if p),
        NUMBAST_CACHE_DIR=str(cache),
        PYTHONDONTWRITEBYTECODE="1",
    )


def _last_error(text: str) -> str:
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    for line in reversed(lines):
        if re.match(r"^[\w.]+(Error|Exception|Warning)\b|^\w+Error:", line):
            return line[:300]
    return (lines[-1] if lines else "no output")[:300]


def run_examples(checkout: Path, work: Path, env: dict[str, str], timeout: int) -> list[tuple]:
    copies = work / "examples"
    shutil.copytree(checkout / "examples", copies, dirs_exist_ok=True)
    results = []
    for name, check in EXAMPLES.items():
        path = copies / name
        if not path.is_file():
            results.append(("example", name, "MISSING", f"{path} not in the checkout"))
            continue
        try:
            done = subprocess.run(
                [sys.executable, path.name],
                cwd=path.parent,
                env=env,
                capture_output=True,
                text=True,
                timeout=timeout,
            )
        except subprocess.TimeoutExpired:
            results.append(("example", name, "FAILED", f"timed out after {timeout} s"))
            continue
        if done.returncode != 0:
            reason = f"exit {done.returncode}: {_last_error(done.stderr or done.stdout)}"
            results.append(("example", name, "FAILED", reason))
            continue
        problem = check(done.stdout) if check else None
        results.append(("example", name, "FAILED" if problem else "passed", problem or ""))
    return results


def run_test_driver(checkout: Path, work: Path, env: dict[str, str], timeout: int) -> list[tuple]:
    tests = work / "test"
    tests.mkdir(exist_ok=True)
    shutil.copy(checkout / "test" / "test_driver.py", tests / "test_driver.py")
    (tests / "pytest.ini").write_text("[pytest]\n")  # keep the checkout's settings out
    report = tests / "report.xml"
    command = [
        sys.executable,
        "-m",
        "pytest",
        "-q",
        "-p",
        "no:cacheprovider",
        "-rA",
        f"--junitxml={report}",
        "-c",
        str(tests / "pytest.ini"),
        "test_driver.py",
    ]
    try:
        done = subprocess.run(
            command, cwd=tests, env=env, capture_output=True, text=True, timeout=timeout * 4
        )
    except subprocess.TimeoutExpired:
        return [("test_driver.py", "(all)", "FAILED", f"timed out after {timeout * 4} s")]
    if not report.is_file():
        return [("test_driver.py", "(collection)", "FAILED", _last_error(done.stdout))]
    results = []
    for case in ElementTree.parse(report).iter("testcase"):
        name = f"{case.get('classname', '').rsplit('.', 1)[-1]}.{case.get('name')}"
        outcome, reason = "passed", ""
        for child in case:
            message = (child.get("message") or child.text or "").strip().splitlines()
            text = message[0][:300] if message else ""
            if child.tag in ("failure", "error"):
                outcome, reason = "FAILED", text
            elif child.tag == "skipped":
                kind = child.get("type", "")
                outcome = "xfailed" if "xfail" in kind else "skipped"
                reason = text
        results.append(("test_driver.py", name, outcome, reason))
    return results


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("checkout", type=Path, help="a PyCUDA source tree")
    parser.add_argument("--work", type=Path, help="where the stand-in and copies go")
    parser.add_argument("--timeout", type=int, default=300, help="seconds per program")
    options = parser.parse_args()
    checkout = options.checkout.resolve()
    if not (checkout / "examples").is_dir() or not (checkout / "test").is_dir():
        parser.error(f"{checkout} has no examples/ and test/: give a PyCUDA checkout")
    work = options.work or Path(tempfile.mkdtemp(prefix="pycuda-stand-in-"))
    work.mkdir(parents=True, exist_ok=True)
    env = _environment(build_stand_in(work), work / "cache")
    print(f"stand-in package and copies in {work}", flush=True)
    results = run_examples(checkout, work, env, options.timeout)
    results += run_test_driver(checkout, work, env, options.timeout)
    width = max(len(f"{group} {name}") for group, name, _o, _r in results)
    for group, name, outcome, reason in results:
        label = f"{group} {name}".ljust(width)
        print(f"{outcome:8} {label}  {reason}".rstrip())
    counts: dict[str, int] = {}
    for _group, _name, outcome, _reason in results:
        counts[outcome] = counts.get(outcome, 0) + 1
    print("total: " + ", ".join(f"{n} {outcome}" for outcome, n in sorted(counts.items())))
    return 1 if counts.get("FAILED", 0) or counts.get("MISSING", 0) else 0


if __name__ == "__main__":
    sys.exit(main())

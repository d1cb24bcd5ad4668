"""Soak test of the cache (issue 23): many processes importing a few headers while others edit
what the headers include, prune, clear and kill builders, for minutes; then proof that nothing
went wrong. Not part of the pytest run (it takes minutes and all the machine's cores).

A project of N headers (default 8): ``h<i>.cuh`` includes ``inc<i>.h``, which declares
``v<i>_gen<G>()``, G its generation; both are retained, so the module binds that function.
Meanwhile, until the time is up:

- P importers (default 32) run at all times: each is a fresh interpreter that reads G from the
  include, imports ``cuda_headers.h<i>``, and reads G again;
- an editor rewrites a random include in place with the next generation every ~1 s, in two
  writes 50 ms apart (readers can see it empty or half-written);
- a pruner runs ``numbast-cache prune`` (plain, ``--older-than 0``, ``--max-size 1M``),
  ``clear --stale`` or ``clear --all`` every ~8 s;
- a killer SIGKILLs a builder every ~3 s: the holder of a random build lock (the lock file
  names its pid), else, one time in three, a random importer.

Proved afterwards: every importer that was not killed either imported a module whose one
``v<i>_gen<G>`` has G between the generations it read before and after (an older G is a stale
entry: bindings of a header that was no longer there), or failed with an ImportError (a parse
of a half-written include fails so); no process crashed otherwise; ``numbast-cache verify`` finds
nothing damaged; and a final import of every header, with nothing else running, binds the last
generation.

    python benchmarks/soak.py [--processes 32] [--headers 8] [--minutes 5] [--dir DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

IMPORTER = r"""
import importlib, json, re, sys
name, include = sys.argv[1], sys.argv[2]

def generation():
    found = re.search(r"_gen(\d+)", open(include).read())
    return int(found.group(1)) if found else -1

before = generation()
try:
    module = importlib.import_module("cuda_headers." + name)
except ImportError as exc:
    print(json.dumps({"ok": False, "error": type(exc).__name__, "message": str(exc)[:300]}))
else:
    bound = sorted(int(n.split("_gen")[1]) for n in dir(module) if "_gen" in n)
    print(json.dumps({"ok": True, "bound": bound, "before": before, "after": generation(),
                      "file": getattr(module, "__file__", "")}))
"""


@dataclass
class Importer:
    header: int
    process: subprocess.Popen
    started: float
    killed: bool = False
    building: bool = False


@dataclass
class Tally:
    results: Counter = field(default_factory=Counter)
    errors: Counter = field(default_factory=Counter)
    violations: list = field(default_factory=list)
    crashes: list = field(default_factory=list)
    builds: int = 0
    in_memory: int = 0
    edits: int = 0
    maintenance: Counter = field(default_factory=Counter)
    durations: list = field(default_factory=list)


def make_project(directory: Path, headers: int) -> Path:
    project = directory / "proj"
    (project / "include").mkdir(parents=True)
    lines = ["[tool.numbast-import]", 'arch = "sm_90"', "", "[tool.numbast-import.headers]"]
    for i in range(headers):
        (project / "include" / f"h{i}.cuh").write_text(
            f'#pragma once\n#include "inc{i}.h"\n'
            f"struct S{i} {{ float x; __device__ S{i}(float v) : x(v) {{}} }};\n"
            f"__device__ inline float f{i}(S{i} s) {{ return s.x; }}\n"
        )
        write_include(project, i, 0, pause=0)
        lines.append(
            f'h{i} = {{ header = "include/h{i}.cuh", '
            f'retain = ["include/h{i}.cuh", "include/inc{i}.h"] }}'
        )
    (project / "pyproject.toml").write_text("\n".join(lines) + "\n")
    return project


def write_include(project: Path, i: int, generation: int, pause: float) -> None:
    """Rewrite inc<i>.h in place, in two writes (readers can see it empty or half-written)."""
    body = f"__device__ inline int v{i}_gen{generation}() {{ return {generation}; }}\n"
    text = "#pragma once\n" + body
    with open(project / "include" / f"inc{i}.h", "w") as stream:
        stream.write(text[:40])
        stream.flush()
        time.sleep(pause)
        stream.write(text[40:])


def environment(cache: Path) -> dict[str, str]:
    env = {**os.environ, "NUMBAST_CACHE_DIR": str(cache), "NUMBAST_IMPORT_ARCH": "sm_90"}
    env["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(REPO / "src"), str(REPO), os.environ.get("PYTHONPATH")) if p
    )
    for name in ("NUMBAST_CACHE_PATH", "NUMBAST_IMPORT_CONFIG", "AST_CANOPY_CACHE_DIR"):
        env.pop(name, None)
    return env


def start_importer(project: Path, env: dict[str, str], i: int) -> Importer:
    include = project / "include" / f"inc{i}.h"
    process = subprocess.Popen(
        [sys.executable, "-c", IMPORTER, f"h{i}", str(include)],
        cwd=project,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    return Importer(i, process, time.monotonic())


def judge(importer: Importer, tally: Tally) -> None:
    out, err = importer.process.communicate()
    tally.durations.append(time.monotonic() - importer.started)
    if importer.killed:
        tally.results["killed"] += 1
        return
    tally.builds += err.count("numbast-import: generating")
    try:
        result = json.loads(out.strip().splitlines()[-1])
    except (ValueError, IndexError):
        tally.results["crashed"] += 1
        tally.crashes.append(f"h{importer.header}: rc {importer.process.returncode}: {err[-2000:]}")
        return
    if not result["ok"]:
        tally.results["ImportError"] += 1
        tally.errors[result["error"]] += 1
        return
    tally.results["imported"] += 1
    tally.in_memory += "built in memory" in result["file"]
    bound, before, after = result["bound"], result["before"], result["after"]
    if len(bound) > 1 or (bound and not before <= bound[0] <= max(after, before)):
        tally.violations.append(f"h{importer.header}: bound {bound}, read {before} then {after}")
    elif not bound and before == after and before >= 0:
        # Nothing bound from an include that was whole before and after: a stale entry of a
        # moment it was empty or half-written.
        tally.violations.append(f"h{importer.header}: bound nothing, read {before} twice")


def choose_victim(cache: Path, running: list[Importer]) -> Importer | None:
    """The holder of a random build lock, if it is one of ours; else, one time in three, a
    random importer."""
    by_pid = {r.process.pid: r for r in running if r.process.poll() is None}
    holders = []
    for lock in cache.glob("??/*.lock"):
        try:
            holders.append(json.loads(lock.read_text())["pid"])
        except (OSError, ValueError, KeyError, TypeError):
            continue  # released meanwhile, or being written
    builders = [by_pid[pid] for pid in holders if pid in by_pid]
    if builders:
        victim = random.choice(builders)
        victim.building = True
        return victim
    if by_pid and random.random() < 1 / 3:
        return random.choice(list(by_pid.values()))
    return None


def maintain(project: Path, env: dict[str, str], tally: Tally) -> subprocess.Popen:
    command = random.choice(
        [
            ["prune"],
            ["prune", "--older-than", "0"],
            ["prune", "--max-size", "1M"],
            ["clear", "--stale"],
            ["clear", "--all"],
        ]
    )
    tally.maintenance[" ".join(command)] += 1
    return subprocess.Popen(
        [sys.executable, "-m", "numbast_import.cli", *command],
        cwd=project,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )


def soak(directory: Path, processes: int, headers: int, seconds: float) -> dict:
    project = make_project(directory, headers)
    cache = directory / "cache"
    env = environment(cache)
    generations = [0] * headers
    tally = Tally()
    running: list[Importer] = []
    maintenance: list[subprocess.Popen] = []
    maintenance_failures: list[str] = []
    started = time.monotonic()
    next_edit = next_maintenance = next_kill = started + 5.0
    while time.monotonic() - started < seconds:
        for importer in [r for r in running if r.process.poll() is not None]:
            running.remove(importer)
            judge(importer, tally)
        while len(running) < processes:
            running.append(start_importer(project, env, random.randrange(headers)))
        now = time.monotonic()
        if now >= next_edit:
            i = random.randrange(headers)
            generations[i] += 1
            write_include(project, i, generations[i], pause=0.05)
            tally.edits += 1
            next_edit = now + random.uniform(0.5, 1.5)
        if now >= next_maintenance:
            maintenance.append(maintain(project, env, tally))
            next_maintenance = now + random.uniform(4, 12)
        if now >= next_kill:
            victim = choose_victim(cache, running)
            if victim is not None:
                victim.killed = True
                victim.process.send_signal(signal.SIGKILL)
                tally.maintenance["kill " + ("builder" if victim.building else "importer")] += 1
            next_kill = now + random.uniform(2, 4)
        for job in [m for m in maintenance if m.poll() is not None]:
            maintenance.remove(job)
            if job.returncode != 0:
                maintenance_failures.append(job.stderr.read()[-1000:])
        time.sleep(0.05)
    for importer in running:
        judge(importer, tally)
    for job in maintenance:
        job.wait()
        if job.returncode != 0:
            maintenance_failures.append(job.stderr.read()[-1000:])
    soak_seconds = time.monotonic() - started

    verify = subprocess.run(
        [sys.executable, "-m", "numbast_import.cli", "verify", "--json"],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
    )
    final_mismatches = []
    for i in range(headers):
        importer = start_importer(project, env, i)
        out, err = importer.process.communicate()
        result = json.loads(out.strip().splitlines()[-1]) if out.strip() else {"stderr": err}
        if result.get("bound") != [generations[i]]:
            final_mismatches.append(f"h{i}: {result}, last generation {generations[i]}")
    durations = sorted(tally.durations)
    return {
        "processes": processes,
        "headers": headers,
        "seconds": round(soak_seconds, 1),
        "results": dict(tally.results),
        "import_errors": dict(tally.errors),
        "builds": tally.builds,
        "built_in_memory": tally.in_memory,
        "edits": tally.edits,
        "maintenance": dict(tally.maintenance),
        "maintenance_failures": maintenance_failures,
        "median_import_s": round(durations[len(durations) // 2], 2) if durations else None,
        "violations": tally.violations,
        "crashes": tally.crashes,
        "verify_exit": verify.returncode,
        "verify": json.loads(verify.stdout) if verify.stdout.strip() else verify.stderr,
        "final_mismatches": final_mismatches,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--processes", type=int, default=32)
    parser.add_argument("--headers", type=int, default=8)
    parser.add_argument("--minutes", type=float, default=5.0)
    parser.add_argument("--dir", help="work here (default: a temporary directory, removed)")
    parser.add_argument("--seed", type=int, default=None)
    options = parser.parse_args(argv)
    random.seed(options.seed)
    directory = Path(options.dir or tempfile.mkdtemp(prefix="numbast-soak-"))
    directory.mkdir(parents=True, exist_ok=True)
    try:
        report = soak(directory, options.processes, options.headers, options.minutes * 60)
    finally:
        if not options.dir:
            shutil.rmtree(directory, ignore_errors=True)
    print(json.dumps(report, indent=1))
    ok = (
        not report["violations"]
        and not report["crashes"]
        and not report["final_mismatches"]
        and report["verify_exit"] == 0
        and not report["maintenance_failures"]
    )
    print("soak:", "PASSED" if ok else "FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

"""What a cache hit costs the store, against a reference tree (CPU; no GPU needed).

A warm import's work in the cache is one lookup: check the directories, read the manifest,
read and hash the artifacts, compare the key, mark the entry used. This times exactly that,
``CacheStore(root).lookup(digest, components)`` for ``numbast.headers.cufp16``'s entry
(cuda_fp16.h: the largest built-in entry), in fresh processes, interleaved between this tree
and a reference tree (another checkout, e.g. the commit before a change), each with its own
cache built once. Medians of N processes (default 9), each the median of 50 lookups; and the
whole warm ``import numbast.headers.cufp16`` after ``import numba.cuda``, medians of N.

    python benchmarks/entry_lookup.py --reference /path/to/other/checkout [--runs 9]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]

LOOKUP = r"""
import json, statistics, time
from pathlib import Path
from numbast_import.entry_key import entry_key
from numbast_import.builtin_headers import builtin_mapping
from numbast_import.cache.root import cache_root
from numbast_import.cache.store import CacheStore

root = cache_root()
mapping = builtin_mapping("cufp16")
components, digest = entry_key(mapping, "numbast.headers.cufp16", "sm_90", root)
store = CacheStore(root)
times = []
for _ in range(50):
    start = time.perf_counter()
    entry = store.lookup(digest, components)
    times.append(time.perf_counter() - start)
    assert entry is not None
print(json.dumps({"lookup": statistics.median(times)}))
"""

IMPORT = r"""
import json, time
import numba.cuda
start = time.perf_counter()
import numbast.headers.cufp16
print(json.dumps({"import": time.perf_counter() - start}))
"""


def run(code: str, tree: Path, cache: Path) -> dict:
    env = {**os.environ, "NUMBAST_CACHE_DIR": str(cache), "NUMBAST_IMPORT_ARCH": "sm_90"}
    env["PYTHONPATH"] = os.pathsep.join((str(tree / "src"), str(tree)))
    env.pop("NUMBAST_CACHE_PATH", None)
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # timed with .pyc files, as installs have them
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=tree, env=env, capture_output=True, text=True
    )
    if done.returncode != 0:
        raise SystemExit(f"failed in {tree}:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reference", required=True, help="the other checkout")
    parser.add_argument("--runs", type=int, default=9)
    options = parser.parse_args(argv)
    trees = {"this tree": HERE, "reference": Path(options.reference).resolve()}
    with tempfile.TemporaryDirectory() as tmp:
        caches = {name: Path(tmp) / name.replace(" ", "-") for name in trees}
        for name, tree in trees.items():
            run(IMPORT, tree, caches[name])  # builds the entry (and writes .pyc files)
            run(LOOKUP, tree, caches[name])
        samples = {n: {"lookup": [], "import": []} for n in trees}
        for _ in range(options.runs):
            for name, tree in trees.items():
                samples[name]["lookup"].append(run(LOOKUP, tree, caches[name])["lookup"])
                samples[name]["import"].append(run(IMPORT, tree, caches[name])["import"])
    medians = {n: {k: statistics.median(v) for k, v in s.items()} for n, s in samples.items()}
    print(json.dumps({"runs": options.runs, "medians_s": medians}, indent=1))
    for what in ("lookup", "import"):
        new, old = medians["this tree"][what], medians["reference"][what]
        print(f"{what}: {1000 * new:.2f} ms vs {1000 * old:.2f} ms reference ({new / old:.2f}x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

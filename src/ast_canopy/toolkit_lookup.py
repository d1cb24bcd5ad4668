"""cuda.pathfinder's answers about the toolkit's header directories, remembered across processes.

``cuda.pathfinder.find_nvidia_header_directory`` answers at once for headers in the wheels,
conda or ``CUDA_PATH`` / ``CUDA_HOME``. For a library in none of them (cuRAND, where its headers
are not installed) it system-loads cudart in a subprocess to find a toolkit root (its CTK-root
canary): 0.1-0.2 s in every process that asks. Every parse asks about cuRAND (clang's CUDA
wrapper includes one of its headers), so without cuRAND every rebuild of an edited header paid
it. The answers, "absent" included, are therefore kept in the parser's cache directory
(``toolkit-lookup.json``) beside a stamp of what pathfinder's search reads:

- pathfinder's version, and ``CUDA_PATH``, ``CUDA_HOME``, ``CONDA_PREFIX``, ``LD_LIBRARY_PATH``;
- the listing (names, and the directory's own change stamp) of every site-packages directory
  (a distribution installed, upgraded or removed adds or removes its ``.dist-info``), of its
  ``nvidia/`` and of each ``nvidia/*/include`` (the wheels' headers);
- the listing of the include directories of ``CUDA_PATH`` / ``CUDA_HOME``, ``$CONDA_PREFIX``
  and ``/usr/local/cuda*`` (with their ``targets/*/include``), where a system toolkit's headers
  are; ``/etc/ld.so.cache`` and the ``LD_LIBRARY_PATH`` directories, through which the canary's
  subprocess finds a toolkit.

Any change there makes the remembered answers stale: pathfinder is asked again. A directory
remembered must still exist. Answers older than :data:`MAX_AGE_S` are asked again too, for a
toolkit the system loader finds somewhere none of the above covers whose headers change by hand.

A library pathfinder found without a subprocess (in the wheels, conda, ``CUDA_PATH``: cudart and
CCCL from the wheels) is only marked so in the file (``direct``): a later process asks pathfinder
again for it, which is cheaper than taking the stamp and always current; the stamp is taken only
for the others (an absent cuRAND).

The file names directories that clang and NVRTC search, so it is trusted only as the parser's
other cached files are: yours and writable by no one else, checked on the file opened. Without
a persistent cache directory the answers are remembered in this process only; a lookup never
creates one (the first parse does).
"""

from __future__ import annotations

import functools
import glob
import hashlib
import json
import logging
import os
import site
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from ast_canopy import cache, cache_files

logger = logging.getLogger(__name__)

MEMO_NAME = "toolkit-lookup.json"
MAX_AGE_S = 24 * 3600.0
_FORMAT = 1
_ENV = ("CUDA_PATH", "CUDA_HOME", "CONDA_PREFIX", "LD_LIBRARY_PATH")

Finder = Callable[[str], str | None]
# (library, the directory pathfinder answered) -> whether it answered without a subprocess
Directly = Callable[[str, str | None], bool]


def header_dir(libname: str, ask: Finder, found_directly: Directly | None = None) -> str | None:
    """``ask(libname)`` (cuda.pathfinder's answer: a directory or None), remembered in the
    parser's cache directory until what it depends on changes. ``ask`` raising leaves nothing
    remembered.

    ``found_directly(libname, answer)`` says whether ``ask`` answered without a subprocess (in
    the wheels, conda, ``CUDA_PATH``). A library answered so is asked again in every process,
    which costs less than the stamp (listing ~10 directories, ~2 ms of a warm import) and is
    current by construction; the memo keeps only which libraries those are."""
    memo = _memo_path()
    if memo is None:
        return _ask(libname, ask, found_directly)
    record = _load(memo)
    if found_directly is not None and libname in record.get("direct", ()):
        found = _ask(libname, ask, found_directly)
        if libname in _direct:
            return found
        # It needs the search that runs a subprocess now: remembered under the stamp below.
    else:
        found = _UNASKED
    stamp = _stamp()
    answers, written = _current(memo, record, stamp)
    if found is _UNASKED:
        if libname in answers and _still_there(answers[libname]):
            return answers[libname]
        found = _ask(libname, ask, found_directly)
    # This process's answers (some asked before the cache directory existed) are all written,
    # with which of them came without a subprocess; answers added to current ones keep their
    # date: the age bounds the oldest answer.
    direct = set(record.get("direct", ())) if answers else set()
    direct = (direct - set(_asked)) | _direct
    merged = {**_asked, **answers, libname: found}
    _write(memo, stamp, merged, sorted(direct), written if answers else time.time())
    return found


def _ask(libname: str, ask: Finder, found_directly: Directly | None) -> str | None:
    found = _asked[libname] = ask(libname)
    if found_directly is not None and found_directly(libname, found):
        _direct.add(libname)
    else:
        _direct.discard(libname)
    return found


_UNASKED: Any = object()


# pathfinder's answers in this process (under this process's stamp).
_asked: dict[str, str | None] = {}
# Those of them it answered without a subprocess.
_direct: set[str] = set()


def forget() -> None:
    """Forget this process's answers and stamp (tests that change the toolkit's layout)."""
    _asked.clear()
    _direct.clear()
    _stamp.cache_clear()


def _memo_path() -> Path | None:
    directory = cache.existing_cache_dir()
    return None if directory is None else directory / MEMO_NAME


def _still_there(directory: str | None) -> bool:
    return directory is None or os.path.isdir(directory)


# -- the stamp ------------------------------------------------------------------------------
@functools.cache
def _stamp() -> str:
    # Once per process (~2 ms): the toolkit module asks about each library once per process.
    digest = hashlib.sha256()
    digest.update(f"{_FORMAT}\0{_pathfinder_version()}\0".encode())
    for variable in _ENV:
        digest.update(f"{variable}={os.environ.get(variable)}\0".encode())
    for path in _stamped_dirs():
        digest.update(_listing(path).encode())
    for path in _stamped_files():
        digest.update(_file_stamp(path).encode())
    return digest.hexdigest()


def _pathfinder_version() -> str:
    try:
        from cuda.pathfinder import __version__
    except ImportError:
        return "none"
    return str(__version__)


def _site_dirs() -> list[str]:
    """The site-packages directories pathfinder searches for wheels' headers."""
    dirs = list(site.getsitepackages())
    if site.ENABLE_USER_SITE:
        dirs.append(site.getusersitepackages())
    return dirs


def _stamped_dirs() -> Iterable[str]:
    for packages in _site_dirs():
        yield packages
        nvidia = os.path.join(packages, "nvidia")
        yield nvidia
        yield from sorted(glob.glob(os.path.join(glob.escape(nvidia), "*", "include")))
    roots = [os.environ.get(v) for v in ("CUDA_PATH", "CUDA_HOME", "CONDA_PREFIX")]
    roots += sorted(glob.glob("/usr/local/cuda*"))
    for root in filter(None, roots):
        yield os.path.join(root, "include")
        yield from sorted(glob.glob(os.path.join(glob.escape(root), "targets", "*", "include")))
    for directory in os.environ.get("LD_LIBRARY_PATH", "").split(os.pathsep):
        if directory:
            yield directory


def _stamped_files() -> Iterable[str]:
    yield "/etc/ld.so.cache"


def _listing(path: str) -> str:
    """The directory's names and change stamp ("-" when it is no directory)."""
    try:
        info = os.stat(path)
        names = sorted(os.listdir(path))
    except OSError:
        return f"{path}\0-\0"
    return f"{path}\0{info.st_ino}:{info.st_mtime_ns}\0" + "\0".join(names) + "\0"


def _file_stamp(path: str) -> str:
    try:
        info = os.stat(path)
    except OSError:
        return f"{path}\0-\0"
    return f"{path}\0{info.st_ino}:{info.st_size}:{info.st_mtime_ns}\0"


# -- the file -------------------------------------------------------------------------------
def _load(memo: Path) -> dict[str, Any]:
    """The record in ``memo`` if it is safe and of this version's form; else {}."""
    try:
        fd = os.open(memo, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except FileNotFoundError:
        return {}
    except OSError as exc:
        logger.warning("not using the toolkit lookup memo %s: %s", memo, exc)
        return {}
    with os.fdopen(fd, "rb") as stream:
        problem = cache_files.unsafe_reason(os.fstat(stream.fileno()))
        if problem:
            logger.warning(
                "not using the toolkit lookup memo %s: %s; remove it (it is remade)", memo, problem
            )
            return {}
        try:
            record = json.loads(stream.read())
        except (OSError, ValueError) as exc:
            logger.warning("ignoring the unreadable toolkit lookup memo %s: %s", memo, exc)
            return {}
    if _valid_answers(record) is None:
        logger.info("ignoring the toolkit lookup memo %s: not in this version's form", memo)
        return {}
    return record


def _current(memo: Path, record: dict[str, Any], stamp: str) -> tuple[dict[str, str | None], float]:
    """The answers in ``record`` and when they were first written, if it is recent and of this
    ``stamp``; else ({}, 0)."""
    if not record:
        return {}, 0.0
    if record["stamp"] != stamp or not 0 <= time.time() - record["written"] < MAX_AGE_S:
        logger.debug("the toolkit lookup memo %s is stale: asking cuda.pathfinder again", memo)
        return {}, 0.0
    return record["answers"], float(record["written"])


def _valid_answers(record: object) -> dict[str, str | None] | None:
    if not (isinstance(record, dict) and record.get("format") == _FORMAT):
        return None
    stamp, written, answers = record.get("stamp"), record.get("written"), record.get("answers")
    if not (isinstance(stamp, str) and isinstance(written, (int, float))):
        return None
    if not isinstance(answers, dict):
        return None
    direct = record.get("direct", [])  # absent in memos written before it was kept
    if not (isinstance(direct, list) and all(isinstance(name, str) for name in direct)):
        return None
    for name, directory in answers.items():
        if not isinstance(name, str):
            return None
        if directory is not None and not (isinstance(directory, str) and os.path.isabs(directory)):
            return None
    return answers


def _write(
    memo: Path, stamp: str, answers: dict[str, str | None], direct: list[str], written: float
) -> None:
    record = {"format": _FORMAT, "stamp": stamp, "written": written, "answers": answers}
    record["direct"] = direct
    try:
        cache_files.write_atomically(memo, json.dumps(record, indent=1).encode())
    except OSError as exc:
        # Only a speed-up: the next process asks pathfinder again.
        logger.debug("could not remember the toolkit lookup in %s: %s", memo, exc)

"""The sha256 of every file a build's parse read (an entry's ``included_files``), with the
digests of files that did not change remembered in the cache root.

A parse of a header reads ~180 files of the toolkit and clang (4.5 MB), the same at every
rebuild of an edited header: hashing them all again cost ~6 ms of the edit loop's ~0.25 s
(issue 22). ``keys/file-hashes.json`` keeps each file's digest with its size and modification
time; a file whose stamp is the one remembered is taken as unchanged without reading it, as a
warm import takes an entry's included files by their stamps (``cache.key``,
``included_file_differences``), and on the same conditions: a stamp is remembered only for a
file last modified ``STAMP_SETTLE_S`` before it was read, and unchanged while it was (a file
written within the clock's granularity could change again under the same stamp); a memo that
another user owns or others can write is not read (it decides what an entry records as read).
"""

from __future__ import annotations

import json
import logging
import os
import re
import time
from collections.abc import Iterable
from pathlib import Path

from ast_canopy.cache_files import unsafe_reason, write_atomically
from numbast_import.cache.key import STAMP_SETTLE_S, file_sha256

logger = logging.getLogger(__name__)

MEMO = "file-hashes.json"
# Files remembered at most, the last learned kept: every build reads the whole memo (~130
# bytes a file as JSON), which must stay cheap beside the hashing it saves (~35 us a file).
MEMO_FILES = 4096

_DIGEST = re.compile(r"[0-9a-f]{64}")


def included_file_hashes(paths: Iterable[str], memo_dir: Path | None = None) -> dict[str, str]:
    """path -> sha256 of each of ``paths`` (sorted); with ``memo_dir`` (the cache root's
    ``keys/``), files remembered there under their current stamp are not read."""
    paths = sorted(set(paths))
    if memo_dir is None:
        return {path: file_sha256(path) for path in paths}
    memo = _read(memo_dir / MEMO)
    hashes: dict[str, str] = {}
    learned: dict[str, list] = {}
    for path in paths:
        try:
            info = os.stat(path)
        except OSError:
            hashes[path] = file_sha256(path)  # raises as without a memo
            continue
        stamp = [info.st_size, info.st_mtime_ns]
        known = memo.get(path)
        if known is not None and known[:2] == stamp:
            hashes[path] = known[2]
            continue
        hashes[path] = digest = file_sha256(path)
        if info.st_mtime < time.time() - STAMP_SETTLE_S and _stamp(path) == stamp:
            learned[path] = [*stamp, digest]
    if learned:
        kept = {path: entry for path, entry in memo.items() if path not in learned}
        _write(memo_dir / MEMO, dict([*kept.items(), *learned.items()][-MEMO_FILES:]))
    return hashes


def _stamp(path: str) -> list[int] | None:
    try:
        info = os.stat(path)
    except OSError:
        return None
    return [info.st_size, info.st_mtime_ns]


def _read(path: Path) -> dict[str, list]:
    """The memo's well-formed entries; none when it is missing, damaged or not trusted."""
    try:
        with open(path, "rb") as stream:
            problem = unsafe_reason(os.fstat(stream.fileno()))
            if problem is not None:
                logger.warning("not using %s: %s", path, problem)
                return {}
            data = json.loads(stream.read())
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {
        path: entry
        for path, entry in data.items()
        if isinstance(entry, list)
        and len(entry) == 3
        and all(type(number) is int for number in entry[:2])
        and isinstance(entry[2], str)
        and _DIGEST.fullmatch(entry[2])
    }


def _write(path: Path, memo: dict[str, list]) -> None:
    """Best effort: a cache root that cannot be written only costs the next build the hashing
    (and two builds writing at once keep one's files: the other's are hashed again)."""
    try:
        path.parent.mkdir(mode=0o700, exist_ok=True)
        write_atomically(path, json.dumps(memo, separators=(",", ":")).encode())
    except OSError as exc:
        logger.debug("could not remember the files' digests in %s: %s", path, exc)

"""The sha256 of input files, remembered in the cache root under the files' stamps.

Two callers hash the same kind of input and both would pay for it on every import: a warm
import names its entry by the header's digest (a 212 KB ``cuda_fp16.h`` was 5% of a hit's
instructions), and a build records the digest of every file its parse read (~180 files of the
toolkit and clang, 4.5 MB: ~6 ms of the edit loop's ~0.25 s, issue 22). Both remember a
file's digest with its stamp (device, inode, size, modification and change times) and take a
file whose stamp is the remembered one as unchanged, without reading it. The terms are the same
for both (docs/import_system.md, "Keys"): a stamp is remembered only for a file last modified
or changed ``STAMP_SETTLE_S`` before it was read, and unchanged while it was (a file written
within the clock's granularity could change again under the same stamp); a memo that another
user owns or others can write is not read (it decides what an entry is named by and records as
read). The stores differ because the readers do: a hit reads one small file per header
(``header-<digest of its path>``), a build one table of all files (``file-hashes.json``).
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
import time
from collections.abc import Iterable
from pathlib import Path

from ast_canopy.cache_files import unsafe_reason, write_atomically

logger = logging.getLogger(__name__)

# A file modified this recently may change again within the file system's time granularity
# without its stamp changing: its stamp is not trusted (git's "racy" files, ccache's too-new).
STAMP_SETTLE_S = 2.0
MEMO = "file-hashes.json"
# Files remembered at most in MEMO: the last learned. Reading it must stay cheap beside the
# hashing it saves (830 KB, 1.8 ms at the cap).
MEMO_FILES = 4096

_DIGEST = re.compile(r"[0-9a-f]{64}")
_now_ns = time.time_ns  # the clock the settle time is measured on (tests set it)


def file_sha256(path: str | os.PathLike[str]) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as stream:
        for block in iter(lambda: stream.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def file_stamp(info: os.stat_result) -> list[int]:
    """What must be unchanged for a file to be taken as unchanged (the change time moves with
    every write, even one that restores the modification time)."""
    return [info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns]


def _rememberable(path: str, stamp: list[int]) -> bool:
    """Whether the digest just read of ``path`` (whose stamp before reading was ``stamp``) may be
    remembered: the file had settled, and did not change while it was read."""
    settled_before = _now_ns() - int(STAMP_SETTLE_S * 1e9)
    if max(stamp[3], stamp[4]) >= settled_before:
        return False
    try:
        return file_stamp(os.stat(path)) == stamp
    except OSError:
        return False


def header_sha256(header: str, memo_dir: Path | None = None) -> str:
    """sha256 of ``header``, remembered in ``memo_dir`` (the cache root's ``keys/``) in a file
    of its own."""
    if memo_dir is None:
        return file_sha256(header)
    path = os.path.realpath(header)
    stamp = file_stamp(os.stat(path))
    memo = memo_dir / f"header-{hashlib.sha256(path.encode()).hexdigest()[:32]}"
    remembered = read_memo(memo)
    if remembered is not None:
        lines = remembered.decode(errors="replace").split("\n")
        if lines[:2] == [path, _stamp_text(stamp)] and len(lines) == 3:
            if _DIGEST.fullmatch(lines[2]):
                return lines[2]
    digest = file_sha256(path)
    if _rememberable(path, stamp):
        write_memo(memo, f"{path}\n{_stamp_text(stamp)}\n{digest}".encode())
    return digest


def _stamp_text(stamp: list[int]) -> str:
    return " ".join(str(number) for number in stamp)


def included_file_hashes(paths: Iterable[str], memo_dir: Path | None = None) -> dict[str, str]:
    """path -> sha256 of each of ``paths`` (sorted); with ``memo_dir`` (the cache root's
    ``keys/``), files remembered in its table under their current stamp are not read."""
    paths = sorted(set(paths))
    if memo_dir is None:
        return {path: file_sha256(path) for path in paths}
    memo = _table(memo_dir / MEMO)
    hashes: dict[str, str] = {}
    learned: dict[str, list] = {}
    for path in paths:
        try:
            stamp = file_stamp(os.stat(path))
        except OSError:
            hashes[path] = file_sha256(path)  # raises as without a memo
            continue
        known = memo.get(path)
        if known is not None and known[:5] == stamp:
            hashes[path] = known[5]
            continue
        hashes[path] = digest = file_sha256(path)
        if _rememberable(path, stamp):
            learned[path] = [*stamp, digest]
    if learned:
        kept = {path: entry for path, entry in memo.items() if path not in learned}
        table = dict([*kept.items(), *learned.items()][-MEMO_FILES:])
        write_memo(memo_dir / MEMO, json.dumps(table, separators=(",", ":")).encode())
    return hashes


def read_memo(path: Path) -> bytes | None:
    """The memo's bytes; None when it is missing or not trusted."""
    try:
        with open(path, "rb") as stream:
            problem = unsafe_reason(os.fstat(stream.fileno()))
            if problem is not None:
                logger.warning("not using %s: %s", path, problem)
                return None
            return stream.read()
    except OSError:
        return None


def _table(path: Path) -> dict[str, list]:
    """The table's well-formed entries; none when it is missing, damaged or not trusted."""
    data = read_memo(path)
    try:
        table = json.loads(data) if data is not None else None
    except ValueError:
        return {}
    if not isinstance(table, dict):
        return {}
    return {
        path: entry
        for path, entry in table.items()
        if isinstance(entry, list)
        and len(entry) == 6
        and all(type(number) is int for number in entry[:5])
        and isinstance(entry[5], str)
        and _DIGEST.fullmatch(entry[5])
    }


def write_memo(path: Path, data: bytes) -> None:
    """Best effort: a cache root that cannot be written only costs the next process the
    hashing or the question the memo answers (and of two builds writing the table at once,
    one's files are hashed again)."""
    try:
        path.parent.mkdir(mode=0o700, exist_ok=True)  # never the root: only where it exists
        write_atomically(path, data)
    except OSError as exc:
        logger.debug("could not write the memo %s: %s", path, exc)

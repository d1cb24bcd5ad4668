"""The files of a cache entry, below the entry store (``numbast_import.cache.entries``):
reading one only when it is safe to trust (or checking one a hit does not read), writing an
entry's files manifest last, moving a complete entry into place, removing one so that readers
never see half of it, and marking its last use.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ast_canopy.cache_files import require_space
from numbast_import.cache.manifest import MANIFEST
from numbast_import.cache.root import refuse_unsafe, unsafe_reason
from numbast_import.errors import CacheSafetyError

TRASH_PREFIX = ".old-"
_TOUCH_INTERVAL_S = 3600.0


def read_trusted(path: Path, shared: bool = False) -> bytes:
    """The contents of the cached file ``path``, if it is safe to trust (``check_safe``'s
    rules, judged on the file that was opened); CacheSafetyError otherwise."""
    with open(path, "rb") as stream:
        refuse_unsafe(path, os.fstat(stream.fileno()), shared)
        return stream.read()


def file_problem(path: Path, shared: bool = False) -> str | None:
    """Why the cached file or directory ``path`` must not be trusted, or None."""
    try:
        return unsafe_reason(os.stat(path), shared)
    except OSError:
        return None


def publish(staging: Path, target: Path) -> None:
    """Move the complete entry ``staging`` to ``target`` (the caller holds its lock). A
    damaged or stale entry there is moved aside first: os.replace cannot overwrite a non-empty
    directory; its readers see files vanish, which is a miss."""
    if target.exists():
        remove_entry(target)
    os.replace(staging, target)


def remove_entry(path: Path) -> None:
    """Remove an entry directory: renamed aside first, so readers never see half of it."""
    trash = Path(tempfile.mkdtemp(prefix=TRASH_PREFIX, dir=path.parent))
    try:
        os.replace(path, trash / path.name)
    finally:
        shutil.rmtree(trash, ignore_errors=True)


def mark_used(path: Path) -> None:
    """Set the entry directory's mtime, its last use (``prune --older-than`` and
    ``--max-size`` evict the least recently used); at most hourly, so hits stay read-only."""
    try:
        if time.time() - path.stat().st_mtime > _TOUCH_INTERVAL_S:
            os.utime(path)
    except OSError:
        pass  # a read-only root: the entry keeps its build time as its last use


def directories_between(root: Path, path: Path) -> list[Path]:
    """The directories from below ``root`` down to ``path``."""
    parts = path.relative_to(root).parts
    return [root.joinpath(*parts[: i + 1]) for i in range(len(parts))]


def is_digest(name: str) -> bool:
    """Whether ``name`` is an entry directory's name (a sha256 in hex)."""
    return len(name) == 64 and all(c in "0123456789abcdef" for c in name)


def absent_or_unsafe(path: Path, shared: bool, strict: bool) -> str | None:
    """Why the artifact ``path``, which a hit does not read, fails a hit: missing, or not safe
    to trust (CacheSafetyError when ``strict``)."""
    try:
        info = os.stat(path)
    except OSError:
        return f"{path.name} missing"
    try:
        refuse_unsafe(path, info, shared)
    except CacheSafetyError as exc:
        if strict:
            raise
        return str(exc)
    return None


def write_entry_files(
    staging: Path, artifacts: Mapping[str, bytes], manifest: dict[str, Any]
) -> None:
    """An entry's artifacts into ``staging``, its manifest last, once the disk has room."""
    text = json.dumps(manifest, indent=1, sort_keys=True).encode()
    require_space(staging, sum(len(data) for data in artifacts.values()) + len(text))
    for name, data in artifacts.items():
        (staging / name).write_bytes(data)
    # Written last: an entry without it is recognizably incomplete.
    (staging / MANIFEST).write_bytes(text)

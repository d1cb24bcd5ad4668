"""Writing the files of a cache so that readers see whole files or none: the one atomic writer
of the project.

Used by the parser's precompiled preludes (``ast_canopy.prelude``) and by every entry of
numbast-import's cache (``numbast_import.cache.entries``); it lives in the lowest layer so that
the parser can use it without importing the import system.

A file is written under a scratch name beside its target (``.tmp-<name>-<random>``), then moved
over it with ``os.replace``. A writer killed in between leaves only a scratch file, which no
reader takes for the target and which :func:`remove_dead_scratch` (run by ``numbast-cache
prune`` and by the next writer) deletes.

Space is checked before writing, against what the file will need: libclang aborts the process
(SIGABRT, "IO failure on output stream") when saving a precompiled header fills the disk, so
the prelude is saved only where it fits with room to spare, and otherwise not at all. A write
refused for space raises ``OSError(ENOSPC)``, as a full disk does.
"""

from __future__ import annotations

import errno
import os
import stat
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

SCRATCH_PREFIX = ".tmp-"
# What a filesystem says when a cache cannot be written (read-only, no permission, full, over
# quota, a file where a directory should be): callers then work in memory instead.
CANNOT_WRITE = (errno.EROFS, errno.EACCES, errno.EPERM, errno.ENOSPC, errno.EDQUOT, errno.ENOTDIR)
# Left free besides the file itself: other writers (and the user) need the disk too.
SPACE_MARGIN = 16 << 20
# A scratch file this old belongs to a dead writer (a prelude, the largest, saves in ~1 s).
SCRATCH_DEAD_AFTER_S = 600.0

Writer = Callable[[str], None]


def unsafe_reason(
    info: os.stat_result, shared: bool = False, sticky_ok: bool = False
) -> str | None:
    """Why a cached file or directory with this ``os.stat`` result must not be trusted (its
    contents are code or compiler input that runs as you), or None. Trusted: owned by you
    (``shared``: or by root, as an image's read-only cache is) and writable by no one else
    (``sticky_ok``: or a directory with the sticky bit, in which others cannot replace your
    files)."""
    if not hasattr(os, "getuid"):  # pragma: no cover - Windows has no owners to compare
        return None
    owners = {os.getuid(), 0} if shared else {os.getuid()}
    if info.st_uid not in owners:
        return f"it belongs to uid {info.st_uid}, not to you (uid {os.getuid()})"
    sticky = sticky_ok and stat.S_ISDIR(info.st_mode) and info.st_mode & stat.S_ISVTX
    if info.st_mode & (stat.S_IWGRP | stat.S_IWOTH) and not sticky:
        return f"it is writable by others (mode {stat.S_IMODE(info.st_mode):o})"
    return None


def free_space(directory: str | os.PathLike[str]) -> int:
    """Bytes an unprivileged writer may still use on ``directory``'s filesystem."""
    info = os.statvfs(directory)
    return info.f_bavail * info.f_frsize


def require_space(directory: str | os.PathLike[str], needed: int) -> None:
    """Raise ``OSError(ENOSPC)`` unless ``needed`` bytes fit in ``directory`` with the margin."""
    available = free_space(directory)
    if available < needed + SPACE_MARGIN:
        raise OSError(
            errno.ENOSPC,
            f"No space left on device: {needed} bytes needed with {SPACE_MARGIN >> 20} MiB "
            f"to spare, {available} available",
            str(directory),
        )


def write_atomically(
    path: str | os.PathLike[str],
    content: bytes | Writer,
    expected_size: int | None = None,
    mode: int = 0o600,
) -> None:
    """Write ``content`` (bytes, or a function that writes the file at the path it is given)
    to ``path`` atomically, with permissions ``mode``. ``expected_size`` (default: the length
    of the bytes) is checked against the free space first. Raises OSError; on any failure
    the target is untouched and no scratch file is left."""
    target = Path(path)
    size = len(content) if isinstance(content, (bytes, bytearray)) else expected_size
    if size is not None:
        require_space(target.parent, size)
    fd, scratch = tempfile.mkstemp(prefix=f"{SCRATCH_PREFIX}{target.name}-", dir=target.parent)
    try:
        if isinstance(content, (bytes, bytearray)):
            with os.fdopen(fd, "wb") as stream:
                stream.write(content)
        else:
            os.close(fd)
            content(scratch)
        os.chmod(scratch, mode)
        os.replace(scratch, target)
    except BaseException:
        try:
            os.unlink(scratch)
        except FileNotFoundError:
            pass
        raise


def remove_dead_scratch(
    directory: str | os.PathLike[str], older_than_s: float = SCRATCH_DEAD_AFTER_S
) -> list[Path]:
    """Remove the scratch files of writers that died in ``directory`` (those older than
    ``older_than_s``: a live writer's is younger). Returns what was removed."""
    removed = []
    cutoff = time.time() - older_than_s
    try:
        candidates = [p for p in Path(directory).iterdir() if p.name.startswith(SCRATCH_PREFIX)]
    except OSError:
        return removed
    for path in candidates:
        try:
            if path.is_file() and path.stat().st_mtime < cutoff:
                path.unlink()
                removed.append(path)
        except OSError:
            continue  # removed meanwhile, or not ours to remove
    return removed

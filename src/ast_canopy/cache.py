"""The parser's per-user cache directory: the toolkit layout clang wants and precompiled preludes.

Both must live at a stable path: a precompiled prelude records the absolute paths of the headers
it was built from, so the toolkit layout it saw has to be at the same place in the next process.

The directory is ``$AST_CANOPY_CACHE_DIR``, else ``$XDG_CACHE_HOME/ast_canopy``, else
``~/.cache/ast_canopy``. A precompiled prelude is trusted input to clang (it could inject
declarations), so a directory that another user owns or that others can write is refused; the
parser then works from a private temporary directory and keeps no prelude.
"""

from __future__ import annotations

import atexit
import functools
import logging
import os
import shutil
import stat
import tempfile
from pathlib import Path

logger = logging.getLogger(__name__)

CACHE_DIR_ENV = "AST_CANOPY_CACHE_DIR"


def _default_cache_dir() -> Path:
    explicit = os.environ.get(CACHE_DIR_ENV)
    if explicit:
        return Path(explicit)
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg) if xdg else Path.home() / ".cache"
    return base / "ast_canopy"


def _is_private(path: Path) -> bool:
    info = path.stat()
    owned = not hasattr(os, "getuid") or info.st_uid == os.getuid()
    return owned and not info.st_mode & (stat.S_IWGRP | stat.S_IWOTH)


def persistent_cache_dir() -> Path | None:
    """The per-user cache directory, created if needed; None when it is missing or unsafe."""
    return _checked_cache_dir(_default_cache_dir())


@functools.lru_cache(maxsize=8)
def _checked_cache_dir(path: Path) -> Path | None:
    # Cached per path so that a refused directory is reported once, not at every parse.
    try:
        path.mkdir(mode=0o700, parents=True, exist_ok=True)
    except OSError as exc:
        logger.warning(
            "ast_canopy cache directory %s cannot be created (%s); parsing without a "
            "precompiled prelude. Set %s to a writable directory to speed parsing up.",
            path,
            exc,
            CACHE_DIR_ENV,
        )
        return None
    if not _is_private(path):
        logger.warning(
            "ast_canopy cache directory %s is owned by another user or writable by others; "
            "not using it. Fix its permissions (chmod 700) or set %s.",
            path,
            CACHE_DIR_ENV,
        )
        return None
    return path


@functools.cache
def private_temp_dir() -> Path:
    """A directory only this process uses, removed at exit (the fallback when no cache)."""
    path = Path(tempfile.mkdtemp(prefix="ast_canopy-"))
    atexit.register(shutil.rmtree, path, ignore_errors=True)
    return path


def working_dir() -> tuple[Path, bool]:
    """Where to put the toolkit layout: (directory, whether it persists across processes)."""
    persistent = persistent_cache_dir()
    if persistent is not None:
        return persistent, True
    return private_temp_dir(), False

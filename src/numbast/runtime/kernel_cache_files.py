"""numba-cuda's cache files (an index ``.nbi`` and data ``.nbc`` per kernel), read only when it
is safe to, and healed when damaged, for the kernel cache (``kernel_cache``).

Both files are pickles: unpickling one runs whatever code its writer chose. numba-cuda keeps
them in ``__pycache__`` beside the source or in ``NUMBA_CACHE_DIR``, which may be a shared
directory. So, as for numbast-import's own cache entries, a file is unpickled only when it
belongs to you and no one else can write it, in a directory that belongs to you (or root) and
that others cannot write, or that has the sticky bit (then others cannot replace your files).
Anything else is not read (the kernel compiles, one warning) and nothing is saved there.

A file that does not unpickle (truncated, garbage) is a miss, with one warning, and is removed,
so that the save after the compile writes a whole one: numba-cuda alone raised on every load and
every save of such a kernel until someone deleted the file.

It imports numba-cuda and the standard library only (a standalone generated module carries it).
"""

from __future__ import annotations

import logging
import os
import pickle
import stat
from typing import Any

logger = logging.getLogger(__name__)

# What unpickling a damaged file raises (garbage can look like any opcode).
DAMAGE = (
    pickle.UnpicklingError,
    EOFError,
    ValueError,
    TypeError,
    AttributeError,
    ImportError,
    IndexError,
    KeyError,
    OverflowError,
    MemoryError,
)
REQUIRED = ("_load_index", "_load_data", "_save_index", "_save_data", "_data_path", "save")


def unsafe_reason(path: str, directory: bool = False) -> str | None:
    """Why the cache file (or ``directory``) at ``path`` must not be trusted, or None (also
    when it does not exist)."""
    try:
        info = os.stat(path)
    except OSError:
        return None
    uid = os.getuid() if hasattr(os, "getuid") else info.st_uid
    owners = {uid, 0} if directory else {uid}
    if info.st_uid not in owners:
        return f"{path} belongs to uid {info.st_uid}, not to you (uid {uid})"
    writable_by_others = info.st_mode & (stat.S_IWGRP | stat.S_IWOTH)
    if writable_by_others and not (directory and info.st_mode & stat.S_ISVTX):
        return f"{path} is writable by others (mode {stat.S_IMODE(info.st_mode):o})"
    return None


def checked_cache_file_class(base: type, warn: Any) -> type:
    """A subclass of numba-cuda's ``IndexDataCacheFile`` that reads and writes only safe
    files and heals damaged ones; ``warn(key, message)`` warns once per key."""

    class CheckedCacheFile(base):
        def _refusal(self, path: str | None = None) -> str | None:
            return unsafe_reason(self._cache_path, directory=True) or (
                unsafe_reason(path) if path else None
            )

        def _load_index(self) -> dict:
            problem = self._refusal(self._index_path)
            if problem:
                warn(("unsafe", self._cache_path), _refused(problem))
                return {}
            try:
                return super()._load_index()
            except DAMAGE as exc:
                self._discard(self._index_path, exc)
                return {}

        def _load_data(self, name: str) -> Any:
            path = self._data_path(name)
            problem = self._refusal(path)
            if problem:
                warn(("unsafe", self._cache_path), _refused(problem))
                return None
            try:
                return super()._load_data(name)
            except DAMAGE as exc:
                self._discard(path, exc)
                return None

        def save(self, key: Any, data: Any) -> None:
            problem = self._refusal()
            if problem:
                warn(("unsafe", self._cache_path), _refused(problem))
                return
            super().save(key, data)

        def _discard(self, path: str, exc: BaseException) -> None:
            warn(
                ("damaged", path),
                f"ignoring the damaged kernel cache file {path} ({type(exc).__name__}: {exc}); "
                "the kernel compiles and the file is written again",
            )
            try:
                os.unlink(path)
            except OSError as error:
                logger.info("cannot remove the damaged kernel cache file %s: %s", path, error)

    return CheckedCacheFile


def _refused(problem: str) -> str:
    return (
        f"numbast's kernel cache does not read or write numba-cuda's cache there: {problem}, "
        "so its pickles could run others' code as you. Kernels compile instead. Set "
        "NUMBA_CACHE_DIR to a directory of yours (chmod go-w)"
    )

"""The parser's cache directory: the toolkit layout clang wants and precompiled preludes.

Both must live at a stable path: a precompiled prelude records the absolute paths of the headers
it was built from, so the toolkit layout it saw has to be at the same place in the next process.

The directory is part of numbast-import's one cache root, so that one CLI (``numbast-cache``)
sees, prunes and clears it: the import system sets it to ``<cache root>/parser`` with
:func:`use_directory` before it parses. Used on its own, the parser picks
``$AST_CANOPY_CACHE_DIR``, else ``$NUMBAST_CACHE_DIR/parser``, else ``parser/`` in
numbast-import's user cache directory (``~/.cache/numbast-import/parser`` on Linux).

A precompiled prelude is trusted input to clang (it could inject declarations), so a directory
that another user owns or that others can write is refused; the parser then works from a
private temporary directory and keeps no prelude.
"""

from __future__ import annotations

import atexit
import functools
import logging
import os
import shutil
import sys
import tempfile
from collections.abc import Iterable
from pathlib import Path

from ast_canopy import cache_files

logger = logging.getLogger(__name__)

CACHE_DIR_ENV = "AST_CANOPY_CACHE_DIR"
ROOT_ENV = "NUMBAST_CACHE_DIR"  # numbast-import's cache root
APP_NAME = "numbast-import"
SUBDIRECTORY = "parser"

# Set by use_directory(): a directory, or _PRIVATE for "no persistent cache".
_chosen: Path | str | None = None
_PRIVATE = "private"


def use_directory(path: str | os.PathLike[str] | None) -> None:
    """Keep the parser's cache in ``path`` from now on in this process; None keeps it in a
    private temporary directory (no precompiled prelude survives the process)."""
    global _chosen
    _chosen = _PRIVATE if path is None else Path(path)


def chosen_directory() -> Path | None:
    """The directory use_directory() chose; None for a private one (or none chosen)."""
    return _chosen if isinstance(_chosen, Path) else None


def user_cache_root() -> Path:
    """numbast-import's user cache directory, as ``platformdirs.user_cache_dir`` gives it
    (``$XDG_CACHE_HOME`` or ``~/.cache`` + ``/numbast-import`` on Linux)."""
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Caches" / APP_NAME
    if os.name == "nt":
        local = os.environ.get("LOCALAPPDATA") or str(Path.home() / "AppData" / "Local")
        return Path(local) / APP_NAME / APP_NAME / "Cache"
    xdg = os.environ.get("XDG_CACHE_HOME", "").strip()
    return (Path(xdg) if xdg else Path.home() / ".cache") / APP_NAME


def legacy_cache_dir() -> Path:
    """Where earlier versions kept the parser's cache (outside any managed root)."""
    xdg = os.environ.get("XDG_CACHE_HOME", "").strip()
    return (Path(xdg) if xdg else Path.home() / ".cache") / "ast_canopy"


def _default_cache_dir() -> Path:
    explicit = os.environ.get(CACHE_DIR_ENV)
    if explicit:
        return Path(explicit)
    root = os.environ.get(ROOT_ENV)
    return (Path(root).expanduser() if root else user_cache_root()) / SUBDIRECTORY


def unsafe_reason(path: Path) -> str | None:
    """Why the cache file or directory ``path`` must not be trusted (another user's, or
    writable by others), or None; a missing path is no reason."""
    try:
        info = os.stat(path)
    except FileNotFoundError:
        return None
    return cache_files.unsafe_reason(info)


def persistent_cache_dir() -> Path | None:
    """The cache directory, created if needed; None when it is unsafe, cannot be created, or
    :func:`use_directory` asked for none."""
    if _chosen == _PRIVATE:
        return None
    path = _chosen if _chosen is not None else _default_cache_dir()
    checked = _checked_cache_dir(path)
    if checked is not None and not checked.is_dir():
        # Removed since it was checked (numbast-cache clear --all): made and checked again.
        _checked_cache_dir.cache_clear()
        checked = _checked_cache_dir(path)
    return checked


def existing_cache_dir() -> Path | None:
    """The cache directory if it exists already and is safe; never made here (a toolkit lookup
    before any parse, as a warm import's key makes, must not create the cache root)."""
    if _chosen == _PRIVATE:
        return None
    path = _chosen if _chosen is not None else _default_cache_dir()
    return _checked_cache_dir(path) if path.is_dir() else None


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
    problem = unsafe_reason(path)
    if problem:
        logger.warning(
            "ast_canopy cache directory %s is not safe to use (%s); not using it. Fix its "
            "permissions (chmod 700) or set %s.",
            path,
            problem,
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


def is_parser_file(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` is one of the parser's own files (its stand-in headers and toolkit
    layout), which a parse reports as read but which are no input of the user's: caches keyed
    on a parse's files leave them out (their contents follow from this package's version)."""
    path = os.fspath(path)
    return path not in inputs_among([path])


def inputs_among(paths: Iterable[str]) -> dict[str, str]:
    """The paths among ``paths`` that are no file of the parser's own (:func:`is_parser_file`),
    in their order, each with its realpath. For the hundreds of files a parse read, each
    directory is resolved once (a realpath is a system call per path component)."""
    places = [persistent_cache_dir()]
    if private_temp_dir.cache_info().currsize:  # made only when a parse needed it
        places.append(private_temp_dir())
    parser_dirs = [_real_dir(str(place)) for place in places if place]
    real_dirs: dict[str, str] = {}
    inputs = {}
    for path in paths:
        real = _realpath(path, real_dirs)
        if not any(_is_within(real, directory) for directory in parser_dirs):
            inputs[path] = real
    return inputs


def _realpath(path: str, real_dirs: dict[str, str]) -> str:
    """``os.path.realpath(path)``, with the realpath of its directory looked up in (or added
    to) ``real_dirs``: a file that is no symlink resolves to its name in its resolved
    directory."""
    directory, name = os.path.split(path)
    if name in ("", ".", "..") or os.path.islink(path):
        return os.path.realpath(path)
    real_dir = real_dirs.get(directory)
    if real_dir is None:
        real_dir = real_dirs[directory] = os.path.realpath(directory)
    return os.path.join(real_dir, name)


@functools.lru_cache(maxsize=8)
def _real_dir(path: str) -> str:
    # The parser's directories: resolved once per process.
    return os.path.realpath(path)


def _is_within(path: str, directory: str) -> bool:
    return path == directory or path.startswith(directory.rstrip(os.sep) + os.sep)

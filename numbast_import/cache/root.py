"""Where the cache lives, and the ownership rules that make executing its files safe.

One writable root holds everything cached (header entries, the parser's preludes under
``parser/``, compiled ``SourceModule`` objects under ``rtc/``). ``NUMBAST_CACHE_PATH`` lists
more roots, searched read-only before it, so an image or a shared filesystem can carry entries
built once.

Cached files are Python code and compiled device code that get executed, so a directory anyone
else can write to is refused: another user could plant code that runs as you. Read-only layers
may also belong to root (an image's /opt/...), which cannot be another user's trap.
"""

from __future__ import annotations

import logging
import os
import stat
from pathlib import Path

from ast_canopy.cache_files import unsafe_reason
from numbast_import.errors import CacheSafetyError

logger = logging.getLogger(__name__)

ENV_VAR = "NUMBAST_CACHE_DIR"
LAYERS_ENV = "NUMBAST_CACHE_PATH"
PARSER_DIR = "parser"
# Small memos of key components that are slow to compute (the generator's fingerprint).
KEYS_DIR = "keys"

__all__ = [
    "ENV_VAR",
    "LAYERS_ENV",
    "CacheSafetyError",
    "cache_layers",
    "cache_root",
    "check_safe",
    "ensure_private_dir",
    "refuse_unsafe",
]


def cache_root(configured: str | None = None) -> Path:
    """``NUMBAST_CACHE_DIR``, else ``configured`` (``cache-dir`` in pyproject), else the user's
    cache directory; never inside site-packages, where it would ship with an environment."""
    from_env = os.environ.get(ENV_VAR)
    if from_env:
        root = Path(from_env).expanduser()
        origin = f"the {ENV_VAR} environment variable"
    elif configured:
        root = Path(configured)
        origin = "cache-dir in [tool.numbast-import]"
    else:
        import platformdirs

        root = Path(platformdirs.user_cache_dir("numbast-import"))
        origin = "the user cache directory"
    root = root.resolve()
    if "site-packages" in root.parts or "dist-packages" in root.parts:
        raise CacheSafetyError(
            f"numbast-import cache root {root} (from {origin}) is inside site-packages; point it "
            f"somewhere else, for example by setting {ENV_VAR}"
        )
    return root


def cache_layers(writable: Path | None = None) -> list[Path]:
    """The read-only roots of ``NUMBAST_CACHE_PATH`` (os.pathsep-separated), in order; ones
    that do not exist, and the writable root itself, are left out."""
    layers: list[Path] = []
    for part in os.environ.get(LAYERS_ENV, "").split(os.pathsep):
        if not part.strip():
            continue
        layer = Path(part.strip()).expanduser().resolve()
        if layer == writable or layer in layers:
            continue
        if not layer.is_dir():
            logger.debug("%s: %s does not exist; skipped", LAYERS_ENV, layer)
            continue
        layers.append(layer)
    return layers


def ensure_private_dir(path: Path) -> Path:
    """Create ``path`` (and parents) with mode 0o700, then check it is safe to use. Raises
    OSError when it cannot be created."""
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    check_safe(path)
    return path


def check_safe(path: Path, shared: bool = False) -> None:
    """Raise CacheSafetyError when ``path`` is owned by another user or is group- or
    world-writable. ``shared`` (read-only layers) also accepts files owned by root. Symlinks
    are judged by what they point to, which is what gets read."""
    try:
        info = os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        return
    refuse_unsafe(path, info, shared)


def refuse_unsafe(path: Path, info: os.stat_result, shared: bool = False) -> None:
    """Raise CacheSafetyError, saying how to fix it, when the cached directory or file
    ``path`` (with ``os.stat`` result ``info``) must not be trusted."""
    problem = unsafe_reason(info, shared)
    if problem is None:
        return
    what = "directory" if stat.S_ISDIR(info.st_mode) else "file"
    if "writable by others" in problem:
        fix = f"Run `chmod go-w {path}`, or set {ENV_VAR} to a private directory"
    elif shared:
        fix = f"Remove it, or remove its layer from {LAYERS_ENV}"
    else:
        fix = f"Remove it, or set {ENV_VAR} to a directory of yours"
    raise CacheSafetyError(
        f"numbast-import cache {what} {path} is not safe to use: {problem}, so others could "
        f"plant code that runs as you. {fix}"
    )

"""Reading and writing header entries (layout: ``numbast_import.cache.manifest``).

Lookups search the read-only layers of ``NUMBAST_CACHE_PATH`` first, then the writable root;
they take no lock and write nothing but, at most hourly, the entry's modification time (its
"last used" for ``numbast-cache prune``). Builders take their shard's lock, look again, build
in a private staging directory of the shard and move it into place with ``os.replace``.

The writable root is created on the first build, not before: a process served entirely by a
layer writes nothing. When it cannot be created or written (a read-only filesystem, no
permission), the build happens in memory, with one warning per process and root.
"""

from __future__ import annotations

import errno
import json
import logging
import os
import shutil
import socket
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from numbast_import.cache.key import component_differences, included_file_differences
from numbast_import.cache.lock import STAGING_PREFIX, TRASH_PREFIX, BuildLock
from numbast_import.cache.manifest import KIND, MANIFEST, read_entry, sha256
from numbast_import.cache.root import check_safe, ensure_private_dir

logger = logging.getLogger(__name__)

_TOUCH_INTERVAL_S = 3600.0
# What a filesystem says when the cache cannot be written: build in memory then.
_CANNOT_WRITE = (errno.EROFS, errno.EACCES, errno.EPERM, errno.ENOSPC, errno.EDQUOT)
_warned: set[str] = set()


def warn_once(key: str, message: str, *args: object) -> None:
    """``logger.warning`` unless the same ``key`` was warned about in this process."""
    if key in _warned:
        return
    _warned.add(key)
    logger.warning(message, *args)


@dataclass(frozen=True)
class Entry:
    """A complete, verified cache entry, with the artifacts' bytes as they were verified (read
    once: a builder replacing the entry afterwards cannot pull files from under the reader).
    ``path`` is None for an entry built in memory (the root could not be written)."""

    path: Path | None
    manifest: dict[str, Any]
    artifacts: Mapping[str, bytes]

    def read(self, name: str) -> bytes:
        return self.artifacts[name]


@dataclass(frozen=True)
class BuildOutput:
    """What a builder made: artifact name -> bytes, and the files the parse read."""

    artifacts: Mapping[str, bytes]
    included_files: Mapping[str, str]
    notes: Mapping[str, Any] = field(default_factory=dict)  # recorded in the manifest as is


# A builder gets the directory its entry will have (None: built in memory), so that what it
# makes can name its final place (the bytecode records its file name).
Builder = Callable[[Path | None], BuildOutput]


class CacheStore:
    def __init__(self, root: Path, layers: list[Path] | tuple[Path, ...] = ()) -> None:
        self.root = root
        self.layers = tuple(layers)
        if root.exists():
            check_safe(root)

    def entry_dir(self, digest: str, root: Path | None = None) -> Path:
        return (root or self.root) / digest[:2] / digest

    def lookup(self, digest: str, components: Mapping[str, Any]) -> Entry | None:
        """The first complete, intact and current entry for ``digest`` in the layers, then the
        root; else None. A damaged entry warns (once); an out-of-date one logs why."""
        for root in (*self.layers, self.root):
            found = self._lookup_in(root, digest, components, shared=root != self.root)
            if found is not None:
                return found
        return None

    def _lookup_in(
        self, root: Path, digest: str, components: Mapping[str, Any], shared: bool
    ) -> Entry | None:
        path = self.entry_dir(digest, root)
        if not path.is_dir():
            return None
        for directory in (root, path.parent, path):
            check_safe(directory, shared=shared)
        manifest, artifacts, problems = read_entry(path)
        if manifest is None:
            warn_once(
                f"damaged:{path}",
                "numbast-import: ignoring damaged cache entry %s (%s)%s",
                path,
                "; ".join(problems),
                "" if shared else "; it will be rebuilt",
            )
            return None
        stale = component_differences(manifest["key"], components)
        stale += included_file_differences(
            manifest["included_files"], manifest.get("included_stamps")
        )
        if stale:
            logger.info("numbast-import: cache entry %s is out of date: %s", path, "; ".join(stale))
            return None
        if not shared:
            _mark_used(path)
        return Entry(path, manifest, artifacts)

    def build(
        self, digest: str, components: Mapping[str, Any], builder: Builder, what: str = ""
    ) -> Entry:
        """Build the entry under its shard's lock, unless another process built it meanwhile.
        When the root cannot be written, build in memory (one warning) instead."""
        try:
            ensure_private_dir(self.root)  # mode 0o700: mkdir(parents=True) would not give it
            shard = ensure_private_dir(self.root / digest[:2])
        except OSError as exc:
            return self._build_in_memory(components, builder, exc)
        with BuildLock(shard, what or digest) as lock:
            found = self._lookup_in(self.root, digest, components, shared=False)
            if found is not None:
                return found
            lock.remove_leftovers()
            target = self.entry_dir(digest)
            try:
                # Made before the (long) build: a builder killed meanwhile leaves it, and the
                # next holder of the lock removes it.
                staging = Path(
                    tempfile.mkdtemp(prefix=f"{STAGING_PREFIX}{digest[:12]}-", dir=shard)
                )
            except OSError as exc:
                return self._build_in_memory(components, builder, exc)
            try:
                output = builder(target)
                manifest = _manifest(components, output)
                try:
                    _write_entry(staging, output.artifacts, manifest, target)
                except OSError as exc:
                    if exc.errno not in _CANNOT_WRITE:
                        raise
                    self._warn_unwritable(exc)
                    return Entry(None, manifest, dict(output.artifacts))
            finally:
                shutil.rmtree(staging, ignore_errors=True)
            logger.info("numbast-import: cached %s", target)
            return Entry(target, manifest, dict(output.artifacts))

    def _build_in_memory(self, components, builder: Builder, exc: OSError) -> Entry:
        self._warn_unwritable(exc)
        output = builder(None)
        return Entry(None, _manifest(components, output), dict(output.artifacts))

    def _warn_unwritable(self, exc: OSError) -> None:
        warn_once(
            f"unwritable:{self.root}",
            "numbast-import: cannot write the cache root %s (%s); building in memory, so "
            "every process builds again. Set NUMBAST_CACHE_DIR to a writable directory of "
            "yours",
            self.root,
            exc.strerror or exc,
        )

    def entries(self, root: Path | None = None) -> Iterator[Path]:
        """Every header entry directory of ``root`` (default: the writable root), complete or
        not."""
        yield from header_entries(root or self.root)


def header_entries(root: Path) -> Iterator[Path]:
    for shard in sorted(root.glob("[0-9a-f][0-9a-f]")):
        for path in sorted(shard.iterdir()):
            if len(path.name) == 64 and path.is_dir():
                yield path


def remove_entry(path: Path) -> None:
    """Remove an entry directory: renamed aside first, so readers never see half of it."""
    trash = Path(tempfile.mkdtemp(prefix=TRASH_PREFIX, dir=path.parent))
    try:
        os.replace(path, trash / path.name)
    finally:
        shutil.rmtree(trash, ignore_errors=True)


def _write_entry(
    staging: Path, artifacts: Mapping[str, bytes], manifest: dict[str, Any], target: Path
) -> None:
    for name, data in artifacts.items():
        (staging / name).write_bytes(data)
    # Written last: an entry without it is recognizably incomplete.
    (staging / MANIFEST).write_text(json.dumps(manifest, indent=1, sort_keys=True))
    _move_into_place(staging, target)


def _move_into_place(staging: Path, target: Path) -> None:
    # A stale or damaged entry is moved aside first: os.replace cannot overwrite a non-empty
    # directory. Readers of the old one see files vanish, which is a miss.
    if target.exists():
        remove_entry(target)
    os.replace(staging, target)


def _manifest(components: Mapping[str, Any], output: BuildOutput) -> dict[str, Any]:
    return {
        "kind": KIND,
        "format": components["format"],
        "key": dict(components),
        "included_files": dict(output.included_files),
        "artifacts": {name: sha256(data) for name, data in output.artifacts.items()},
        "created": time.time(),
        "built_by": {"pid": os.getpid(), "host": socket.gethostname()},
        **output.notes,
    }


def _mark_used(path: Path) -> None:
    # The entry directory's mtime is its last use (prune --older-than, --max-size evict the
    # least recently used). Written at most hourly, so warm imports stay read-only.
    try:
        if time.time() - path.stat().st_mtime > _TOUCH_INTERVAL_S:
            os.utime(path)
    except OSError:
        pass  # a read-only root: the entry keeps its build time as its last use

"""One store for every kind of cache entry (header modules, SourceModules, cuda.core programs,
template instances): ``EntryStore(kind, root, layers)``.

An entry is a directory, ``<root>/<kind's directory>/<2 hex>/<digest>/``, holding its artifacts
and ``manifest.json`` (``numbast_import.cache.manifest``).

Lookups search the read-only layers first, then the writable root. They take no lock and write
nothing but, at most hourly, the entry directory's modification time: its last use, which
``numbast-cache prune`` reads. Every directory on the way and every file read is checked as cached
code must be (owned by you, or root in a layer; writable by no one else: ``CacheSafetyError``
otherwise); every artifact is hashed against the manifest, except those the kind says no hit
loads (``EntryKind.not_loaded``: a header module's source), which a lookup checks for being there
and safe only (``verify`` reads and hashes them). An entry that is not intact is a miss with one
warning per process; one whose key differs is a miss with an info line.

Builders take the entry's lock (``numbast_import.cache.lock``), look again, make the artifacts,
write them into a private staging directory beside the entry, the manifest last, and move it
into place with ``os.replace``. A build that fails leaves nothing (staging, lock file) behind.
The writable root is created on the first build, not before. Where it cannot be created or
written (read-only, no permission, a full disk, a file in the way), the entry is made in memory,
with one warning per process and root.

The single files of an entry (trusted reads, publishing, removal, its last use) are
``numbast_import.cache.entry_files``.
"""

# No ``from __future__ import annotations`` here: typing.NamedTuple turns string annotations
# into ForwardRefs, compiling each when a warm import defines the classes below.

import errno
import json
import logging
import os
import shutil
import socket
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Any, NamedTuple

from ast_canopy.cache_files import CANNOT_WRITE
from numbast_import.cache.entry_files import (
    absent_or_unsafe,
    directories_between,
    is_digest,
    mark_used,
    publish,
    read_trusted,
    write_entry_files,
)
from numbast_import.cache.key import component_differences
from numbast_import.cache.manifest import MANIFEST, EntryKind, manifest_problem, sha256
from numbast_import.cache.root import check_safe
from numbast_import.errors import CacheSafetyError

logger = logging.getLogger(__name__)

STAGING_PREFIX = ".build-"
_warned: set[str] = set()


def warn_once(key: str, message: str, *args: object) -> None:
    """``logger.warning`` unless the same ``key`` was warned about in this process."""
    if key in _warned:
        return
    _warned.add(key)
    logger.warning(message, *args)


class Entry(NamedTuple):
    """A complete, verified entry, with its artifacts' bytes as they were verified (read once:
    a builder replacing the entry afterwards cannot pull files from under the reader).
    ``path`` is None for an entry made in memory (the root could not be written)."""

    path: Path | None
    manifest: dict[str, Any]
    artifacts: Mapping[str, bytes]
    read_only: bool = False  # from a layer: nothing may be added to it

    def read(self, name: str) -> bytes:
        return self.artifacts[name]


class Made(NamedTuple):
    """What a builder made: artifact name -> bytes, and more manifest fields (as the kind
    allows: ``numbast_import.cache.manifest``)."""

    artifacts: Mapping[str, bytes]
    fields: Mapping[str, Any] = MappingProxyType({})
    # Why it must not be stored (its inputs changed while it was made): used from memory.
    not_cached: str | None = None


# A builder gets the directory its entry will have (None: made in memory), so that what it
# makes can name its final place (a code object records its file name).
Make = Callable[[Path | None], Made]
# Why an intact entry is not the one wanted besides its key (an included file changed): the
# reasons, none when it is current.
Judge = Callable[[Mapping[str, Any]], list[str]]


class EntryStore:
    """The entries of ``kind`` under the writable ``root`` (None: none, everything new is made
    in memory) and the read-only ``layers``. ``create_parents``: whether a build may create the
    root's parent directories (not for instances, whose root lies inside another entry)."""

    def __init__(
        self,
        kind: EntryKind,
        root: Path | None,
        layers: tuple[Path, ...] | list[Path] = (),
        create_parents: bool = True,
    ) -> None:
        self.kind = kind
        self.root = root
        self.layers = tuple(layers)
        self.create_parents = create_parents

    # -- places -------------------------------------------------------------------------------
    def base(self, root: Path | None = None) -> Path:
        root = root or self.root
        assert root is not None
        return root / self.kind.directory if self.kind.directory else root

    def entry_dir(self, digest: str, root: Path | None = None) -> Path:
        base = self.base(root)
        return base / digest[:2] / digest if self.kind.sharded else base / digest

    def lock_path(self, digest: str) -> Path:
        # Builders only (a lookup takes no lock): a hit does not import the lock.
        from numbast_import.cache.lock import LOCK_SUFFIX

        return self.entry_dir(digest).parent / f"{digest}{LOCK_SUFFIX}"

    def entries(self, root: Path | None = None) -> Iterator[Path]:
        """Every entry directory of this kind under ``root`` (default: the writable root),
        complete or not."""
        base = self.base(root)
        shards = sorted(base.glob("[0-9a-f][0-9a-f]")) if self.kind.sharded else [base]
        for shard in shards:
            try:
                children = sorted(shard.iterdir())
            except OSError:
                continue
            for path in children:
                if is_digest(path.name) and path.is_dir():
                    yield path

    # -- reading ------------------------------------------------------------------------------
    def lookup(
        self, digest: str, key: Mapping[str, Any], judge: Judge | None = None
    ) -> Entry | None:
        """The first intact and current entry for ``digest`` in the layers, then the root;
        else None. A damaged entry warns (once); one whose key differs logs why."""
        for root in self.layers:
            found = self._lookup_in(root, digest, key, judge, shared=True)
            if found is not None:
                return found
        if self.root is None:
            return None
        return self._lookup_in(self.root, digest, key, judge, shared=False)

    def _lookup_in(
        self,
        root: Path,
        digest: str,
        key: Mapping[str, Any],
        judge: Judge | None,
        shared: bool,
    ) -> Entry | None:
        path = self.entry_dir(digest, root)
        if not path.is_dir():
            return None
        for directory in self.directories(root, path):
            check_safe(directory, shared=shared)
        manifest, artifacts, problems = self.read(path, shared, hit=True)
        if manifest is None:
            warn_once(
                f"damaged:{path}",
                "numbast-import: ignoring damaged cache entry %s (%s)%s",
                path,
                "; ".join(problems),
                "" if shared else "; it will be rebuilt",
            )
            return None
        stale = self.differences(manifest, key, judge)
        if stale:
            logger.info("numbast-import: cache entry %s is out of date: %s", path, "; ".join(stale))
            return None
        if not shared:
            mark_used(path)
        return Entry(path, manifest, artifacts, read_only=shared)

    def differences(
        self, manifest: Mapping[str, Any], key: Mapping[str, Any], judge: Judge | None = None
    ) -> list[str]:
        """Why an intact entry with ``manifest`` is not the one for ``key`` (empty: it is)."""
        reasons = component_differences(manifest["key"], key)
        if manifest["format"] != self.kind.format:
            reasons.append(f"format: cached {manifest['format']}, now {self.kind.format}")
        return reasons + (judge(manifest) if judge is not None and not reasons else [])

    def read(
        self, path: Path, shared: bool = False, strict: bool = True, hit: bool = False
    ) -> tuple[dict[str, Any] | None, dict[str, bytes], list[str]]:
        """The manifest, the artifacts, and every reason the entry at ``path`` is not intact
        (none when it is). Each file is read once: what was checked is what the caller uses.
        A file that is not safe to trust raises CacheSafetyError (``strict=False``: is one of
        the reasons). ``hit``: a lookup's reading, which leaves the kind's ``not_loaded``
        artifacts out of what it returns, and checks them for being there and safe only."""
        problems: list[str] = []
        try:
            raw = read_trusted(path / MANIFEST, shared)
        except FileNotFoundError:
            return None, {}, [f"{MANIFEST} missing (a partial entry)"]
        except CacheSafetyError as exc:
            if strict:
                raise
            return None, {}, [str(exc)]
        except OSError as exc:
            return None, {}, [f"{MANIFEST} unreadable ({exc.strerror})"]
        try:
            manifest = json.loads(raw)
        except ValueError:
            return None, {}, [f"{MANIFEST} is not valid JSON"]
        problem = manifest_problem(manifest, self.kind)
        if problem:
            return None, {}, [problem]
        artifacts: dict[str, bytes] = {}
        for name, digest in manifest["artifacts"].items():
            if hit and name in self.kind.not_loaded:
                problem = absent_or_unsafe(path / name, shared, strict)
                if problem:
                    problems.append(problem)
                continue
            try:
                data = read_trusted(path / name, shared)
            except CacheSafetyError as exc:
                if strict:
                    raise
                problems.append(str(exc))
                continue
            except OSError:
                problems.append(f"{name} missing")
                continue
            if sha256(data) != digest:
                problems.append(f"{name} does not match its sha256 in {MANIFEST}")
            artifacts[name] = data
        if not problems and self.kind.check is not None:
            problem = self.kind.check(artifacts)
            if problem:
                problems.append(problem)
        return (manifest if not problems else None), artifacts, problems

    # -- building -----------------------------------------------------------------------------
    def build(
        self,
        digest: str,
        key: Mapping[str, Any],
        make: Make,
        judge: Judge | None = None,
        what: str = "",
        replace: bool = False,
    ) -> Entry:
        """The entry for ``digest``, built by ``make`` under the entry's lock unless another
        process built it meanwhile (``replace``: built in any case). Made in memory (one
        warning) when the root cannot be written."""
        if self.root is None:
            return self._in_memory(key, make)
        from numbast_import.cache.lock import EntryLock  # builders only: a hit takes no lock

        try:
            self._make_directories(digest)
            lock = EntryLock(self.lock_path(digest), what or digest)
            lock_held = lock.__enter__()
        except OSError as exc:
            if exc.errno not in CANNOT_WRITE:
                raise
            return self._in_memory(key, make, exc)
        try:
            found = None if replace else self._lookup_in(self.root, digest, key, judge, False)
            if found is not None:
                return found
            return self._build_locked(digest, key, make)
        finally:
            lock_held.release()

    def put(self, digest: str, key: Mapping[str, Any], made: Made, replace: bool = False) -> Entry:
        """Store what was already made (a build whose making needs no lock); ``replace``: over
        an intact entry of the same key too."""
        return self.build(digest, key, lambda _path: made, replace=replace)

    def _build_locked(self, digest: str, key: Mapping[str, Any], make: Make) -> Entry:
        target = self.entry_dir(digest)
        shard = target.parent
        self._remove_dead_staging(shard, digest)
        try:
            # Made before the (long) build: a builder killed meanwhile leaves it, and the next
            # builder of this entry (or prune) removes it.
            staging = Path(tempfile.mkdtemp(prefix=f"{STAGING_PREFIX}{digest}-", dir=shard))
        except OSError as exc:
            if exc.errno not in CANNOT_WRITE:
                raise
            return self._in_memory(key, make, exc)
        try:
            built = make(target)
            manifest = self._manifest(key, built)
            if built.not_cached:
                logger.warning(
                    "numbast-import: not caching %s: %s; the next import builds it again",
                    target,
                    built.not_cached,
                )
                return Entry(None, manifest, dict(built.artifacts))
            try:
                write_entry_files(staging, built.artifacts, manifest)
                publish(staging, target)
            except OSError as exc:
                if exc.errno not in CANNOT_WRITE:
                    raise
                self._warn_unwritable(exc)
                return Entry(None, manifest, dict(built.artifacts))
        finally:
            shutil.rmtree(staging, ignore_errors=True)
        logger.info("numbast-import: cached %s", target)
        return Entry(target, manifest, dict(built.artifacts))

    def _in_memory(self, key: Mapping[str, Any], make: Make, exc: OSError | None = None) -> Entry:
        if exc is not None:
            self._warn_unwritable(exc)
        built = make(None)
        return Entry(None, self._manifest(key, built), dict(built.artifacts))

    def _manifest(self, key: Mapping[str, Any], built: Made) -> dict[str, Any]:
        return {
            **built.fields,
            "kind": self.kind.name,
            "format": self.kind.format,
            "key": json.loads(json.dumps(dict(key))),
            "artifacts": {name: sha256(data) for name, data in built.artifacts.items()},
            "created": time.time(),
            "built_by": {"pid": os.getpid(), "host": socket.gethostname()},
        }

    def _make_directories(self, digest: str) -> None:
        """The root (mode 0o700: mkdir(parents=True) would not give it), the kind's directory
        and the shard, each checked."""
        assert self.root is not None
        shard = self.entry_dir(digest).parent
        try:
            if self.create_parents:
                self.root.parent.mkdir(parents=True, exist_ok=True)
            for directory in (self.root, *directories_between(self.root, shard)):
                try:
                    directory.mkdir(mode=0o700)
                except FileExistsError:
                    if not directory.is_dir():
                        raise
                check_safe(directory)
        except FileExistsError as exc:  # a file where a directory should be
            raise NotADirectoryError(errno.ENOTDIR, "Not a directory", exc.filename) from None

    def _remove_dead_staging(self, shard: Path, digest: str) -> None:
        # Only this entry's: we hold its lock, so no one else can be building it.
        for path in shard.glob(f"{STAGING_PREFIX}{digest}-*"):
            shutil.rmtree(path, ignore_errors=True)

    def _warn_unwritable(self, exc: OSError) -> None:
        warn_once(
            f"unwritable:{self.root}",
            "numbast-import: cannot write the cache root %s (%s); building in memory, so "
            "every process builds again. Set NUMBAST_CACHE_DIR to a writable directory of "
            "yours",
            self.root,
            exc.strerror or exc,
        )

    def directories(self, root: Path, path: Path) -> list[Path]:
        """The directories a lookup of the entry ``path`` passes, from ``root`` down."""
        return [root, *directories_between(root, path)]

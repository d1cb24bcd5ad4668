"""Reading and writing cache entries.

An entry is ``<root>/<2 hex>/<digest>/`` holding ``bindings.py``, ``shim.cu``, ``shim.ltoir``
and ``manifest.json``. The manifest is written last and carries the sha256 of every artifact, so
an entry without a valid manifest, or whose files do not hash to it, is partial or corrupt: a
miss with a warning. Builders work in a private temporary directory of the same root and move
it into place with ``os.replace``; readers take no lock and so never wait on a builder.
"""

from __future__ import annotations

import hashlib
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
from numbast_import.cache.root import check_safe, ensure_private_dir

logger = logging.getLogger(__name__)

BINDINGS = "bindings.py"
SHIM_SOURCE = "shim.cu"
SHIM_LTOIR = "shim.ltoir"
MANIFEST = "manifest.json"
ARTIFACTS = (BINDINGS, SHIM_SOURCE, SHIM_LTOIR)
LOCK_TIMEOUT_ENV = "NUMBAST_IMPORT_LOCK_TIMEOUT"
DEFAULT_LOCK_TIMEOUT_S = 600.0


class CacheLockTimeout(TimeoutError):
    """Another process held a build lock for longer than the timeout."""


@dataclass(frozen=True)
class Entry:
    """A complete, verified cache entry, with the artifacts' bytes as they were verified (read
    once: a builder replacing the entry afterwards cannot pull files from under the reader)."""

    path: Path
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


class CacheStore:
    def __init__(self, root: Path) -> None:
        self.root = ensure_private_dir(root)

    def entry_dir(self, digest: str) -> Path:
        return self.root / digest[:2] / digest

    def lookup(self, digest: str, components: Mapping[str, Any]) -> Entry | None:
        """The entry for ``digest`` if it is complete, intact and current, else None (with a
        warning when it was damaged, and an info line when its inputs changed)."""
        path = self.entry_dir(digest)
        if not path.is_dir():
            return None
        check_safe(path.parent)
        check_safe(path)
        manifest, artifacts, problems = read_entry(path)
        if problems or manifest is None:
            logger.warning(
                "numbast-import: ignoring damaged cache entry %s (%s); it will be rebuilt",
                path,
                "; ".join(problems),
            )
            return None
        stale = component_differences(manifest["key"], components)
        stale += included_file_differences(manifest["included_files"])
        if stale:
            logger.info("numbast-import: cache entry %s is out of date: %s", path, "; ".join(stale))
            return None
        return Entry(path, manifest, artifacts)

    def build(
        self,
        digest: str,
        components: Mapping[str, Any],
        builder: Callable[[], BuildOutput],
    ) -> Entry:
        """Build the entry under the per-key lock, unless another process built it meanwhile."""
        shard = ensure_private_dir(self.root / digest[:2])
        with _BuildLock(shard / f"{digest}.lock"):
            found = self.lookup(digest, components)
            if found is not None:
                return found
            output = builder()
            manifest = {
                "format": components["format"],
                "key": dict(components),
                "included_files": dict(output.included_files),
                "artifacts": {name: _sha256(data) for name, data in output.artifacts.items()},
                "created": time.time(),
                "built_by": {"pid": os.getpid(), "host": socket.gethostname()},
                **output.notes,
            }
            staging = Path(tempfile.mkdtemp(prefix=f".build-{digest[:12]}-", dir=self.root))
            try:
                for name, data in output.artifacts.items():
                    (staging / name).write_bytes(data)
                # Written last: an entry without it is recognizably incomplete.
                (staging / MANIFEST).write_text(json.dumps(manifest, indent=1, sort_keys=True))
                self._move_into_place(staging, self.entry_dir(digest))
            finally:
                if staging.exists():
                    shutil.rmtree(staging, ignore_errors=True)
            logger.info("numbast-import: cached %s", self.entry_dir(digest))
            return Entry(self.entry_dir(digest), manifest, dict(output.artifacts))

    def _move_into_place(self, staging: Path, target: Path) -> None:
        # A stale or damaged entry is moved aside first: os.replace cannot overwrite a
        # non-empty directory. Readers of the old one see files vanish, which is a miss.
        if target.exists():
            trash = Path(tempfile.mkdtemp(prefix=".old-", dir=self.root))
            os.replace(target, trash / target.name)
            shutil.rmtree(trash, ignore_errors=True)
        os.replace(staging, target)

    def entries(self) -> Iterator[Path]:
        """Every entry directory, complete or not."""
        for shard in sorted(self.root.glob("[0-9a-f][0-9a-f]")):
            for path in sorted(shard.iterdir()):
                if path.is_dir():
                    yield path

    def remove(self, path: Path) -> None:
        trash = Path(tempfile.mkdtemp(prefix=".old-", dir=self.root))
        os.replace(path, trash / path.name)
        shutil.rmtree(trash)


def read_manifest(path: Path) -> dict[str, Any] | None:
    try:
        manifest = json.loads((path / MANIFEST).read_text())
    except (OSError, ValueError):
        return None
    return manifest if isinstance(manifest, dict) else None


def entry_problems(path: Path) -> list[str]:
    """Why the entry at ``path`` is not intact (empty when it is)."""
    return read_entry(path)[2]


def read_entry(path: Path) -> tuple[dict[str, Any] | None, dict[str, bytes], list[str]]:
    """The manifest, the artifacts, and why the entry is not intact (empty when it is)."""
    manifest = read_manifest(path)
    if manifest is None:
        return None, {}, [f"{MANIFEST} missing or unreadable (a partial entry)"]
    missing = [k for k in ("key", "included_files", "artifacts") if k not in manifest]
    if missing:
        return None, {}, [f"{MANIFEST} lacks {', '.join(missing)}"]
    artifacts: dict[str, bytes] = {}
    problems = []
    for name in ARTIFACTS:
        try:
            data = (path / name).read_bytes()
        except OSError:
            problems.append(f"{name} missing")
            continue
        if manifest["artifacts"].get(name) != _sha256(data):
            problems.append(f"{name} does not match its sha256 in {MANIFEST}")
        artifacts[name] = data
    return manifest, artifacts, problems


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class _BuildLock:
    """A filelock per key; while waiting, log who holds it (pid and host from a sidecar)."""

    def __init__(self, path: Path) -> None:
        from filelock import FileLock

        self.path = path
        self.owner_path = path.with_suffix(".owner")
        self.lock = FileLock(str(path))
        self.timeout = float(os.environ.get(LOCK_TIMEOUT_ENV, DEFAULT_LOCK_TIMEOUT_S))

    def __enter__(self) -> _BuildLock:
        from filelock import Timeout

        deadline = time.monotonic() + self.timeout
        while True:
            try:
                self.lock.acquire(timeout=min(5.0, max(deadline - time.monotonic(), 0.0)))
                break
            except Timeout:
                holder = self._holder()
                if time.monotonic() >= deadline:
                    raise CacheLockTimeout(
                        f"numbast-import: gave up after {self.timeout:.0f} s waiting for the "
                        f"build lock {self.path}, held by {holder}; if that process is gone, "
                        f"delete the lock file, or raise {LOCK_TIMEOUT_ENV}"
                    ) from None
                logger.warning(
                    "numbast-import: waiting for %s, which is building this cache entry (%s)",
                    holder,
                    self.path,
                )
        self.owner_path.write_text(
            json.dumps({"pid": os.getpid(), "host": socket.gethostname(), "since": time.time()})
        )
        return self

    def __exit__(self, *exc_info: object) -> None:
        try:
            self.owner_path.unlink()
        except FileNotFoundError:
            pass
        self.lock.release()

    def _holder(self) -> str:
        try:
            owner = json.loads(self.owner_path.read_text())
            return f"pid {owner['pid']} on {owner['host']}"
        except (OSError, ValueError, KeyError, TypeError):
            return "another process"

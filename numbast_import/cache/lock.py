"""The build lock of one shard of the cache (``<root>/<2 hex>/.lock``).

One lock file per shard, not per key: lock files are never deleted (deleting a flock'ed file
lets a waiter that opened the old inode and a newcomer that creates a new one both "hold" the
lock, as filelock's maintainers document), so a lock per key would leave one file per entry
ever built. 256 reusable files do not accumulate. Builders of two keys of the same shard take
turns; builds are rare, and both still happen.

A builder killed with SIGKILL leaves nothing to wait out: the kernel drops its flock. It may
leave a staging directory (``.build-*``) or a trash directory (``.old-*``) in the shard; whoever
holds the shard's lock next knows no one else is building there and removes them.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import socket
import time
from pathlib import Path

from numbast_import.errors import CacheLockTimeout

logger = logging.getLogger(__name__)

LOCK_NAME = ".lock"
OWNER_NAME = ".lock.owner"
LOCK_TIMEOUT_ENV = "NUMBAST_IMPORT_LOCK_TIMEOUT"
DEFAULT_LOCK_TIMEOUT_S = 600.0
STAGING_PREFIX = ".build-"
TRASH_PREFIX = ".old-"


class BuildLock:
    """The lock of ``shard``; while waiting, log who holds it (from the owner sidecar).

    ``what`` describes the build (module and digest) for the sidecar; ``timeout`` None means
    ``NUMBAST_IMPORT_LOCK_TIMEOUT`` (default 600 s), 0 means try once.
    """

    def __init__(self, shard: Path, what: str = "", timeout: float | None = None) -> None:
        from filelock import FileLock

        self.shard = shard
        self.path = shard / LOCK_NAME
        self.owner_path = shard / OWNER_NAME
        self.what = what
        self.lock = FileLock(str(self.path))
        if timeout is None:
            timeout = float(os.environ.get(LOCK_TIMEOUT_ENV, DEFAULT_LOCK_TIMEOUT_S))
        self.timeout = timeout

    def try_acquire(self) -> bool:
        """Take the lock if it is free now."""
        from filelock import Timeout

        try:
            self.lock.acquire(timeout=0)
        except Timeout:
            return False
        self._write_owner()
        return True

    def __enter__(self) -> BuildLock:
        from filelock import Timeout

        deadline = time.monotonic() + self.timeout
        while True:
            try:
                self.lock.acquire(timeout=min(5.0, max(deadline - time.monotonic(), 0.0)))
                break
            except Timeout:
                holder = self.holder()
                if time.monotonic() >= deadline:
                    raise CacheLockTimeout(
                        f"numbast-import: gave up after {self.timeout:.0f} s waiting for the "
                        f"build lock {self.path}, held by {holder}; if that process hangs, stop "
                        f"it, or raise {LOCK_TIMEOUT_ENV}"
                    ) from None
                logger.warning("numbast-import: waiting for %s (lock %s)", holder, self.path)
        self._write_owner()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.release()

    def release(self) -> None:
        try:
            self.owner_path.unlink()
        except FileNotFoundError:
            pass
        self.lock.release()

    def holder(self) -> str:
        try:
            owner = json.loads(self.owner_path.read_text())
            return f"pid {owner['pid']} on {owner['host']}, building {owner['what']}"
        except (OSError, ValueError, KeyError, TypeError):
            return "another process"

    def _write_owner(self) -> None:
        record = {"pid": os.getpid(), "host": socket.gethostname(), "since": time.time()}
        self.owner_path.write_text(json.dumps({**record, "what": self.what}))

    def remove_leftovers(self) -> list[Path]:
        """Staging and trash directories in the shard: dead builders' (call with the lock
        held, when no one else can be building here). Returns what was removed."""
        removed = []
        for path in self.shard.iterdir():
            if path.name.startswith((STAGING_PREFIX, TRASH_PREFIX)) and path.is_dir():
                shutil.rmtree(path, ignore_errors=True)
                removed.append(path)
        if removed:
            logger.info("numbast-import: removed %d leftovers of dead builders", len(removed))
        return removed

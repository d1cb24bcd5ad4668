"""The build lock of one cache entry: ``<entry's parent>/<digest>.lock``.

Per entry, so that building one entry never waits for another (a header whose module imports
another mapped header built in the same shard deadlocked on a per-shard lock), and re-entrant
within a process (a thread that holds an entry's lock may take it again). Only builders lock;
readers never do.

The lock is an ``flock`` on the lock file, which the kernel drops when its holder dies (SIGKILL
and OOM included): nothing to wait out. The file holds its holder (pid, host, what it builds),
which waiters log every 5 s. It is deleted by its holder when the build is done, so lock files
do not accumulate. Deleting a locked file safely needs one more step than taking the lock: a
waiter that opened the file before it was deleted would get a lock on a file no one else
sees, so after locking, a taker checks that the path still names the file it locked, and
starts again if not.

Where ``fcntl`` does not exist (Windows), ``filelock`` locks instead and files are kept.
"""

from __future__ import annotations

import json
import logging
import os
import socket
import threading
import time
from pathlib import Path

from numbast_import.environment import non_negative_number
from numbast_import.errors import CacheLockTimeout

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

logger = logging.getLogger(__name__)

LOCK_SUFFIX = ".lock"
LOCK_TIMEOUT_ENV = "NUMBAST_IMPORT_LOCK_TIMEOUT"
DEFAULT_LOCK_TIMEOUT_S = 600.0
_REPORT_EVERY_S = 5.0

# Per lock file: the thread lock that makes the file lock re-entrant and shared by the threads
# of this process, how deep the holder is, and the open file that holds the flock.
_registry_lock = threading.Lock()
_held: dict[str, _Held] = {}


class _Held:
    def __init__(self) -> None:
        self.thread_lock = threading.RLock()
        self.depth = 0
        self.fd: int | None = None
        self.fallback = None  # a filelock.FileLock where there is no fcntl


def lock_timeout() -> float:
    """``NUMBAST_IMPORT_LOCK_TIMEOUT`` in seconds (default 600)."""
    return non_negative_number(LOCK_TIMEOUT_ENV, DEFAULT_LOCK_TIMEOUT_S, "seconds", "600")


class EntryLock:
    """The lock of the entry whose lock file is ``path``; ``what`` (module and digest)
    describes the build to waiting processes. ``timeout`` None means
    ``NUMBAST_IMPORT_LOCK_TIMEOUT``, 0 means try once."""

    def __init__(self, path: Path, what: str = "", timeout: float | None = None) -> None:
        self.path = Path(path)
        self.what = what
        self.timeout = lock_timeout() if timeout is None else timeout
        with _registry_lock:
            self._held = _held.setdefault(str(self.path), _Held())

    def __enter__(self) -> EntryLock:
        if not self.acquire():
            raise CacheLockTimeout(
                f"numbast-import: gave up after {self.timeout:.0f} s waiting for the build lock "
                f"{self.path}, held by {self.holder()}; if that process hangs, stop it, or "
                f"raise {LOCK_TIMEOUT_ENV}"
            )
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.release()

    def try_acquire(self) -> bool:
        """Take the lock if it is free now."""
        return self.acquire(timeout=0)

    def acquire(self, timeout: float | None = None) -> bool:
        """Take the lock, waiting up to ``timeout`` (default: the lock's); False when it
        could not be had in time. Raises OSError when the lock file cannot be made."""
        timeout = self.timeout if timeout is None else timeout
        deadline = time.monotonic() + timeout
        held = self._held
        if timeout > 0:
            got = held.thread_lock.acquire(timeout=timeout)
        else:
            got = held.thread_lock.acquire(blocking=False)
        if not got:
            return False
        if held.depth:
            held.depth += 1  # this thread holds it already
            return True
        try:
            taken = self._lock_file(deadline)
        except BaseException:
            held.thread_lock.release()
            raise
        if not taken:
            held.thread_lock.release()
            return False
        held.depth = 1
        return True

    def release(self) -> None:
        """Release one level; the last one deletes the lock file and unlocks it."""
        held = self._held
        held.depth -= 1
        if held.depth == 0:
            try:
                self._unlock_file()
            finally:
                held.thread_lock.release()
        else:
            held.thread_lock.release()

    def holder(self) -> str:
        try:
            owner = json.loads(self.path.read_text())
            return f"pid {owner['pid']} on {owner['host']}, building {owner['what']}"
        except (OSError, ValueError, KeyError, TypeError):
            return "another process"

    # -- the file lock --------------------------------------------------------------------
    def _lock_file(self, deadline: float) -> bool:
        if fcntl is None:  # pragma: no cover - Windows
            return self._lock_with_filelock(deadline)
        reported = time.monotonic()
        pause = 0.01
        while True:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                now = time.monotonic()
                if now >= deadline:
                    return False
                if now - reported >= _REPORT_EVERY_S:
                    reported = now
                    logger.warning(
                        "numbast-import: waiting for %s (lock %s)", self.holder(), self.path
                    )
                time.sleep(min(pause, max(deadline - now, 0)))
                pause = min(pause * 2, 0.2)
                continue
            if self._still_named(fd):
                self._held.fd = fd
                self._write_holder(fd)
                return True
            os.close(fd)  # its holder deleted it: take the new one

    def _still_named(self, fd: int) -> bool:
        try:
            now = os.stat(self.path)
        except FileNotFoundError:
            return False
        mine = os.fstat(fd)
        return (now.st_dev, now.st_ino) == (mine.st_dev, mine.st_ino)

    def _write_holder(self, fd: int) -> None:
        record = {"pid": os.getpid(), "host": socket.gethostname(), "what": self.what}
        data = json.dumps({**record, "since": time.time()}).encode()
        try:
            os.ftruncate(fd, 0)
            os.pwrite(fd, data, 0)
        except OSError:
            pass  # a full disk: waiters then say "another process"

    def _unlock_file(self) -> None:
        if fcntl is None:  # pragma: no cover - Windows
            self._held.fallback.release()
            return
        fd, self._held.fd = self._held.fd, None
        assert fd is not None
        try:
            # Emptied first: ext4 frees an unlinked file's written data when it is closed,
            # which took 0.5-4 ms per build here (the holder's record), an empty one ~20 us.
            os.ftruncate(fd, 0)
        except OSError:
            pass  # only slower
        try:
            self.path.unlink()  # while locked: whoever waits on it starts again
        except OSError:
            pass  # already gone (prune took it while we held it: impossible) or read-only
        finally:
            os.close(fd)  # drops the flock

    def _lock_with_filelock(self, deadline: float) -> bool:  # pragma: no cover - Windows
        from filelock import FileLock, Timeout

        self._held.fallback = self._held.fallback or FileLock(str(self.path))
        try:
            self._held.fallback.acquire(timeout=max(deadline - time.monotonic(), 0))
        except Timeout:
            return False
        return True

"""The on-disk cache of compiled SourceModules.

Layout (shared with ``numbast-cache``, which lists, clears and prunes it)::

    <root>/rtc/<first 2 hex of digest>/<digest>/
        kernel.<target>     the binary
        source.cu           the translation unit that was compiled
        manifest.json       written last: {"kind": "rtc", "format", "key", "artifacts",
                            "lowered_names", "created"}

An entry is built in a private temporary directory under ``<root>/rtc`` and moved into place
with ``os.replace``; readers take no lock. An entry whose manifest is missing or unreadable,
or whose files do not hash to it, is a miss with a warning. A root owned by another user or
writable by others is refused (its binaries would run as you); a root that cannot be written
falls back to compiling in memory, with one warning per process.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import shutil
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from numbast_import.cache.root import CacheSafetyError, check_safe, ensure_private_dir
from numbast_import.rtc.nvrtc import Compiled

logger = logging.getLogger(__name__)

KIND = "rtc"
FORMAT = 1
MANIFEST = "manifest.json"
SOURCE = "source.cu"


def digest_of(key: Mapping[str, Any]) -> str:
    """sha256 of the key's canonical JSON."""
    return hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()


def binary_name(target: str) -> str:
    return f"kernel.{target}"


class RtcStore:
    """The ``rtc`` part of one cache root."""

    _warned_unwritable: set[Path] = set()

    def __init__(self, root: Path) -> None:
        """``root`` must have passed ``check_safe`` (``open_store`` checks it)."""
        self.root = Path(root)
        self.base = self.root / KIND

    def entry_dir(self, digest: str) -> Path:
        return self.base / digest[:2] / digest

    def load(self, digest: str, key: Mapping[str, Any]) -> Compiled | None:
        """The cached compile for ``digest``, or None (a miss; damaged entries warn)."""
        path = self.entry_dir(digest)
        if not path.is_dir():
            return None
        check_safe(path)  # the root was checked when the store was opened
        try:
            manifest = json.loads((path / MANIFEST).read_bytes())
            if manifest.get("kind") != KIND or manifest.get("format") != FORMAT:
                raise ValueError("not an rtc entry of this format")
            if manifest.get("key") != json.loads(json.dumps(key)):
                raise ValueError("its manifest records another key")
            target = manifest["key"]["target"]
            artifacts = manifest["artifacts"]
            name = binary_name(target)
            data = (path / name).read_bytes()
            if hashlib.sha256(data).hexdigest() != artifacts[name]:
                raise ValueError(f"{name} does not match its sha256 in the manifest")
            return Compiled(data, target, dict(manifest.get("lowered_names", {})), "")
        except (OSError, ValueError, KeyError, TypeError) as exc:
            logger.warning(
                "numbast-import: ignoring damaged cache entry %s (%s); recompiling", path, exc
            )
            return None

    def save(self, digest: str, key: Mapping[str, Any], compiled: Compiled, unit: str) -> None:
        """Store ``compiled``; a root that cannot be written warns once and stores nothing."""
        try:
            shard = ensure_private_dir(self.base / digest[:2])
        except CacheSafetyError:
            raise
        except OSError as exc:
            self._warn_unwritable(exc)
            return
        artifacts = {binary_name(compiled.target): compiled.code, SOURCE: unit.encode()}
        manifest = {
            "kind": KIND,
            "format": FORMAT,
            "key": dict(key),
            "artifacts": {n: hashlib.sha256(d).hexdigest() for n, d in artifacts.items()},
            "lowered_names": dict(compiled.lowered_names),
            "created": time.time(),
        }
        staging = Path(tempfile.mkdtemp(prefix=f".build-{digest[:12]}-", dir=self.base))
        try:
            for name, data in artifacts.items():
                (staging / name).write_bytes(data)
            # Written last: an entry without it is recognizably incomplete.
            (staging / MANIFEST).write_text(json.dumps(manifest, indent=1, sort_keys=True))
            self._move_into_place(staging, shard / digest)
        except OSError as exc:
            self._warn_unwritable(exc)
        finally:
            if staging.exists():
                shutil.rmtree(staging, ignore_errors=True)

    def _move_into_place(self, staging: Path, target: Path) -> None:
        if target.exists():
            # A damaged entry (a valid one would have been a hit) or a concurrent builder's:
            # move it aside, as os.replace cannot overwrite a non-empty directory.
            trash = Path(tempfile.mkdtemp(prefix=".old-", dir=self.base))
            try:
                os.replace(target, trash / target.name)
            except FileNotFoundError:
                pass
            shutil.rmtree(trash, ignore_errors=True)
        try:
            os.replace(staging, target)
        except OSError:
            if not (target / MANIFEST).is_file():
                raise
            # Another process put its (equal) entry in place between the two replaces.

    def _warn_unwritable(self, exc: OSError) -> None:
        if self.root not in RtcStore._warned_unwritable:
            RtcStore._warned_unwritable.add(self.root)
            logger.warning(
                "numbast-import: cannot write the kernel cache under %s (%s); compiling in "
                "memory only. Set NUMBAST_CACHE_DIR to a writable directory of your own",
                self.root,
                exc,
            )


def open_store(cache_dir: str | os.PathLike[str] | None) -> RtcStore:
    """The store under ``cache_dir``, else under the project's cache root; an unsafe root
    raises CacheSafetyError."""
    from numbast_import.cache.root import cache_root

    root = Path(cache_dir).expanduser().resolve() if cache_dir else cache_root()
    check_safe(root)
    return RtcStore(root)

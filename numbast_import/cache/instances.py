"""Template instances kept beside a cache entry, so a later process makes the same instance
with neither clang nor NVRTC.

A header's templates are instantiated when kernels use them (``numbast.runtime.templates``):
what the compiler said about an instance (its layout, the types only it could tell) is a small
JSON record, and the shims of the instances used are compiled together with the entry's shims
into one LTO-IR unit. Both live in ``<entry>/instances/``: records as ``<key>.json``, units as
``unit-<sha256 of their source>.ltoir``. Each file is written to a private temporary name and
moved into place, so readers see whole files or none; the directory obeys the cache's safety
rules. Where it cannot be written (a read-only layer), instances are kept in memory and this
process compiles again, with one log line.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import tempfile
from pathlib import Path

from numbast_import.cache.root import CacheSafetyError, check_safe, ensure_private_dir

logger = logging.getLogger(__name__)

INSTANCES_DIR = "instances"


class EntryInstances:
    """The instance store of one cache entry (``numbast.runtime.templates.context.InstanceStore``),
    also caching the LTO-IR of shim units with instances (``compile_unit``)."""

    def __init__(self, entry: Path, arch: str) -> None:
        self.directory = entry / INSTANCES_DIR
        self.arch = arch
        self._memory: dict[str, bytes] = {}
        self._read_only = False

    # -- the InstanceStore protocol -------------------------------------------------------
    def get(self, key: str) -> dict | None:
        data = self._read(f"{key}.json")
        if data is None:
            return None
        try:
            record = json.loads(data)
        except ValueError:
            logger.warning("numbast-import: ignoring the damaged instance record %s", key)
            return None
        return record if isinstance(record, dict) else None

    def put(self, key: str, record: dict) -> None:
        self._write(f"{key}.json", json.dumps(record, sort_keys=True).encode())

    # -- shim units -----------------------------------------------------------------------
    def compile_unit(self, source: str) -> bytes:
        """The LTO-IR of a shim unit: from the entry when an earlier process compiled it,
        else compiled now (NVRTC) and kept."""
        name = f"unit-{hashlib.sha256(source.encode()).hexdigest()}.ltoir"
        found = self._read(name)
        if found is not None:
            return found
        from numbast.runtime.shim_library import compile_ltoir

        ltoir = compile_ltoir(source, self.arch)
        self._write(name, ltoir)
        return ltoir

    # -- files ----------------------------------------------------------------------------
    def _read(self, name: str) -> bytes | None:
        if name in self._memory:
            return self._memory[name]
        path = self.directory / name
        try:
            check_safe(self.directory)
            check_safe(path)
            return path.read_bytes()
        except FileNotFoundError:
            return None
        except (OSError, CacheSafetyError) as exc:
            logger.warning("numbast-import: ignoring %s (%s)", path, exc)
            return None

    def _write(self, name: str, data: bytes) -> None:
        self._memory[name] = data
        if self._read_only:
            return
        try:
            ensure_private_dir(self.directory)
            fd, temporary = tempfile.mkstemp(prefix=".tmp-", dir=self.directory)
            with os.fdopen(fd, "wb") as stream:
                stream.write(data)
            os.replace(temporary, self.directory / name)
        except (OSError, CacheSafetyError) as exc:
            self._read_only = True
            logger.info(
                "numbast-import: template instances of %s are kept in memory only (%s)",
                self.directory.parent,
                exc,
            )

"""Template instances kept beside a cache entry, so a later process makes the same instance
with neither clang nor NVRTC.

A header's templates are instantiated when kernels use them (``numbast.runtime.templates``):
what the compiler said about an instance (its layout, the types only it could tell) is a small
JSON record, and the shims of the instances used are compiled together with the entry's shims
into one LTO-IR unit. Both are entries of the ``instance`` kind (``numbast_import.cache.entries``)
in ``<entry>/instances/<digest>/``: a record (``record.json``) under the digest the runtime
names it by, a unit (``unit.ltoir``) under the sha256 of its source and options. They are
written, checked and locked like every entry (N processes needing one unit compile it once)
and go with the header entry when it is cleared or pruned.

Instances are written only into a complete entry of the writable root: never into a layer,
nor into an entry still being built (which would leave a directory without a manifest, seen as
damage, if the build failed). Otherwise they are kept in memory and this process compiles
again, with one log line.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Sequence
from pathlib import Path

from numbast_import.cache.entries import Entry, EntryStore, Made
from numbast_import.cache.manifest import INSTANCE, MANIFEST

logger = logging.getLogger(__name__)

INSTANCES_DIR = "instances"
RECORD = "record.json"
UNIT = "unit.ltoir"


class EntryInstances:
    """The instance store of one cache entry (``numbast.runtime.templates.context.InstanceStore``),
    also caching the LTO-IR of shim units with instances (``compile_unit``). ``read_only``:
    the entry is in a layer."""

    def __init__(self, entry: Path, arch: str, read_only: bool = False) -> None:
        self.entry = entry
        self.directory = entry / INSTANCES_DIR
        self.arch = arch
        self.read_only = read_only
        self.store = self._store()
        if self.store.root is None:
            logger.info(
                "numbast-import: template instances of %s are kept in memory only (%s)",
                entry,
                "a read-only layer" if read_only else "the entry is not complete yet",
            )
        # What this process read or made: digest -> (artifact name, key, bytes).
        self._memory: dict[str, tuple[str, dict, bytes]] = {}

    def _store(self) -> EntryStore:
        # Never into a layer, nor into an entry being built (its directory appears when the
        # build is done; made now, it would be a directory without a manifest if it failed).
        writable = not self.read_only and (self.entry / MANIFEST).is_file()
        return EntryStore(
            INSTANCE,
            self.directory if writable else None,
            () if writable else (self.directory,),
            create_parents=False,
        )

    def _writable_store(self) -> EntryStore:
        """The store, now writable if the entry was completed since (the process that builds
        an entry makes instances before it is in place): what was made meanwhile goes in."""
        if self.store.root is None and not self.read_only and (self.entry / MANIFEST).is_file():
            self.store = self._store()
            for digest, (name, key, data) in list(self._memory.items()):
                self.store.put(digest, key, Made({name: data}))
        return self.store

    # -- the InstanceStore protocol -------------------------------------------------------
    def get(self, key: str) -> dict | None:
        data = self._read(key, {"record": key}, RECORD)
        if data is None:
            return None
        try:
            record = json.loads(data)
        except ValueError:
            record = None
        return record if isinstance(record, dict) else None

    def put(self, key: str, record: dict) -> None:
        data = json.dumps(record, sort_keys=True).encode()
        entry = self._writable_store().put(key, {"record": key}, Made({RECORD: data}))
        self._remember(key, {"record": key}, entry, RECORD)

    # -- shim units -----------------------------------------------------------------------
    def compile_unit(self, source: str, options: Sequence[str]) -> bytes:
        """The LTO-IR of a shim unit: from the entry when an earlier process compiled it,
        else compiled now (NVRTC, with ``options``), once among the processes that need it,
        and kept."""
        source_digest = hashlib.sha256(source.encode()).hexdigest()
        key = {"unit_source_sha256": source_digest, "arch": self.arch, "options": list(options)}
        digest = hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()
        found = self._read(digest, key, UNIT)
        if found is not None:
            return found

        def compile_it(_path: Path | None) -> Made:
            from numbast.runtime.shim_library import compile_ltoir

            return Made({UNIT: compile_ltoir(source, options)})

        store = self._writable_store()
        entry = store.build(digest, key, compile_it, what=f"shim unit {digest[:12]}")
        return self._remember(digest, key, entry, UNIT)

    # -- entries --------------------------------------------------------------------------
    def _read(self, digest: str, key: dict, name: str) -> bytes | None:
        if digest in self._memory:
            return self._memory[digest][2]
        entry = self.store.lookup(digest, key)
        if entry is None or name not in entry.artifacts:
            return None
        return self._remember(digest, key, entry, name)

    def _remember(self, digest: str, key: dict, entry: Entry, name: str) -> bytes:
        data = entry.read(name)
        self._memory[digest] = (name, key, data)
        return data

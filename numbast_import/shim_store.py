"""Where compiled shim units live: the ``shim`` entries (a unit's LTO-IR, or the answer to
whether a header defines symbols of its own) and ``shim-prelude`` entries (a precompiled
preamble) of a cache root and its layers (``numbast_import.shim_units`` says what they are).

Apart from the compiling: a kernel's first link reads a unit from here, and that must not pay
for importing what compiles units (NVRTC's planning and PTX checks).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import NamedTuple

from numbast_import.cache.entries import EntryStore, Made
from numbast_import.cache.manifest import SHIM, SHIM_PRELUDE

UNIT = "unit.ltoir"
CHECK = "check.json"
PRELUDE = "prelude.pch"


class Check(NamedTuple):
    """What the header alone defines: symbols of its own (``defines``), or only copies of
    ``constants`` constants (``numbast.core.ptx_symbols``)."""

    defines: bool
    constants: int


# Units this process compiled or read, by digest: an entry built in memory (an unwritable
# root) links them from here.
_MEMORY: dict[str, tuple[bytes, dict[str, str]]] = {}


class ShimStore:
    """The ``shim`` and ``shim-prelude`` entries of a cache root and its layers."""

    def __init__(self, root: Path | None, layers: Sequence[Path] = ()) -> None:
        self.units = EntryStore(SHIM, root, tuple(layers))
        self.preludes = EntryStore(SHIM_PRELUDE, root, tuple(layers))

    def unit(self, digest: str) -> tuple[bytes, dict[str, str]] | None:
        """A unit's LTO-IR and the shims NVRTC rejected from it, or None."""
        found = _MEMORY.get(digest)
        if found is not None:
            return found
        entry = self.units.lookup(digest, {"unit": digest})
        if entry is None or UNIT not in entry.artifacts:
            return None
        found = (entry.read(UNIT), dict(entry.manifest.get("shims_rejected") or {}))
        _MEMORY[digest] = found
        return found

    def put_unit(
        self, digest: str, ltoir: bytes, rejected: Mapping[str, str], keys: Mapping[str, str]
    ) -> None:
        fields = {"shims_rejected": dict(rejected), "shims": dict(keys)}
        entry = self.units.put(digest, {"unit": digest}, Made({UNIT: ltoir}, fields))
        # Kept here only when not stored (an unwritable root): a stored unit is read when a
        # kernel links it, and a big header's units are tens of MB, held through NVRTC else.
        if entry.path is None:
            _MEMORY[digest] = (ltoir, dict(rejected))

    def check(self, digest: str) -> Check | None:
        """What the header behind the check ``digest`` defines; None: unknown."""
        entry = self.units.lookup(digest, {"check": digest})
        if entry is None or CHECK not in entry.artifacts:
            return None
        try:
            answer = json.loads(entry.read(CHECK))
            defines, constants = answer.get("defines_symbols"), answer.get("constants")
        except (ValueError, AttributeError):
            return None
        if not isinstance(defines, bool) or type(constants) is not int or constants < 0:
            return None
        return Check(defines, constants)

    def put_check(self, digest: str, check: Check) -> None:
        data = json.dumps({"defines_symbols": check.defines, "constants": check.constants})
        self.units.put(digest, {"check": digest}, Made({CHECK: data.encode()}))

    def prelude(self, digest: str, key: Mapping[str, object]) -> Path | None:
        """The path of the precompiled preamble ``digest`` in the cache, or None."""
        entry = self.preludes.lookup(digest, key)
        if entry is None or entry.path is None:
            return None
        return entry.path / PRELUDE

    def put_prelude(self, digest: str, key: Mapping[str, object], data: bytes) -> Path | None:
        entry = self.preludes.put(digest, key, Made({PRELUDE: data}))
        return None if entry.path is None else entry.path / PRELUDE

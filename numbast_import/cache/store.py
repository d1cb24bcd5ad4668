"""Header entries: the ``header`` kind of the entry store (``numbast_import.cache.entries``), with
what only headers need.

A header entry is named by the digest of what is known before parsing (``cache.key``); its
manifest adds every file the parse read, with its sha256, and the stamps of those that had
settled. A lookup is current when the key components match and no included file changed.

A build is stored only if its inputs held still while it ran: the header must still hash to
the digest it was looked up by, and no file the parse read may have been modified after the
build began (a header rewritten in place during a build would otherwise leave an entry that
binds a half-written file, and is hit on every import). Otherwise the module is used this once,
from memory, and the next import builds again.
"""

# No ``from __future__ import annotations`` here: typing.NamedTuple turns string annotations
# into ForwardRefs, compiling each when a warm import defines the classes below.

import os
import time
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Any, NamedTuple

from numbast_import.cache.entries import Entry, EntryStore, Made, warn_once
from numbast_import.cache.entry_files import remove_entry
from numbast_import.cache.file_hashes import file_sha256
from numbast_import.cache.key import included_file_differences
from numbast_import.cache.manifest import HEADER
from numbast_import.cache.root import check_safe

# File times come from the kernel's coarse clock, which lags the one time.time_ns() reads by
# up to a few milliseconds: a file written just after the build began may carry a time just
# before it. Files modified this shortly before are counted as modified during the build.
_COARSE_CLOCK_NS = 100_000_000

__all__ = [
    "BuildOutput",
    "Builder",
    "CacheStore",
    "Entry",
    "header_entries",
    "read_entry",
    "remove_entry",
    "warn_once",
]


class BuildOutput(NamedTuple):
    """What a builder made: artifact name -> bytes, and the files the parse read. (A named
    tuple, not a dataclass: defining one costs every warm import ~0.4 ms, for the build's
    use only.)"""

    artifacts: Mapping[str, bytes]
    included_files: Mapping[str, str]
    notes: Mapping[str, Any] = MappingProxyType({})  # recorded in the manifest as is


# A builder gets the directory its entry will have (None: built in memory), so that what it
# makes can name its final place (the bytecode records its file name).
Builder = Callable[[Path | None], BuildOutput]


class CacheStore:
    """The header entries of the writable ``root`` and the read-only ``layers``."""

    def __init__(self, root: Path, layers: list[Path] | tuple[Path, ...] = ()) -> None:
        self.entries_store = EntryStore(HEADER, root, layers)
        self.root = root
        self.layers = tuple(layers)
        check_safe(root)  # refused at once, not at the first lookup

    def entry_dir(self, digest: str, root: Path | None = None) -> Path:
        return self.entries_store.entry_dir(digest, root)

    def lookup(self, digest: str, components: Mapping[str, Any]) -> Entry | None:
        """The first complete, intact and current entry for ``digest`` in the layers, then the
        root; else None. A damaged entry warns (once); an out-of-date one logs why."""
        return self.entries_store.lookup(digest, components, included_files_changed)

    def build(
        self, digest: str, components: Mapping[str, Any], builder: Builder, what: str = ""
    ) -> Entry:
        """Build the entry under its lock, unless another process built it meanwhile; when the
        root cannot be written, or an input changed during the build, in memory."""

        def make(target: Path | None) -> Made:
            started = start_after_recent_write(components.get("header"))
            output = builder(target)
            fields = {**output.notes, "included_files": dict(output.included_files)}
            changed = changed_while_building(components, output.included_files, started)
            return Made(output.artifacts, fields, not_cached=changed)

        return self.entries_store.build(digest, components, make, included_files_changed, what)

    def entries(self, root: Path | None = None) -> Iterator[Path]:
        """Every header entry directory of ``root`` (default: the writable root), complete or
        not."""
        yield from self.entries_store.entries(root)


def header_entries(root: Path) -> Iterator[Path]:
    yield from EntryStore(HEADER, root).entries()


def read_entry(path: Path) -> tuple[dict[str, Any] | None, dict[str, bytes], list[str]]:
    """The manifest, the artifacts and the problems of the header entry at ``path`` (as
    ``EntryStore.read``; unsafe files are problems here)."""
    return EntryStore(HEADER, path.parent.parent).read(path, strict=False)


def included_files_changed(manifest: Mapping[str, Any]) -> list[str]:
    """Included files of an entry that changed since it was built, or are gone."""
    return included_file_differences(manifest["included_files"], manifest.get("included_stamps"))


def start_after_recent_write(header: object) -> int:
    """The build's start time, taken once the header's last write is surely before it. A header
    written just before its import (a generated wrapper, a script writing its header) carries a
    time inside the coarse clock's margin, which would count it as modified during the build:
    its entry would never be stored. Waiting out the margin (at most 0.1 s, on a build that
    takes seconds) tells the two apart."""
    now = time.time_ns()
    if not isinstance(header, str):
        return now
    try:
        wait_ns = os.stat(header).st_mtime_ns + _COARSE_CLOCK_NS - now
    except OSError:
        return now  # changed_while_building says so after the build
    if 0 < wait_ns <= 2 * _COARSE_CLOCK_NS:  # a time further ahead is a skewed clock: no wait
        time.sleep(wait_ns / 1e9 + 0.001)
        now = time.time_ns()
    return now


def changed_while_building(
    components: Mapping[str, Any], included_files: Mapping[str, str], started_ns: int
) -> str | None:
    """Why a build that began at ``started_ns`` must not be stored, or None: the header no
    longer hashes to the digest it was looked up by, or a file the parse read was modified
    after the build began (clang may have read it half-written)."""
    header = components.get("header")
    if isinstance(header, str):
        try:
            if file_sha256(header) != components.get("header_sha256"):
                return f"{header} changed while it was being built"
        except OSError:
            return f"{header} was removed while it was being built"
    for path in included_files:
        try:
            modified = os.stat(path).st_mtime_ns
        except OSError:
            return f"{path} was removed while the header was being built"
        if modified > started_ns - _COARSE_CLOCK_NS:
            return f"{path} changed while the header was being built"
    return None

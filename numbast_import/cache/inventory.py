"""What a cache root holds, for ``numbast-cache``: header entries (with their template
instances), compiled ``SourceModule`` objects (``rtc/``), cuda.core programs (``programs/``), the
parser's precompiled preludes (``parser/prelude``), and the leftovers of writers that died; and
the removals ``prune`` and ``clear`` make.

Entries are read through the entry store (``numbast_import.cache.entries``), which checks them
as an import does: a damaged one is listed with its problems, never an exception.
"""

from __future__ import annotations

import json
import logging
import os
import re
import shutil
import time
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from ast_canopy.cache_files import SCRATCH_PREFIX, remove_dead_scratch
from numbast_import.cache.entries import STAGING_PREFIX, EntryStore
from numbast_import.cache.entry_files import TRASH_PREFIX, file_problem, remove_entry
from numbast_import.cache.instances import INSTANCES_DIR
from numbast_import.cache.lock import LOCK_SUFFIX, EntryLock
from numbast_import.cache.manifest import HEADER, INSTANCE, PROGRAM, RTC, SHIM, SHIM_PRELUDE
from numbast_import.cache.root import KEYS_DIR, PARSER_DIR

logger = logging.getLogger(__name__)

RTC_DIR = RTC.directory
PRELUDE_DIR = "prelude"
# Staging directories of an earlier layout (no per-entry lock to tell whether their builder
# lives) are dead once they are this old.
OLD_STAGING_AGE_S = 3600.0
_DIGEST = re.compile(r"[0-9a-f]{64}")
_STAGING = re.compile(re.escape(STAGING_PREFIX) + r"([0-9a-f]{64})-")
_ARCH_FLAG = re.compile(r"--cuda-gpu-arch=(sm_[0-9]+[a-z]?)")
_LEGACY_SHARD_LOCKS = (".lock", ".lock.owner")
# The kinds with entries of their own at a root (instances live inside header entries).
ROOT_KINDS = (HEADER, RTC, PROGRAM, SHIM, SHIM_PRELUDE)
# Kinds whose entries are parts that header entries share (compiled shim units, precompiled
# shim preludes): verified, pruned and cleared, but listed as one line.
PART_KINDS = (SHIM.name, SHIM_PRELUDE.name)


@dataclass
class Record:
    """One thing in a cache root that ``numbast-cache`` lists, prunes and clears."""

    kind: str  # "header", "rtc", "program", "instance" or "parser"
    path: Path
    name: str
    size: int
    used: float  # last use (mtime)
    created: float | None = None
    project: str | None = None
    header: str | None = None
    arch: str | None = None
    cuda: str | None = None
    digest: str | None = None
    read_only: bool = False
    problems: list[str] = field(default_factory=list)
    manifest: dict[str, Any] | None = field(default=None, repr=False)
    obsolete: bool = False  # intact, but of an earlier format: no lookup can use it

    def as_json(self) -> dict[str, Any]:
        data = asdict(self)
        data.pop("manifest")
        data["path"] = str(self.path)
        return data


def records(root: Path, layers: Iterable[Path] = (), verify: bool = False) -> list[Record]:
    """Everything in the writable ``root`` and the read-only ``layers``. ``verify`` also
    checks the template instances inside header entries (every entry's artifacts are hashed
    in any case, as a lookup would)."""
    found: list[Record] = []
    for base, read_only in ((root, False), *((layer, True) for layer in layers)):
        if not base.is_dir():
            continue
        for kind in ROOT_KINDS:
            store = EntryStore(kind, base)
            for path in store.entries():
                record = entry_record(store, path, read_only)
                found.append(record)
                if kind is HEADER and verify:
                    found += instance_records(path, record, read_only)
        if not read_only:
            found += parser_records(base)
    return found


def entry_record(store: EntryStore, path: Path, read_only: bool = False) -> Record:
    """The record of one entry, read and checked as a lookup would (hashes included)."""
    kind = store.kind
    record = Record(kind.name, path, "?", tree_size(path), _mtime(path), digest=path.name)
    record.read_only = read_only
    assert store.root is not None
    for directory in store.directories(store.root, path)[1:]:  # the root is checked apart
        problem = file_problem(directory, read_only)
        if problem:
            record.problems.append(f"{directory}: {problem}")
    manifest, _artifacts, problems = store.read(path, shared=read_only, strict=False)
    record.problems += problems
    if manifest is None:
        return record
    record.manifest = manifest
    record.obsolete = manifest["format"] != kind.format
    record.created = _number(manifest.get("created"))
    key = manifest["key"]
    if kind is HEADER:
        record.name = _text(key.get("module")) or "?"
        record.header = _text(key.get("header"))
        record.arch = _text(key.get("arch"))
        record.cuda = _text(key.get("cuda_toolkit"))
        record.project = _text(manifest.get("project"))
    elif kind is RTC:
        record.arch = _text(key.get("arch"))
        record.cuda = _text(key.get("compiler"))
        target = _text(key.get("target")) or "?"
        record.name = f"rtc {target} {str(key.get('source_sha256', ''))[:12]}".rstrip()
    elif kind is SHIM:
        shims = manifest.get("shims") or {}
        record.name = f"shim unit of {len(shims)}" if shims else "shim definitions check"
        record.arch = _text(key.get("arch"))
    elif kind is SHIM_PRELUDE:
        record.name = f"shim prelude {_text(key.get('module')) or '?'}"
        record.arch = _text(key.get("arch"))
    else:
        record.name = f"program {str(key.get('cuda_core_key', ''))[:12]}".rstrip()
    return record


def instance_records(entry: Path, owner: Record, read_only: bool) -> list[Record]:
    """The template instances kept inside a header entry."""
    store = EntryStore(INSTANCE, entry / INSTANCES_DIR)
    found = []
    for path in store.entries():
        record = entry_record(store, path, read_only)
        record.name = f"instance of {owner.name}"
        record.arch = owner.arch
        found.append(record)
    return found


def parser_records(root: Path) -> list[Record]:
    """The parser's precompiled preludes (each ~8 MB, one per arch and flag set)."""
    found = []
    for pch in sorted((root / PARSER_DIR / PRELUDE_DIR).glob("*.pch")):
        sidecar = pch.with_suffix(".json")
        size = _file_size(pch) + _file_size(sidecar)
        record = Record("parser", pch, f"prelude {pch.stem[:12]}", size, _mtime(pch))
        for path in (pch, sidecar):
            problem = file_problem(path)
            if problem:
                record.problems.append(f"{path.name}: {problem}")
        try:
            described = json.loads(sidecar.read_text())
            args = " ".join(described.get("args", []))
            match = _ARCH_FLAG.search(args)
            record.arch = match.group(1) if match else None
            if described.get("pch_size") != _file_size(pch):
                record.problems.append(f"{pch.name} is not the size {sidecar.name} records")
        except (OSError, ValueError, AttributeError, TypeError):
            record.problems.append(f"{sidecar.name} missing or unreadable")
        found.append(record)
    return found


def remove(record: Record) -> None:
    """Remove one record from its (writable) root."""
    if record.kind == "parser":
        # The record first: a PCH without it is never used.
        for path in (record.path.with_suffix(".json"), record.path):
            path.unlink(missing_ok=True)
    else:
        remove_entry(record.path)


# -- leftovers ------------------------------------------------------------------------------
def remove_leftovers(root: Path) -> list[Path]:
    """What writers that died left: staging directories whose entry no one is building, trash
    directories, lock files no one holds, scratch files of interrupted writes (the parser's
    preludes included), and lock files of the earlier per-shard layout."""
    removed: list[Path] = []
    for directory in _entry_parents(root):
        removed += _remove_dead_builds(directory)
        removed += remove_dead_scratch(directory)
    for directory in (root / PARSER_DIR / PRELUDE_DIR, root / PARSER_DIR, root / KEYS_DIR, root):
        removed += remove_dead_scratch(directory)
    removed += _remove_old_layout_staging(root / PARSER_DIR, ".toolkit-")
    if removed:
        logger.info("numbast-import: removed %d leftovers of dead writers", len(removed))
    return removed


def _entry_parents(root: Path) -> Iterator[Path]:
    """Every directory in which entries are built: shards, and entries' instances/."""
    for kind in ROOT_KINDS:
        base = root / kind.directory if kind.directory else root
        yield from sorted(base.glob("[0-9a-f][0-9a-f]"))
        if kind is RTC:
            yield base  # the earlier rtc layout staged here
    for entry in EntryStore(HEADER, root).entries():
        if (entry / INSTANCES_DIR).is_dir():
            yield entry / INSTANCES_DIR


def _remove_dead_builds(directory: Path) -> list[Path]:
    removed: list[Path] = []
    try:
        children = sorted(directory.iterdir())
    except OSError:
        return removed
    # The earlier layout locked a whole shard with <shard>/.lock (held while it builds).
    legacy = _take_legacy_lock(directory)
    legacy_free = legacy is not False
    try:
        for path in children:
            if _remove_if_dead(directory, path, legacy_free):
                removed.append(path)
        if legacy not in (None, False):
            for name in _LEGACY_SHARD_LOCKS:  # removed while held: no one can be waiting
                (directory / name).unlink(missing_ok=True)
                removed.append(directory / name)
    finally:
        if legacy not in (None, False):
            legacy.release()
    return removed


def _remove_if_dead(directory: Path, path: Path, legacy_free: bool) -> bool:
    name = path.name
    staging = _STAGING.match(name)
    if staging and path.is_dir():
        lock = EntryLock(directory / f"{staging.group(1)}{LOCK_SUFFIX}", "prune", timeout=0)
        if not _try_lock(lock):
            return False  # its entry is being built
        try:
            shutil.rmtree(path, ignore_errors=True)
        finally:
            lock.release()
        return True
    if name.startswith(STAGING_PREFIX) and path.is_dir():
        # An earlier layout's: its builder held the shard's lock, or, in rtc/, none at all.
        in_rtc = directory.name == RTC_DIR
        if legacy_free and (not in_rtc or time.time() - _mtime(path) > OLD_STAGING_AGE_S):
            shutil.rmtree(path, ignore_errors=True)
            return True
        return False
    if name.startswith(TRASH_PREFIX) and path.is_dir():
        shutil.rmtree(path, ignore_errors=True)  # renamed aside: no one else wants it
        return True
    if name.endswith(LOCK_SUFFIX) and _DIGEST.fullmatch(name[: -len(LOCK_SUFFIX)]):
        lock = EntryLock(path, "prune", timeout=0)
        if _try_lock(lock):
            lock.release()  # which deletes it
            return True
    return False


def _try_lock(lock: EntryLock) -> bool:
    try:
        return lock.try_acquire()
    except OSError:
        return False  # a read-only root: nothing to remove anyway


def _take_legacy_lock(directory: Path):
    """The earlier layout's shard lock, taken (None: there is none; False: it is held)."""
    path = directory / ".lock"
    if not path.exists():
        return None
    from filelock import FileLock, Timeout

    legacy = FileLock(str(path))
    try:
        legacy.acquire(timeout=0)
    except (Timeout, OSError):
        return False
    return legacy


def _remove_old_layout_staging(directory: Path, prefix: str) -> list[Path]:
    removed = []
    for path in directory.glob(prefix + "*"):
        if path.is_dir() and time.time() - _mtime(path) > OLD_STAGING_AGE_S:
            shutil.rmtree(path, ignore_errors=True)
            removed.append(path)
    return removed


def legacy_parser_dir() -> Path | None:
    """The parser cache earlier versions kept outside the root (~/.cache/ast_canopy), if it
    exists, holds only what the parser put there, and is not chosen explicitly."""
    from ast_canopy.cache import CACHE_DIR_ENV, legacy_cache_dir

    path = legacy_cache_dir()
    if os.environ.get(CACHE_DIR_ENV) or not path.is_dir():
        return None
    known = ("prelude", "stub-include", "toolkit-", ".toolkit-")
    if all(child.name.startswith(known) for child in path.iterdir()):
        return path
    return None


# -- sizes ----------------------------------------------------------------------------------
def total_size(found: Iterable[Record]) -> int:
    return sum(record.size for record in found if record.kind != "instance")


def tree_size(path: Path) -> int:
    """Bytes the files under ``path`` take (links not followed: they take no space here)."""
    total = 0
    for directory, _dirs, files in os.walk(path):
        for name in files:
            try:
                total += os.lstat(os.path.join(directory, name)).st_size
            except OSError:
                continue
    return total


def _file_size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


__all__ = ["SCRATCH_PREFIX", "Record", "records", "remove", "remove_leftovers", "tree_size"]

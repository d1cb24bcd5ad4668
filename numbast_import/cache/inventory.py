"""What a cache root holds, for ``numbast-cache``: header entries, compiled ``SourceModule``
objects (``rtc/``), the parser's precompiled preludes (``parser/prelude``), and the leftovers of
builders that died; and the removals ``prune`` and ``clear`` make.

Every record is read defensively: a damaged entry is listed with its problems, never an
exception.
"""

from __future__ import annotations

import json
import logging
import os
import re
import shutil
import time
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from numbast_import.cache.lock import LOCK_NAME, STAGING_PREFIX, TRASH_PREFIX, BuildLock
from numbast_import.cache.manifest import read_entry, read_manifest, sha256
from numbast_import.cache.root import PARSER_DIR
from numbast_import.cache.store import header_entries, remove_entry

logger = logging.getLogger(__name__)

RTC_DIR = "rtc"
PRELUDE_DIR = "prelude"
# rtc/ has no build lock: its staging directories are dead once they are this old.
RTC_LEFTOVER_AGE_S = 3600.0
_DIGEST = re.compile(r"[0-9a-f]{64}")
_ARCH_FLAG = re.compile(r"--cuda-gpu-arch=(sm_[0-9]+[a-z]?)")


@dataclass
class Record:
    """One thing in a cache root that ``numbast-cache`` lists, prunes and clears."""

    kind: str  # "header", "rtc" or "parser"
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

    def as_json(self) -> dict[str, Any]:
        data = asdict(self)
        data.pop("manifest")
        data["path"] = str(self.path)
        return data


def records(root: Path, layers: Iterable[Path] = (), verify: bool = False) -> list[Record]:
    """Everything in the writable ``root`` and the read-only ``layers``. ``verify`` hashes
    every artifact (otherwise only manifests are read)."""
    found: list[Record] = []
    for base, read_only in ((root, False), *((layer, True) for layer in layers)):
        if not base.is_dir():
            continue
        found += [header_record(p, read_only, verify) for p in header_entries(base)]
        found += [rtc_record(p, read_only, verify) for p in rtc_entries(base)]
        if not read_only:
            found += parser_records(base)
    return found


def header_record(path: Path, read_only: bool = False, verify: bool = False) -> Record:
    manifest, problem = read_manifest(path)
    record = Record("header", path, "?", _size(path), _mtime(path), digest=path.name)
    record.read_only = read_only
    if manifest is None:
        record.problems.append(problem or "unreadable")
        return record
    if verify:
        record.problems += read_entry(path)[2]
    key = manifest["key"]
    record.manifest = manifest
    record.name = str(key.get("module", "?"))
    record.header = _text(key.get("header"))
    record.arch = _text(key.get("arch"))
    record.cuda = _text(key.get("cuda_toolkit"))
    record.project = _text(manifest.get("project"))
    record.created = _number(manifest.get("created"))
    return record


def rtc_entries(root: Path) -> Iterable[Path]:
    base = root / RTC_DIR
    for shard in sorted(base.glob("[0-9a-f][0-9a-f]")):
        for path in sorted(shard.iterdir()):
            if _DIGEST.fullmatch(path.name) and path.is_dir():
                yield path


def rtc_record(path: Path, read_only: bool = False, verify: bool = False) -> Record:
    """A compiled SourceModule: ``manifest.json`` is {"kind": "rtc", "format", "key",
    "artifacts": {file: sha256}, "created"}."""
    record = Record("rtc", path, "rtc", _size(path), _mtime(path), digest=path.name)
    record.read_only = read_only
    try:
        manifest = json.loads((path / "manifest.json").read_bytes())
    except (OSError, ValueError):
        record.problems.append("manifest.json missing or not JSON (a partial entry)")
        return record
    if not isinstance(manifest, dict):
        manifest = {}
    artifacts, key = manifest.get("artifacts"), manifest.get("key")
    well_formed = isinstance(artifacts, dict) and isinstance(key, dict)
    if manifest.get("kind") != "rtc" or not well_formed:
        record.problems.append("manifest.json is not an rtc manifest (kind, key, artifacts)")
        return record
    record.manifest = manifest
    record.created = _number(manifest.get("created"))
    record.arch = _text(key.get("arch"))
    record.cuda = _text(key.get("compiler"))
    target = _text(key.get("target")) or "?"
    record.name = f"rtc {target} {str(key.get('source_sha256', ''))[:12]}".rstrip()
    if verify:
        for name, digest in artifacts.items():
            try:
                data = (path / str(name)).read_bytes()
            except OSError:
                record.problems.append(f"{name} missing")
                continue
            if sha256(data) != digest:
                record.problems.append(f"{name} does not match its sha256 in manifest.json")
    return record


def parser_records(root: Path) -> list[Record]:
    """The parser's precompiled preludes (each ~8 MB, one per arch and flag set)."""
    found = []
    for pch in sorted((root / PARSER_DIR / PRELUDE_DIR).glob("*.pch")):
        sidecar = pch.with_suffix(".json")
        size = _file_size(pch) + _file_size(sidecar)
        record = Record("parser", pch, f"prelude {pch.stem[:12]}", size, _mtime(pch))
        try:
            args = " ".join(json.loads(sidecar.read_text()).get("args", []))
            match = _ARCH_FLAG.search(args)
            record.arch = match.group(1) if match else None
        except (OSError, ValueError, AttributeError, TypeError):
            record.problems.append(f"{sidecar.name} missing or unreadable")
        found.append(record)
    return found


def remove(record: Record) -> None:
    """Remove one record from its (writable) root."""
    if record.kind == "parser":
        for path in (record.path, record.path.with_suffix(".json")):
            path.unlink(missing_ok=True)
    else:
        remove_entry(record.path)


def remove_leftovers(root: Path) -> list[Path]:
    """Staging and trash directories of dead builders, and lock files of the previous
    (per-key) format. Shards whose lock is held by a live builder are left alone."""
    removed: list[Path] = []
    for shard in sorted(root.glob("[0-9a-f][0-9a-f]")):
        if not any(p.name.startswith((STAGING_PREFIX, TRASH_PREFIX)) for p in shard.iterdir()):
            removed += _remove_legacy_locks(shard)
            continue
        lock = BuildLock(shard, "numbast-cache prune", timeout=0)
        if not lock.try_acquire():
            continue
        try:
            removed += lock.remove_leftovers()
        finally:
            lock.release()
        removed += _remove_legacy_locks(shard)
    now = time.time()
    for path in (root / RTC_DIR).glob(".*"):
        if path.name.startswith((STAGING_PREFIX, TRASH_PREFIX)) and path.is_dir():
            if now - _mtime(path) > RTC_LEFTOVER_AGE_S:
                shutil.rmtree(path, ignore_errors=True)
                removed.append(path)
    return removed


def _remove_legacy_locks(shard: Path) -> list[Path]:
    # <digest>.lock / <digest>.owner: one per key ever built, from before locks were per
    # shard. A lock that can be taken has no builder; it is removed while held.
    from filelock import FileLock, Timeout

    removed = []
    for path in shard.glob("*.lock"):
        if path.name == LOCK_NAME or not _DIGEST.fullmatch(path.stem):
            continue
        legacy = FileLock(str(path))
        try:
            legacy.acquire(timeout=0)
        except Timeout:
            continue
        try:
            path.unlink(missing_ok=True)
            path.with_suffix(".owner").unlink(missing_ok=True)
            removed.append(path)
        finally:
            legacy.release()
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


def total_size(found: Iterable[Record]) -> int:
    return sum(record.size for record in found)


def _size(path: Path) -> int:
    try:
        return sum(f.stat().st_size for f in path.iterdir() if f.is_file())
    except OSError:
        return 0


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

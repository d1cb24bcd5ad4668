"""A precompiled prelude: clang's CUDA runtime wrapper, parsed once and reused.

In CUDA mode clang force-includes ``__clang_cuda_runtime_wrapper.h``, which pulls in
``cuda_runtime.h``, the math headers and parts of libstdc++: about 250 files, and 85-90% of the
time of parsing ``cuda_fp16.h``. That prefix is the same for every header parsed with the same
command line, so we parse an empty file once, save the translation unit as a PCH in the cache
directory, and parse later headers with ``-include-pch``. The wrapper's include guard is then
already defined, so the forced include costs nothing and the result is the same AST.

The PCHs live in ``prelude/`` of the parser's cache directory (``<numbast-import cache
root>/parser``), where ``numbast-cache prune`` manages them with the rest of the cache; at most
16 are kept, the least recently used going first.

The PCH is keyed by the libclang version and the exact argument list. clang itself refuses a PCH
whose input headers changed (size or mtime); the parser then drops it, parses without it, and
the next parse builds a fresh one. Setting ``AST_CANOPY_PRELUDE=0`` turns all of this off.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from clang import cindex as ci

from ast_canopy import _libclang, cache

logger = logging.getLogger(__name__)

PRELUDE_ENV = "AST_CANOPY_PRELUDE"
_FORMAT_VERSION = "1"
_KEEP_PRELUDES = 16  # newest PCH files kept; each is ~8 MB
_PRELUDE_SOURCE = "/* ast_canopy prelude: everything clang includes before the header */\n"


@dataclass(frozen=True)
class Prelude:
    pch_path: str
    included_files: tuple[str, ...]  # realpaths of every file the prelude read


def enabled() -> bool:
    return os.environ.get(PRELUDE_ENV, "1").strip().lower() not in ("0", "false", "no", "off")


def _key(args: list[str]) -> str:
    payload = json.dumps([_FORMAT_VERSION, _libclang.clang_version(), args])
    return hashlib.sha256(payload.encode()).hexdigest()[:32]


def _directory() -> Path | None:
    root = cache.persistent_cache_dir()
    if root is None:
        return None
    directory = root / "prelude"
    directory.mkdir(mode=0o700, exist_ok=True)
    return directory


def _load(pch: Path, sidecar: Path) -> Prelude | None:
    if not (pch.is_file() and sidecar.is_file()):
        return None
    try:
        files = json.loads(sidecar.read_text())["included_files"]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        logger.warning("ignoring unreadable prelude record %s: %s", sidecar, exc)
        return None
    _mark_used(pch)
    return Prelude(str(pch), tuple(files))


def _mark_used(pch: Path) -> None:
    # A PCH's mtime is its last use: _prune and `numbast-cache prune` drop the least recently
    # used first. Written at most hourly.
    try:
        if time.time() - pch.stat().st_mtime > 3600:
            os.utime(pch)
    except OSError:
        pass  # a read-only cache keeps the build time as the last use


def _write_atomically(target: Path, write) -> None:
    fd, scratch = tempfile.mkstemp(prefix=f".{target.name}-", dir=target.parent)
    os.close(fd)
    try:
        write(scratch)
        os.replace(scratch, target)
    finally:
        if os.path.exists(scratch):
            os.unlink(scratch)


def _prune(directory: Path) -> None:
    pchs = sorted(directory.glob("*.pch"), key=lambda p: p.stat().st_mtime, reverse=True)
    for old in pchs[_KEEP_PRELUDES:]:
        for path in (old, old.with_suffix(".json")):
            path.unlink(missing_ok=True)


def _build(directory: Path, args: list[str], pch: Path, sidecar: Path) -> Prelude | None:
    source = directory / "prelude.cuh"
    if not source.is_file() or source.read_text() != _PRELUDE_SOURCE:
        _write_atomically(source, lambda p: Path(p).write_text(_PRELUDE_SOURCE))
    options = (
        ci.TranslationUnit.PARSE_SKIP_FUNCTION_BODIES
        | ci.TranslationUnit.PARSE_INCOMPLETE
        | _libclang.VISIT_IMPLICIT_ATTRIBUTES
    )
    try:
        tu = _libclang.index().parse(str(source), args=args, options=options)
    except ci.TranslationUnitLoadError as exc:
        logger.info("could not build the prelude (%s); parsing without it", exc)
        return None
    if any(d.severity >= ci.Diagnostic.Error for d in tu.diagnostics):
        # Not our business to report: the real parse repeats and reports these errors.
        return None
    included = sorted({os.path.realpath(inc.include.name) for inc in tu.get_includes()})
    record = {"args": args, "clang": _libclang.clang_version(), "included_files": included}
    try:
        _write_atomically(sidecar, lambda p: Path(p).write_text(json.dumps(record, indent=1)))
        _write_atomically(pch, tu.save)
    except (OSError, ci.TranslationUnitSaveError) as exc:
        logger.warning("could not save the precompiled prelude to %s: %s", pch, exc)
        return None
    _prune(directory)
    logger.debug("built precompiled prelude %s (%d files)", pch, len(included))
    return Prelude(str(pch), tuple(included))


def prelude_for(args: list[str]) -> Prelude | None:
    """The precompiled prelude for this command line, built on first use; None if disabled."""
    if not enabled():
        return None
    directory = _directory()
    if directory is None:
        return None
    key = _key(args)
    pch, sidecar = directory / f"{key}.pch", directory / f"{key}.json"
    return _load(pch, sidecar) or _build(directory, args, pch, sidecar)


def discard(prelude: Prelude) -> None:
    """Remove a prelude clang refused (its headers changed); the next parse rebuilds it."""
    logger.info("discarding stale precompiled prelude %s", prelude.pch_path)
    pch = Path(prelude.pch_path)
    for path in (pch, pch.with_suffix(".json")):
        path.unlink(missing_ok=True)

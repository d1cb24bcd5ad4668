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

A PCH is saved only where it fits with room to spare (libclang aborts the process when a save
fills the disk), under a scratch name moved into place when whole, and the record beside it
(``<key>.json``, with the PCH's size) is written after it: a PCH without its record, or of
another size, is never given to clang. Where the cache cannot be written, the parse goes on
without a prelude (one warning per process).

The PCH is keyed by the libclang version and the exact argument list. clang itself refuses a PCH
whose input headers changed (size or mtime); the parser then drops it, parses without it, and
the next parse builds a fresh one. Setting ``AST_CANOPY_PRELUDE=0`` turns all of this off.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import time
from dataclasses import dataclass
from pathlib import Path

from clang import cindex as ci

from ast_canopy import _libclang, cache, cache_files

logger = logging.getLogger(__name__)

PRELUDE_ENV = "AST_CANOPY_PRELUDE"
_FORMAT_VERSION = "1"
_KEEP_PRELUDES = 16  # newest PCH files kept; each is ~8 MB
_PRELUDE_SOURCE = "/* ast_canopy prelude: everything clang includes before the header */\n"
_TYPICAL_PCH_SIZE = 16 << 20
_warned: set[Path] = set()


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
    try:
        directory.mkdir(mode=0o700, exist_ok=True)
    except OSError as exc:
        _warn_unsaved(directory, exc)
        return None
    return directory


def _load(pch: Path, sidecar: Path) -> Prelude | None:
    """The prelude recorded by ``sidecar`` (written after the PCH), if the PCH is whole."""
    if not sidecar.is_file():
        return None
    problem = cache.unsafe_reason(sidecar) or cache.unsafe_reason(pch)
    if problem:
        logger.warning("not using the precompiled prelude %s: %s", pch, problem)
        return None
    try:
        record = json.loads(sidecar.read_text())
        files, size = record["included_files"], record["pch_size"]
        if not (isinstance(files, list) and all(isinstance(f, str) for f in files)):
            raise TypeError("included_files is not a list of paths")
    except (OSError, ValueError, KeyError, TypeError) as exc:
        logger.warning("ignoring unreadable prelude record %s: %s", sidecar, exc)
        return None
    try:
        whole = pch.stat().st_size == size
    except OSError:
        whole = False
    if not whole:
        # Never hand clang a PCH that is not the one recorded (a partial or damaged file).
        discard(Prelude(str(pch), ()), "it is missing or not the size its record says")
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


def _last_use(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0  # removed meanwhile


def _expected_size(directory: Path) -> int:
    """What a new PCH will take: as much as the largest one here (the flag sets differ
    little), else a generous guess (they are ~8 MB)."""
    sizes = []
    for pch in directory.glob("*.pch"):
        try:
            sizes.append(pch.stat().st_size)
        except OSError:
            continue
    return max([*sizes, _TYPICAL_PCH_SIZE])


def _prune(directory: Path) -> None:
    pchs = sorted(directory.glob("*.pch"), key=_last_use, reverse=True)
    for old in pchs[_KEEP_PRELUDES:]:
        for path in (old.with_suffix(".json"), old):
            path.unlink(missing_ok=True)
    cache_files.remove_dead_scratch(directory)


def _build(directory: Path, args: list[str], pch: Path, sidecar: Path) -> Prelude | None:
    source = directory / "prelude.cuh"
    try:
        if not source.is_file() or source.read_text() != _PRELUDE_SOURCE:
            cache_files.write_atomically(source, _PRELUDE_SOURCE.encode())
        # Checked before clang parses: a full disk would abort the process inside libclang
        # when the PCH is saved, and the parse itself is the expensive part.
        cache_files.require_space(directory, _expected_size(directory))
    except OSError as exc:
        _warn_unsaved(directory, exc)
        return None
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
    try:
        # The PCH first, the record that vouches for it last: a prelude without a record (a
        # save that died) is never used, and a record always describes a whole PCH.
        cache_files.write_atomically(pch, tu.save, expected_size=_expected_size(directory))
        record = {
            "args": args,
            "clang": _libclang.clang_version(),
            "included_files": included,
            "pch_size": pch.stat().st_size,
        }
        cache_files.write_atomically(sidecar, json.dumps(record, indent=1).encode())
    except (OSError, ci.TranslationUnitSaveError) as exc:
        pch.unlink(missing_ok=True)
        _warn_unsaved(directory, exc)
        return None
    _prune(directory)
    logger.debug("built precompiled prelude %s (%d files)", pch, len(included))
    return Prelude(str(pch), tuple(included))


def _warn_unsaved(directory: Path, exc: BaseException) -> None:
    # Once per directory and process: every parse would say it again.
    if directory in _warned:
        return
    _warned.add(directory)
    reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
    logger.warning(
        "cannot save the precompiled prelude in %s (%s); parsing without it", directory, reason
    )


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


def discard(prelude: Prelude, why: str = "clang refused it: a header in it changed") -> None:
    """Remove a prelude that cannot be used; the next parse rebuilds it."""
    logger.info("discarding stale precompiled prelude %s (%s)", prelude.pch_path, why)
    pch = Path(prelude.pch_path)
    for path in (pch.with_suffix(".json"), pch):
        path.unlink(missing_ok=True)

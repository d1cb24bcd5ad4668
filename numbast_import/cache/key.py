"""What a cache entry depends on, and the digest that names it.

Two levels, as ccache's direct mode: the files a header includes are known only after clang has
parsed it, and a warm import must not load clang. So the entry is *named* by a lookup digest of
what is known before parsing (the header's path and contents, the options, the arch, the
toolkit and package versions, the format), and its manifest records, in clear text, those
components plus every file clang read with its sha256. A hit needs all of them to match.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from ast_canopy.cache_files import unsafe_reason
from numbast_import.cache.file_hashes import (
    STAMP_SETTLE_S,
    file_sha256,
    header_sha256,
    write_memo,
)

# Bump when the entry layout or the manifest's meaning changes: old entries then miss.
# 2: bindings.pyc (the module's code object) joined the artifacts.
# 3: the manifest records coverage (numbast-cache coverage), modules export __numbast_types__
#    and may use other modules' types, template instances live in <entry>/instances/.
# 4: template instances are entries of their own (instances/<digest>/, with a manifest); every
#    manifest field is type-checked.
FORMAT_VERSION = 4


def _numba_cuda_version() -> str:
    """numba-cuda's version, as its package states it: a warm import has imported it already
    (``importlib.metadata`` would scan every directory of sys.path for it: ~0.6 ms)."""
    try:
        import numba_cuda
    except ImportError:
        return "not installed"
    return str(numba_cuda.__version__)


# The import system's modules whose code decides what an entry holds (the rendered module,
# its shims and their LTO-IR, the coverage in its manifest), relative to numbast_import/. The
# rest of numbast_import/ only finds, stores or runs entries (the layout those write is
# FORMAT_VERSION's). tests/test_import_cache.py checks this list against what build.py imports.
ENTRY_SHAPING_MODULES = (
    "build.py",
    "build_front.py",
    "build_process.py",
    "digests.py",
    "entry_key.py",
    "environment.py",
    "header_items.py",
    "header_names.py",
    "header_tokens.py",
    "mapping.py",
    "mapping_checks.py",
    "mapping_nvrtc.py",
    "nvrtc_conditions.py",
    "nvrtc_diagnostics.py",
    "rtc/options.py",
    "shim_compiler.py",
    "shim_keys.py",
    "shim_store.py",
    "shim_unit_plan.py",
    "shim_units.py",
    "template_coverage.py",
    "uses.py",
)


def _generator_sources() -> list[tuple[str, str]]:
    """(name relative to the packages' parent, path) of every source of the fingerprint,
    sorted by name."""
    return [(name, path) for name, path, _entry in _generator_files()]


def _generator_files() -> list[tuple[str, str, os.DirEntry | None]]:
    """The same, with the directory entry each was found by (None for those named): walked
    with os.scandir, whose entries stat a file by its directory's handle (a warm import stats
    every one; pathlib's rglob cost ~3 ms more for ~190 files, a stat by path ~0.3 ms more for
    ~230)."""
    found: list[tuple[str, str, os.DirEntry | None]] = []
    for package_name in ("ast_canopy", "numbast"):
        spec = importlib.util.find_spec(package_name)
        assert spec is not None and spec.submodule_search_locations
        package = next(iter(spec.submodule_search_locations))
        # The stand-in system headers NVRTC compiles the shims with (numbast.core.nvrtc): every
        # file under them; elsewhere the Python sources.
        stand_ins = os.path.join(package, "core", "nvrtc_headers")
        _walk(package, package_name, stand_ins, found)
    import_system = os.path.dirname(os.path.dirname(__file__))
    for relative in ENTRY_SHAPING_MODULES:
        found.append((f"numbast_import/{relative}", os.path.join(import_system, relative), None))
    found.sort(key=lambda item: item[0])
    return found


def _walk(
    directory: str, name: str, stand_ins: str, found: list[tuple[str, str, os.DirEntry | None]]
) -> None:
    every_file = directory == stand_ins or directory.startswith(stand_ins + os.sep)
    with os.scandir(directory) as entries:
        for entry in entries:
            if entry.is_dir():
                if entry.name != "__pycache__":
                    _walk(entry.path, f"{name}/{entry.name}", stand_ins, found)
            elif entry.is_file() and (every_file or entry.name.endswith(".py")):
                found.append((f"{name}/{entry.name}", entry.path, entry))


def generator_fingerprint(memo_dir: Path | None = None) -> str:
    """sha256 of the generator's own sources (the parser, the planning code, the runtime, the
    static generator, NVRTC's stand-in system headers and the import system's modules that
    build an entry: ``ENTRY_SHAPING_MODULES``), so that a development checkout
    changing any of them without a version bump misses. It is a digest of contents (the same
    on every machine, so read-only layers built elsewhere hit); reading ~150 files costs
    ~10 ms, so it is remembered in ``memo_dir`` (the cache root's) under a digest of the
    files' sizes and times."""
    files = _generator_files()
    memo = None
    if memo_dir is not None:
        stamps = []
        for relative, path, entry in files:
            info = os.stat(path) if entry is None else entry.stat()  # both follow links
            stamps.append(f"{relative}\0{info.st_size}\0{info.st_mtime_ns}\0")
        stamped = hashlib.sha256("".join(stamps).encode()).hexdigest()
        memo = memo_dir / f"generator-{stamped[:32]}"
        try:
            with open(memo, "rb") as stream:
                # Another user's memo could make entries of another generator look current.
                trusted = unsafe_reason(os.fstat(stream.fileno())) is None
                remembered = stream.read().decode(errors="replace").strip()
            if trusted and len(remembered) == 64:
                return remembered
        except OSError:
            pass
    digest = hashlib.sha256()
    for relative, path, _entry in files:
        with open(path, "rb") as stream:
            digest.update(relative.encode() + b"\0" + stream.read())
    fingerprint = digest.hexdigest()
    if memo is not None:
        write_memo(memo, fingerprint.encode())
    return fingerprint


def lookup_components(
    module: str,
    header: str,
    options: Mapping[str, Any],
    arch: str,
    bypass_parse_error: bool = False,
    memo_dir: Path | None = None,
) -> dict[str, Any]:
    """Every key component known before parsing. ``options`` is the static-config mapping
    (absolute paths) without its GPU Arch."""
    from ast_canopy.toolkit import cuda_version
    from numbast_import.version import __version__

    major, minor = cuda_version()
    return {
        "format": FORMAT_VERSION,
        "module": module,
        "header": os.path.realpath(header),
        "header_sha256": header_sha256(header, memo_dir),
        "options": json.loads(json.dumps(dict(options), sort_keys=True)),
        "bypass_parse_error": bypass_parse_error,
        "arch": arch,
        "cuda_toolkit": f"{major}.{minor}",
        "numbast_import": __version__,
        "generator_sources": generator_fingerprint(memo_dir),
        "numba_cuda": _numba_cuda_version(),
        "python": ".".join(str(part) for part in sys.version_info[:3]),
    }


def lookup_digest(components: Mapping[str, Any]) -> str:
    text = json.dumps(components, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def included_file_stamps(paths: Iterable[str], now: float) -> dict[str, list[int]]:
    """(size, mtime_ns) of each file old enough for its stamp to be trusted."""
    stamps = {}
    for path in sorted(set(paths)):
        try:
            info = os.stat(path)
        except OSError:
            continue
        if info.st_mtime < now - STAMP_SETTLE_S:
            stamps[path] = [info.st_size, info.st_mtime_ns]
    return stamps


def component_differences(recorded: Mapping[str, Any], current: Mapping[str, Any]) -> list[str]:
    """One line per key component that differs between a manifest and the current state. A
    component that is a table (the parse options) shows only its entries that differ: the
    unchanged ones (the header's absolute path, repeated) would push the change past the
    line's length limit in a deep directory."""
    lines = []
    for name in sorted(set(recorded) | set(current)):
        old, new = recorded.get(name), current.get(name)
        if old == new:
            continue
        if isinstance(old, Mapping) and isinstance(new, Mapping):
            changed = {k for k in set(old) | set(new) if old.get(k) != new.get(k)}
            old = {k: v for k, v in old.items() if k in changed}
            new = {k: v for k, v in new.items() if k in changed}
        lines.append(f"{name}: cached {_short(old)}, now {_short(new)}")
    return lines


def included_file_differences(
    recorded: Mapping[str, str], stamps: Mapping[str, Any] | None = None
) -> list[str]:
    """Included files whose contents changed since the entry was built, or that are gone. A
    file whose size and modification time are those ``stamps`` recorded is taken as unchanged
    without reading it (a warm import of a toolkit header reads no header)."""
    lines = []
    stamps = stamps or {}
    for path, digest in recorded.items():
        stamp = stamps.get(path)
        if isinstance(stamp, list) and len(stamp) == 2:
            try:
                info = os.stat(path)
            except OSError:
                lines.append(f"included file {path}: gone")
                continue
            if [info.st_size, info.st_mtime_ns] == stamp:
                continue
        try:
            now = file_sha256(path)
        except OSError:
            lines.append(f"included file {path}: gone")
            continue
        if now != digest:
            lines.append(f"included file {path}: contents changed")
    return lines


def _short(value: Any) -> str:
    text = json.dumps(value, sort_keys=True)
    return text if len(text) <= 200 else text[:197] + "..."

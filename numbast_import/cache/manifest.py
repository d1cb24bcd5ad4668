"""An entry's files and its manifest: what an intact entry holds, and how to tell.

A header entry is ``<root>/<2 hex>/<digest>/`` holding ``bindings.py``, ``bindings.pyc`` (its
code object, compiled once when the entry is built), ``shim.cu``, ``shim.ltoir`` and
``manifest.json``. The manifest is written last and carries the sha256 of every artifact, so an
entry without a valid manifest, or whose files do not hash to it, is partial or corrupt. A
manifest is data read from disk: every field is type-checked before use, so a damaged one is a
reason to rebuild, never an exception.

``bindings.pyc`` is a hash-based .pyc (PEP 552): Python's magic number, flags, the source hash
of ``bindings.py`` and the marshalled code. A hit runs it without compiling, as importlib runs
a checked .pyc, after checking the magic number and the source hash.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import marshal
import types
from collections.abc import Mapping
from pathlib import Path
from typing import Any

KIND = "header"
BINDINGS = "bindings.py"
BINDINGS_CODE = "bindings.pyc"
SHIM_SOURCE = "shim.cu"
SHIM_LTOIR = "shim.ltoir"
MANIFEST = "manifest.json"
ARTIFACTS = (BINDINGS, BINDINGS_CODE, SHIM_SOURCE, SHIM_LTOIR)

_PYC_CHECKED_HASH = 0b11  # PEP 552 flags: hash-based, check_source


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def code_to_pyc(code: types.CodeType, source: bytes) -> bytes:
    """A checked hash-based .pyc of ``code``, compiled from ``source``."""
    header = importlib.util.MAGIC_NUMBER + _PYC_CHECKED_HASH.to_bytes(4, "little")
    return header + importlib.util.source_hash(source) + marshal.dumps(code)


def pyc_problem(pyc: bytes, source: bytes) -> str | None:
    """Why ``pyc`` cannot be run as the code of ``source`` (None when it can)."""
    if pyc[:4] != importlib.util.MAGIC_NUMBER:
        return f"{BINDINGS_CODE} was compiled by another Python version (magic {pyc[:4].hex()})"
    if int.from_bytes(pyc[4:8], "little") != _PYC_CHECKED_HASH:
        return f"{BINDINGS_CODE} is not a checked hash-based .pyc"
    if pyc[8:16] != importlib.util.source_hash(source):
        return f"{BINDINGS_CODE} was not compiled from this {BINDINGS}"
    return None


def code_from_pyc(pyc: bytes, filename: str) -> types.CodeType:
    """The code object of a .pyc that :func:`pyc_problem` accepted, naming ``filename`` (the
    entry may have been built elsewhere: a read-only layer or a moved cache)."""
    code = marshal.loads(pyc[16:])
    if code.co_filename != filename:
        code = _with_filename(code, filename)
    return code


def _with_filename(code: types.CodeType, filename: str) -> types.CodeType:
    consts = tuple(
        _with_filename(c, filename) if isinstance(c, types.CodeType) else c for c in code.co_consts
    )
    return code.replace(co_filename=filename, co_consts=consts)


def read_manifest(path: Path) -> tuple[dict[str, Any] | None, str | None]:
    """The manifest of the entry at ``path`` if it is well-formed, else (None, why not)."""
    try:
        manifest = json.loads((path / MANIFEST).read_bytes())
    except FileNotFoundError:
        return None, f"{MANIFEST} missing (a partial entry)"
    except OSError as exc:
        return None, f"{MANIFEST} unreadable ({exc.strerror})"
    except ValueError:
        return None, f"{MANIFEST} is not valid JSON"
    problem = manifest_problem(manifest)
    return (None, problem) if problem else (manifest, None)


def manifest_problem(manifest: Any) -> str | None:
    """Why ``manifest`` (parsed JSON) is not a header entry's manifest, or None."""
    if not isinstance(manifest, dict):
        return f"{MANIFEST} is not a JSON object"
    expected = {"format": int, "key": dict, "included_files": dict, "artifacts": dict}
    for name, kind in expected.items():
        if name not in manifest:
            return f"{MANIFEST} lacks {name!r}"
        if not isinstance(manifest[name], kind) or isinstance(manifest[name], bool):
            return f"{MANIFEST}: {name!r} is a {type(manifest[name]).__name__}, not {kind.__name__}"
    if manifest.get("kind", KIND) != KIND:
        return f"{MANIFEST}: kind {manifest.get('kind')!r} is not {KIND!r}"
    for name in ("included_files", "artifacts"):
        if not _all_strings(manifest[name]):
            return f"{MANIFEST}: {name!r} must map file names to sha256 strings"
    return None


def read_entry(path: Path) -> tuple[dict[str, Any] | None, dict[str, bytes], list[str]]:
    """The manifest, the artifacts, and every reason the entry is not intact (none when it
    is). Each file is read once: what was checked is what the caller uses."""
    manifest, problem = read_manifest(path)
    if manifest is None:
        return None, {}, [problem or "unreadable"]
    artifacts: dict[str, bytes] = {}
    problems = []
    for name in ARTIFACTS:
        try:
            data = (path / name).read_bytes()
        except OSError:
            problems.append(f"{name} missing")
            continue
        if manifest["artifacts"].get(name) != sha256(data):
            problems.append(f"{name} does not match its sha256 in {MANIFEST}")
        artifacts[name] = data
    if not problems:
        problem = pyc_problem(artifacts[BINDINGS_CODE], artifacts[BINDINGS])
        if problem:
            problems.append(problem)
    return (manifest if not problems else None), artifacts, problems


def _all_strings(table: Mapping[Any, Any]) -> bool:
    return all(isinstance(k, str) and isinstance(v, str) for k, v in table.items())

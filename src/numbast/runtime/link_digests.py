"""Digests of what a kernel links, by content: the kernel cache's evidence that a cached cubin
was linked from exactly what this process would link now.

A CUDA C++ source is digested with every file it includes that can be found the way NVRTC finds
it: for ``"..."`` the including file's folder (and the working directory, for a top-level
source), then numba-cuda's extra NVRTC search path; recursively, and where several candidates
exist, all of them. A header found nowhere there comes from the CUDA toolkit (its CCCL
included) or numba-cuda, whose versions numba-cuda's own cache key holds. A computed include
(``#include MACRO``) cannot be followed: such a source has no digest, and is not cached.

Only the standard library is imported (the runtime's rule).
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Iterable, Sequence

# Link file extensions numba-cuda links as they are (no includes to follow), by its kind names.
BINARY_KINDS = ("ptx", "cubin", "fatbin", "ltoir", "o", "a", "lib")

# An #include line: its delimiter and name, or (group 3) the start of a computed include.
_INCLUDE = rb'^[ \t]*#[ \t]*include(?:_next)?[ \t]*(?:([<"])([^>"\r\n]+)[>"]|(\S))'

# realpath -> ((mtime_ns, size), digest, includes): a header is read again only when it changed.
_FILES: dict[str, tuple[tuple[int, int], str, tuple[tuple[bytes, bytes], ...] | None]] = {}


def digest(*parts: str | bytes) -> str:
    """sha256 over ``parts``, each length-prefixed so that no two sequences collide."""
    h = hashlib.sha256()
    for part in parts:
        data = part.encode() if isinstance(part, str) else bytes(part)
        h.update(len(data).to_bytes(8, "little"))
        h.update(data)
    return h.hexdigest()


def nvrtc_search_dirs() -> tuple[str, ...]:
    """numba-cuda's extra NVRTC search path (where bindings add their include dirs)."""
    from numba.cuda import config

    value = getattr(config, "CUDA_NVRTC_EXTRA_SEARCH_PATHS", "") or ""
    return tuple(d for d in value.split(":") if d)


def source_digest(text: str | bytes, folder: str | None = None) -> str | None:
    """The digest of CUDA C++ ``text`` with the files it includes (see the module docstring);
    ``folder``: the source file's folder (its ``"..."`` includes are looked up there and in the
    working directory). None when an include cannot be followed."""
    data = text.encode() if isinstance(text, str) else bytes(text)
    includes = _includes_of(data)
    if includes is None:
        return None
    parts: list[str | bytes] = [data]
    folders = [os.getcwd()] if folder is None else [folder, os.getcwd()]
    if not _digest_includes(includes, folders, nvrtc_search_dirs(), set(), parts):
        return None
    return digest(*parts)


def file_digest(path: str) -> str | None:
    """The digest of a link file given by path: a ``.cu`` source with its includes, a binary
    kind by its bytes. None for a missing file or an extension numba-cuda would not link."""
    extension = os.path.splitext(path)[1].lstrip(".")
    try:
        if extension == "cu":
            with open(path, "rb") as f:
                return source_digest(f.read(), os.path.dirname(os.path.abspath(path)))
        if extension in BINARY_KINDS:
            with open(path, "rb") as f:
                return digest(extension, f.read())
    except OSError:
        return None
    return None


def code_digest(kind: str, data: str | bytes) -> str | None:
    """The digest of an in-memory link object (numba-cuda's LinkableCode) of ``kind``."""
    if kind == "cu":
        return source_digest(data)
    return digest(kind, data)


def _includes_of(data: bytes) -> tuple[tuple[bytes, bytes], ...] | None:
    """The (delimiter, name) of each ``#include``; None if one is computed (a macro)."""
    found = []
    for match in re.finditer(_INCLUDE, data, re.M):
        if match.group(3) is not None:
            return None
        found.append((match.group(1), match.group(2).strip()))
    return tuple(found)


def _digest_includes(
    includes: Iterable[tuple[bytes, bytes]],
    folders: Sequence[str],
    search: Sequence[str],
    seen: set[str],
    parts: list[str | bytes],
) -> bool:
    """Add every file each include could resolve to (all of them where several exist: which
    one NVRTC takes needs no guessing then), and what they include, to ``parts``."""
    for delimiter, raw_name in includes:
        name = os.fsdecode(raw_name)
        if os.path.isabs(name):
            candidates = [name]
        else:
            local = folders if delimiter == b'"' else ()
            candidates = [os.path.join(d, name) for d in (*local, *search)]
        found = [c for c in candidates if os.path.isfile(c)]
        # Found nowhere: a toolkit, CCCL or numba-cuda header (or an include in dead code).
        parts.append(f"#include {name}: {len(found)} found")
        for path in found:
            real = os.path.realpath(path)
            if real in seen:
                continue
            seen.add(real)
            header = _header(real)
            if header is None:
                return False
            header_digest, nested = header
            parts.append(header_digest)
            if not _digest_includes(nested, [os.path.dirname(real)], search, seen, parts):
                return False
    return True


def _header(real: str) -> tuple[str, tuple[tuple[bytes, bytes], ...]] | None:
    try:
        stat = os.stat(real)
        stamp = (stat.st_mtime_ns, stat.st_size)
        known = _FILES.get(real)
        if known is None or known[0] != stamp:
            with open(real, "rb") as f:
                data = f.read()
            known = (stamp, digest(data), _includes_of(data))
            _FILES[real] = known
    except OSError:
        return None
    _stamp, header_digest, includes = known
    return None if includes is None else (header_digest, includes)

"""The user headers a source includes, for the cache key.

NVRTC does not report which files it read, so the key follows ``#include`` directives itself:
starting from the source, every ``#include "x"`` / ``#include <x>`` that resolves inside the
given include directories (or, for quoted names, beside the including file) is hashed, and its
own includes followed. Toolkit headers are not hashed: the compiler version covers them.

Limitation (as ccache's direct mode has one): an include whose name comes from a macro
(``#include MY_HEADER``) is not followed; a change in such a header is not seen. Pass
``cache_dir=False`` for such sources, or give the header's directory so that it is listed.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Sequence
from pathlib import Path

_INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*([<"])([^>"]+)[>"]', re.M)


def included_files(source: str, include_dirs: Sequence[str]) -> dict[str, str]:
    """``{resolved path: sha256 of its contents}`` for every user header ``source`` includes,
    transitively, searched in ``include_dirs``."""
    dirs = [Path(d) for d in include_dirs]
    found: dict[str, str] = {}
    pending: list[tuple[str, Path | None]] = [(source, None)]
    while pending:
        text, here = pending.pop()
        for quote, name in _INCLUDE.findall(text):
            path = _resolve(name, quote, here, dirs)
            if path is None:
                continue
            key = os.path.realpath(path)
            if key in found:
                continue
            data = path.read_bytes()
            found[key] = hashlib.sha256(data).hexdigest()
            pending.append((data.decode("utf-8", errors="replace"), path.parent))
    return dict(sorted(found.items()))


def _resolve(name: str, quote: str, here: Path | None, dirs: list[Path]) -> Path | None:
    candidates = ([here] if quote == '"' and here is not None else []) + dirs
    for directory in candidates:
        path = directory / name
        if path.is_file():
            return path
    return None

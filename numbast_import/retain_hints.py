"""A header module that binds nothing, and which files to retain instead.

Only the declarations of the header and of its ``retain`` list are bound. An umbrella header
(``<cuda/std/complex>``, a one-line wrapper of ``#include`` lines) declares nothing itself, so
its module is empty; every import of it warns, naming the files that declare something: the
header's includes, and through includes that are themselves only ``#include`` lines
(umbrellas), theirs. Each spelling (``<cuda/std/__complex/complex.h>``) is found among the
files clang read for the entry (its manifest's ``included_files``), so no include path is
searched again.
"""

from __future__ import annotations

import os
import re
import warnings
from collections.abc import Iterable, Sequence

SHOWN = 8  # files named in the warning; the count of the rest follows
# Patterns, compiled by ``re`` (and kept in its cache) when a warning needs them (a warm import
# imports this module only to warn).
_INCLUDE = r'(?m)^\s*#\s*include\s*[<"]([^>"]+)[>"]'
_COMMENTS = r"(?s)//[^\n]*|/\*.*?\*/"


class NothingBoundWarning(UserWarning):
    """A header module came out empty: its header and retained files declare nothing that
    could be bound (an umbrella header without a ``retain`` list)."""


def warn_nothing_bound(
    module_name: str, header: str, retained: Sequence[str], included: Iterable[str], source: str
) -> None:
    """Warn that ``module_name`` binds nothing, naming the files to retain."""
    files = retain_candidates([header, *retained], included)
    which = os.path.basename(header)
    which += " and its retained files declare" if retained else " declares"
    message = (
        f"{module_name} binds nothing: {which} nothing "
        "that can be bound, and only the declarations of the header and of the files in its "
        "`retain` list are bound, not those of the files it includes. "
    )
    if files:
        listed = "\n".join(f"  {path}" for path in files[:SHOWN])
        more = f"\n  ... and {len(files) - SHOWN} more" if len(files) > SHOWN else ""
        message += (
            f"Add the files that declare what you use to `retain` ({source}); "
            f"what it includes:\n{listed}{more}"
        )
    else:
        message += f"Map a header that declares what you use ({source})."
    warnings.warn(message, NothingBoundWarning, stacklevel=2)


def retain_candidates(headers: Sequence[str], included: Iterable[str]) -> list[str]:
    """The files the ``headers`` include that declare something, looking through umbrellas,
    in include order; paths as clang read them (``included``)."""
    read = [os.path.realpath(path) for path in included]
    seen = {os.path.realpath(path) for path in headers}
    found: list[str] = []
    pending = list(seen)
    while pending:
        path = pending.pop(0)
        for spelled in _includes(path):
            match = _read_as(spelled, read)
            if match is None or match in seen:
                continue
            seen.add(match)
            if _only_preprocessor(match):
                pending.append(match)  # an umbrella (or a file of macros): look inside
            else:
                found.append(match)
    return found


def _includes(path: str) -> list[str]:
    try:
        with open(path, encoding="utf-8", errors="replace") as file:
            return re.findall(_INCLUDE, file.read())
    except OSError:
        return []


def _read_as(spelled: str, read: list[str]) -> str | None:
    """The file clang read for ``#include <spelled>``."""
    suffix = "/" + spelled.lstrip("./")
    for path in read:
        if path.endswith(suffix):
            return path
    return None


def _only_preprocessor(path: str) -> bool:
    """True when every line of ``path`` is a preprocessor line (after comments and line
    continuations): it declares nothing itself."""
    try:
        with open(path, encoding="utf-8", errors="replace") as file:
            text = re.sub(_COMMENTS, "", file.read())
    except OSError:
        return False
    text = text.replace("\\\n", " ")
    return all(line.lstrip().startswith("#") for line in text.splitlines() if line.strip())

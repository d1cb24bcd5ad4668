"""numbast_import: the import system (config, finder/loader, on-disk cache, runtime compiler).

``register(name, header, **options)`` maps ``cuda_headers.<name>`` in code (notebooks,
scripts); ``warm(names, archs)`` builds cache entries ahead of time. Every failure of
``import cuda_headers.x`` is a :class:`HeaderImportError` (an ImportError).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from numbast_import.errors import HeaderImportError, HeaderParseError, ImportConfigError
from numbast_import.registry import register, unregister

if TYPE_CHECKING:
    from numbast_import.warm import WarmResult

__version__ = "0.1.0"

__all__ = [
    "HeaderImportError",
    "HeaderParseError",
    "ImportConfigError",
    "register",
    "unregister",
    "warm",
]


def warm(
    names: Iterable[str],
    archs: Sequence[str] | None = None,
    into: str | os.PathLike[str] | None = None,
    config: str | os.PathLike[str] | None = None,
) -> list[WarmResult]:
    """Build the cache entries of ``names`` ahead of time, for each of ``archs`` (default: the
    arch an import would use), into ``into`` (default: the writable root); see
    :func:`numbast_import.warm.warm`."""
    from numbast_import.warm import warm as _warm

    return _warm(names, archs=archs, into=into, config=config)

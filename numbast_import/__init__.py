"""numbast_import: the import system (config, finder/loader, on-disk cache, runtime compiler).

``register(name, header, **options)`` maps ``cuda_headers.<name>`` in code (notebooks,
scripts); ``warm(names, archs)`` builds cache entries ahead of time. Every failure of
``import cuda_headers.x`` is a :class:`HeaderImportError` (an ImportError).
"""

from __future__ import annotations

from typing import Any

from numbast_import.errors import HeaderImportError, HeaderParseError, ImportConfigError
from numbast_import.registry import register, unregister
from numbast_import.version import __version__ as __version__

__all__ = [
    "HeaderImportError",
    "HeaderParseError",
    "ImportConfigError",
    "register",
    "unregister",
    "warm",
]


def __getattr__(name: str) -> Any:
    # ``warm`` imports the build machinery; an import of a cached module never needs it.
    if name == "warm":
        from numbast_import.warming import warm

        globals()["warm"] = warm
        return warm
    raise AttributeError(f"module 'numbast_import' has no attribute {name!r}")

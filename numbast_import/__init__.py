"""numbast_import: the import system (config, finder/loader, on-disk cache, runtime compiler).

``register(name, header, **options)`` maps ``cuda_headers.<name>`` in code (notebooks,
scripts); ``warm(names, archs)`` builds cache entries ahead of time. Every failure of
``import cuda_headers.x`` is a :class:`HeaderImportError` (an ImportError).
"""

from __future__ import annotations

from typing import Any

from numbast_import.errors import HeaderImportError, HeaderParseError, ImportConfigError
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
    # Imported when first used: ``warm`` imports the build machinery, ``register`` the
    # registry; an import of a cached built-in module needs neither.
    if name == "warm":
        from numbast_import.warming import warm as found
    elif name in ("register", "unregister"):
        from numbast_import import registry

        found = getattr(registry, name)
    else:
        raise AttributeError(f"module 'numbast_import' has no attribute {name!r}")
    globals()[name] = found
    return found

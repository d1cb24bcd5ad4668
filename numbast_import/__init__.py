"""numbast_import: the import system (config, finder/loader, on-disk cache, runtime compiler).

``register(name, header, **options)`` maps ``cuda_headers.<name>`` in code (notebooks,
scripts); ``warm(names, archs)`` builds cache entries ahead of time. Every failure of
``import cuda_headers.x`` is a :class:`HeaderImportError` (an ImportError).
"""

from numbast_import.errors import HeaderImportError, HeaderParseError, ImportConfigError
from numbast_import.registry import register, unregister

__version__ = "0.1.0"

__all__ = [
    "HeaderImportError",
    "HeaderParseError",
    "ImportConfigError",
    "register",
    "unregister",
    "warm",
]


def warm(names, archs=None, into=None, config=None):
    """Build the cache entries of ``names`` ahead of time; see :func:`numbast_import.warm.warm`."""
    from numbast_import.warm import warm as _warm

    return _warm(names, archs=archs, into=into, config=config)

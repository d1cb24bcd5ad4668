"""The package's version: a leaf module, so that what records it (cache keys) need not import
the package's ``__init__``."""

__version__ = "0.1.0"

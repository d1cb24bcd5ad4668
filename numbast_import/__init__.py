"""numbast_import: the import system (config, finder/loader, on-disk cache, runtime compiler)."""

__version__ = "0.1.0"

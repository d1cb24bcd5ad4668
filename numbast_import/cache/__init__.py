"""The on-disk cache of generated bindings and compiled shims (see docs/import_system.md).

``root`` finds and guards the cache directory, ``key`` says what an entry depends on, and
``store`` reads and writes entries (atomic build, per-key lock, integrity checks).
"""

"""The on-disk cache of generated bindings and compiled shims (see docs/import_system.md).

``root`` finds and guards the cache directories (the writable root and the read-only layers),
``key`` says what an entry depends on, ``manifest`` what an intact entry holds, ``lock`` the
per-shard build lock, ``store`` reads and writes entries (atomic build, integrity checks,
in-memory fallback), and ``inventory`` lists and removes what a root holds (for
``numbast-cache``).
"""

"""cuda.core programs in numbast-import's cache: ``ProgramCache`` is a
``cuda.core.utils.ProgramCacheResource``, so ``Program.compile(..., cache=ProgramCache())``
keeps your own programs' binaries with everything else the import system caches (one root,
read-only layers, ownership checks, integrity, last use for ``numbast-cache prune``).

cuda.core derives the key (``make_program_cache_key``: the code, the options, the target, the
versions of NVRTC and the linker) and refuses compiles whose result depends on files it cannot
see (``include_path``, ``pre_include``). :func:`compile_program` adds what those files hold:
the headers the code includes, followed through ``#include`` directives in the include path
(as ``SourceModule`` keys do), hashed into the key's ``extra_digest``. It also keeps NVRTC's
``symbol_mapping`` (name expressions), which cuda.core's own cache cannot store, so
``get_kernel("scale<int>")`` works on a hit too.

    from cuda.core import ProgramOptions
    from numbast_import.programs import compile_program

    options = ProgramOptions(arch="sm_90", include_path=["include"])
    code = compile_program('#include "my.cuh"\\n...', "cubin", options)

Entries are ``<root>/programs/<2 hex>/<digest>/`` (``program.bin`` and ``manifest.json``),
named by the sha256 of cuda.core's key.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from cuda.core.utils import ProgramCacheResource, make_program_cache_key

from numbast_import.cache.entries import Entry, EntryStore, Made
from numbast_import.cache.entry_files import remove_entry
from numbast_import.cache.manifest import PROGRAM
from numbast_import.cache.root import cache_layers, cache_root

__all__ = ["ProgramCache", "compile_program", "program_cache_key"]

BINARY = "program.bin"


class ProgramCache(ProgramCacheResource):
    """cuda.core's program cache interface over numbast-import's cache root (``cache_dir``,
    default: the one imports use) and its read-only layers (``NUMBAST_CACHE_PATH``)."""

    def __init__(self, cache_dir: str | os.PathLike[str] | None = None) -> None:
        root = Path(cache_dir).expanduser().resolve() if cache_dir else cache_root()
        self.store = EntryStore(PROGRAM, root, cache_layers(root))

    # -- ProgramCacheResource ---------------------------------------------------------------
    def __getitem__(self, key: bytes | str) -> bytes:
        entry = self.entry(key)
        if entry is None:
            raise KeyError(key)
        return entry.read(BINARY)

    def __setitem__(self, key: bytes | str, value: Any) -> None:
        self.put(key, value)

    def __delitem__(self, key: bytes | str) -> None:
        path = self.store.entry_dir(_digest(key))
        if not path.is_dir():
            raise KeyError(key)
        remove_entry(path)

    def __len__(self) -> int:
        roots = [*self.store.layers, self.store.root]
        return len({path.name for root in roots for path in self.store.entries(root)})

    def clear(self) -> None:
        """Remove every program from the writable root (layers are never changed)."""
        for path in list(self.store.entries()):
            remove_entry(path)

    # -- with what cuda.core's interface does not carry --------------------------------------
    def entry(self, key: bytes | str) -> Entry | None:
        """The intact entry for ``key`` (its manifest holds the symbol mapping), or None."""
        return self.store.lookup(_digest(key), _manifest_key(key))

    def put(self, key: bytes | str, value: Any, symbol_mapping: dict | None = None) -> None:
        """Store the binary ``value`` (bytes or a cuda.core ObjectCode) under ``key``, with
        NVRTC's ``symbol_mapping`` (name expression -> mangled name, str or bytes each)."""
        fields = {"symbol_mapping": _symbols_to_json(symbol_mapping)} if symbol_mapping else {}
        made = Made({BINARY: _binary(value)}, fields)
        self.store.put(_digest(key), _manifest_key(key), made, replace=True)


def program_cache_key(
    code: str | bytes,
    target_type: str,
    options: Any,
    code_type: str = "c++",
    name_expressions: Sequence[str] = (),
) -> bytes:
    """cuda.core's key for this compile, with the contents of every header the code includes
    from ``options.include_path`` and ``options.pre_include`` as its ``extra_digest``."""
    from numbast_import.rtc.includes import included_files

    search = _as_list(getattr(options, "include_path", None))
    pre_included = _as_list(getattr(options, "pre_include", None))
    text = code if isinstance(code, str) else code.decode(errors="replace")
    text = "".join(f'#include "{name}"\n' for name in pre_included) + text
    headers = included_files(text, search) if code_type == "c++" else {}
    extra = json.dumps({"include_path": search, "headers": headers}, sort_keys=True).encode()
    return make_program_cache_key(
        code=code,
        code_type=code_type,
        options=options,
        target_type=target_type,
        name_expressions=tuple(name_expressions),
        extra_digest=hashlib.sha256(extra).digest(),
    )


def compile_program(
    code: str | bytes,
    target_type: str,
    options: Any = None,
    code_type: str = "c++",
    name_expressions: Sequence[str] = (),
    cache: ProgramCache | None = None,
) -> Any:
    """``Program(code, code_type, options).compile(target_type, name_expressions)`` through
    the cache: a hit compiles nothing, and returns an ObjectCode with the symbol mapping."""
    from cuda.core import ObjectCode, Program, ProgramOptions

    options = options if options is not None else ProgramOptions()
    cache = cache if cache is not None else ProgramCache()
    key = program_cache_key(code, target_type, options, code_type, name_expressions)
    entry = cache.entry(key)
    if entry is None:
        compiled = Program(code, code_type, options).compile(
            target_type, name_expressions=tuple(name_expressions)
        )
        cache.put(key, compiled, compiled.symbol_mapping)
        return compiled
    make = {"cubin": ObjectCode.from_cubin, "ptx": ObjectCode.from_ptx}
    load = make.get(target_type, ObjectCode.from_ltoir)
    mapping = _symbols_from_json(entry.manifest.get("symbol_mapping", [])) or None
    name = getattr(options, "name", None) or ""
    return load(entry.read(BINARY), name=name, symbol_mapping=mapping)


def _symbols_to_json(mapping: dict) -> list[list[Any]]:
    """NVRTC's names are str or bytes (cuda.core looks them up with the same type it was
    given): kept as text, with their types."""

    def text(x: str | bytes) -> str:
        return x.decode("latin-1") if isinstance(x, bytes) else str(x)

    return [
        [text(k), text(v), isinstance(k, bytes), isinstance(v, bytes)] for k, v in mapping.items()
    ]


def _symbols_from_json(items: list[list[Any]]) -> dict:
    def value(x: str, was_bytes: bool) -> str | bytes:
        return x.encode("latin-1") if was_bytes else x

    return {value(k, kb): value(v, vb) for k, v, kb, vb in items}


def _digest(key: bytes | str) -> str:
    return hashlib.sha256(_key_bytes(key)).hexdigest()


def _manifest_key(key: bytes | str) -> dict[str, str]:
    return {"cuda_core_key": _key_bytes(key).hex()}


def _key_bytes(key: bytes | str) -> bytes:
    if isinstance(key, (bytes, bytearray)):
        return bytes(key)
    if isinstance(key, str):
        return key.encode()  # cuda.core's rule: "k" and b"k" are one entry
    raise TypeError(f"cache keys must be bytes or str, got {type(key).__name__}")


def _binary(value: Any) -> bytes:
    """The bytes to store: a bytes-like value, or an ObjectCode's code (read from its path
    when it was made from a file)."""
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value)
    code = getattr(value, "code", None)
    if isinstance(code, str):
        return Path(code).read_bytes()
    if isinstance(code, (bytes, bytearray, memoryview)):
        return bytes(code)
    raise TypeError(f"cache values must be bytes-like or ObjectCode, got {type(value).__name__}")


def _as_list(value: Any) -> list[str]:
    if value is None:
        return []
    if isinstance(value, (str, os.PathLike)):
        return [os.fspath(value)]
    return [os.fspath(item) for item in value]

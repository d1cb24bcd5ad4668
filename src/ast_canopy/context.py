"""Per-parse state shared by the extractors: the type memo, the printing policy, file lookups."""

from __future__ import annotations

import ctypes
import os

from clang import cindex as ci

from ast_canopy.types import TypeFactory


class Context:
    """Everything the cursor -> model functions need besides the cursor itself."""

    def __init__(
        self,
        tu: ci.TranslationUnit,
        retained: frozenset[str],
        entry_point: str = "",
        default_device: bool = False,
    ) -> None:
        self.tu = tu
        self.retained = retained  # realpaths
        self.entry_point = entry_point  # the header as the caller named it
        # Functions with no execution space are __device__ (NVRTC's -default-device).
        self.default_device = default_device
        policy = ci.PrintingPolicy.create(tu.cursor)
        # Terse: no function bodies or class members in pretty-printed declarations, which we
        # read only for specifiers (constexpr, inline) and attribute names.
        policy.set_property(ci.PrintingPolicyProperty.TerseOutput, 1)
        self.policy = policy
        self.types = TypeFactory(policy)
        # clang spells one file many ways (through symlinks, "/../lib/gcc/..."); realpath is the
        # identity, and it is a system call, so each spelling is resolved once.
        self._realpaths: dict[str, str] = {}
        self._sources: dict[str, bytes] = {}
        self._files: dict[int | None, str] = {}  # file handle address -> realpath

    def realpath(self, name: str) -> str:
        found = self._realpaths.get(name)
        if found is None:
            found = self._realpaths[name] = os.path.realpath(name)
        return found

    def _expansion(self, cursor: ci.Cursor) -> tuple[str | None, int]:
        """(realpath or None, line) of a cursor's expansion location. A file's name is asked
        of libclang once per file handle (a string conversion per call adds up over a big
        header), then looked up by the handle's address."""
        file, line, _column, _offset = cursor.location._get_instantiation()
        if file is None:
            return None, line
        handle = ctypes.cast(file.obj, ctypes.c_void_p).value
        path = self._files.get(handle)
        if path is None:
            path = self._files[handle] = self.realpath(file.name)
        return path, line

    def file_of(self, cursor: ci.Cursor) -> str | None:
        """Realpath of the file a declaration is written in (its expansion location)."""
        return self._expansion(cursor)[0]

    def is_retained(self, cursor: ci.Cursor) -> bool:
        path = self._expansion(cursor)[0]
        return path is not None and path in self.retained

    def position(self, cursor: ci.Cursor) -> tuple[str, int]:
        path, line = self._expansion(cursor)
        return path or "", line

    def source(self, name: str) -> bytes:
        """A file's bytes (b"" when unreadable), read once per parse."""
        found = self._sources.get(name)
        if found is None:
            try:
                with open(name, "rb") as handle:
                    found = handle.read()
            except OSError:
                found = b""
            self._sources[name] = found
        return found

    def tokens_text(self, tokens: list[ci.Token]) -> str:
        """The source text a run of tokens spans, spacing and comments as written.

        Falls back to the tokens joined by spaces when the run is not in one readable file.
        """
        first, last = tokens[0].extent, tokens[-1].extent
        file = first.start.file
        if file is not None and last.end.file is not None and last.end.file.name == file.name:
            source = self.source(file.name)
            text = source[first.start.offset : last.end.offset].decode("utf-8", errors="replace")
            if text:
                return text.strip()
        return " ".join(t.spelling for t in tokens)

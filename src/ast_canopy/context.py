"""Per-parse state shared by the extractors: the type memo, the printing policy, file lookups."""

from __future__ import annotations

import os

from clang import cindex as ci

from ast_canopy.types import TypeFactory


class Context:
    """Everything the cursor -> model functions need besides the cursor itself."""

    def __init__(
        self, tu: ci.TranslationUnit, retained: frozenset[str], entry_point: str = ""
    ) -> None:
        self.tu = tu
        self.retained = retained  # realpaths
        self.entry_point = entry_point  # the header as the caller named it
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

    def realpath(self, name: str) -> str:
        found = self._realpaths.get(name)
        if found is None:
            found = self._realpaths[name] = os.path.realpath(name)
        return found

    def file_of(self, cursor: ci.Cursor) -> str | None:
        """Realpath of the file a declaration is written in (its expansion location)."""
        file = cursor.location.file
        return None if file is None else self.realpath(file.name)

    def is_retained(self, cursor: ci.Cursor) -> bool:
        path = self.file_of(cursor)
        return path is not None and path in self.retained

    def position(self, cursor: ci.Cursor) -> tuple[str, int]:
        location = cursor.location
        file = location.file
        return ("" if file is None else self.realpath(file.name)), location.line

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

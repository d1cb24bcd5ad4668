"""Errors raised by the parser."""

from __future__ import annotations


class ParseError(RuntimeError):
    """clang reported errors while parsing a header.

    ``diagnostics`` holds every diagnostic as ``file:line:col: severity: message``.
    """

    def __init__(self, header: str, diagnostics: list[str]) -> None:
        self.header = header
        self.diagnostics = list(diagnostics)
        listing = "\n".join(f"  {d}" for d in self.diagnostics)
        super().__init__(
            f"clang could not parse {header} ({len(self.diagnostics)} diagnostic(s)):\n{listing}\n"
            "Fix the header, add include directories or defines, or pass "
            "bypass_parse_error=True to keep what clang could read."
        )

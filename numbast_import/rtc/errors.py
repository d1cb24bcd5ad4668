"""The exception a failed compile raises: the whole compiler log, and the source lines it
points at, numbered as in the user's source.

The compiled translation unit is not the user's text (``source``: an ``extern "C"`` wrapper,
moved ``#include`` lines), but it carries ``#line`` directives that give every line its
number in the user's source; the quoted lines are found through them, as the compiler found
the numbers it reports."""

from __future__ import annotations

import re
from collections.abc import Sequence

# NVRTC and nvcc's front end: `kernel.cu(12): error: ...` (or `catastrophic error`); the
# host preprocessor nvcc runs first: `kernel.cu:12:10: fatal error: ...`.
_DIAGNOSTIC = re.compile(
    r"^(?P<file>[^\s():]+)(?:\((?P<line>\d+)\)|:(?P<gcc_line>\d+):\d+): "
    r"(?P<kind>(?:catastrophic |fatal )?error|warning)",
    re.M,
)
_LINE_DIRECTIVE = re.compile(r'^[ \t]*#[ \t]*line[ \t]+(\d+)(?:[ \t]+"([^"]*)")?')


class CompileError(RuntimeError):
    """A CUDA source failed to compile.

    ``log`` is the compiler's whole log, ``error_lines`` the 1-based line numbers of the
    user's source that the log reports errors on, ``command_line`` the compiler and options.
    """

    def __init__(
        self,
        what: str,
        log: str,
        source: str,
        source_name: str,
        command_line: Sequence[str] = (),
    ) -> None:
        self.log = log
        self.source_name = source_name
        self.command_line = list(command_line)
        self.error_lines = error_lines(log, source_name)
        super().__init__(_message(what, log, source, self.error_lines, self.command_line))

    # PyCUDA's CompileError has these two; its programs read them.
    @property
    def stdout(self) -> str:
        return self.log

    @property
    def stderr(self) -> str:
        return ""


def error_lines(log: str, source_name: str) -> list[int]:
    """Line numbers (1-based, in ``source_name``) that ``log`` reports errors on."""
    lines = []
    for match in _DIAGNOSTIC.finditer(log):
        if match.group("kind") != "warning" and match.group("file").endswith(source_name):
            line = int(match.group("line") or match.group("gcc_line"))
            if line not in lines:
                lines.append(line)
    return lines


def _message(what: str, log: str, source: str, lines: list[int], command: list[str]) -> str:
    parts = [what]
    if command:
        parts.append("command line: " + " ".join(command))
    parts.append("compiler log:\n" + (log.strip() or "(empty)"))
    numbered = numbered_lines(source)
    shown = [n for n in lines if n in numbered]
    if shown:
        width = len(str(max(shown)))
        excerpt = "\n".join(f"  {n:>{width}} | {numbered[n]}" for n in shown)
        parts.append("source lines with errors:\n" + excerpt)
    return "\n".join(parts)


def numbered_lines(unit: str) -> dict[int, str]:
    """The lines of ``unit`` by the number the compiler gives them, following ``#line``
    directives. A number given to two lines (a moved ``#include`` and the blank line left in
    its place) keeps the one with text."""
    numbered: dict[int, str] = {}
    number = 1
    for text in unit.split("\n"):
        directive = _LINE_DIRECTIVE.match(text)
        if directive is not None:
            number = int(directive.group(1))
            continue
        if text.strip() or number not in numbered:
            numbered[number] = text
        number += 1
    return numbered

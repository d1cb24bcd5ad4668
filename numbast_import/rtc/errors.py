"""The exception a failed compile raises: the whole compiler log, and the source lines it
points at, numbered as in the user's source."""

from __future__ import annotations

import re
from collections.abc import Sequence

# NVRTC: `kernel.cu(12): error: ...`; nvcc: `kernel.cu(12): error: ...` as well (cudafe).
_DIAGNOSTIC = re.compile(r"^(?P<file>[^\s()]+)\((?P<line>\d+)\): (?P<kind>error|warning)", re.M)


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
        if match.group("kind") == "error" and match.group("file").endswith(source_name):
            line = int(match.group("line"))
            if line not in lines:
                lines.append(line)
    return lines


def _message(what: str, log: str, source: str, lines: list[int], command: list[str]) -> str:
    parts = [what]
    if command:
        parts.append("command line: " + " ".join(command))
    parts.append("compiler log:\n" + (log.strip() or "(empty)"))
    source_lines = source.splitlines()
    shown = [n for n in lines if 1 <= n <= len(source_lines)]
    if shown:
        width = len(str(max(shown)))
        excerpt = "\n".join(f"  {n:>{width}} | {source_lines[n - 1]}" for n in shown)
        parts.append("source lines with errors:\n" + excerpt)
    return "\n".join(parts)

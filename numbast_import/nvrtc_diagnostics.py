"""NVRTC's error log, read: which errors there are, and which shims each one is about.

Every shim of a unit is preceded by ``#line 1 "<shim name>"`` (``shim_unit``), so NVRTC names
the shim as the file of an error in it, and as the last file of the chain of instantiations
that leads from a shim into a header's template ("detected during instantiation of ... at line
2 of nbi_shim_x"). What such a chain does not show (an inline function of the header that a
shim uses but the header never defines: "was referenced but not defined", reported at the
header's declaration) is matched by name: a shim's name holds the Itanium-mangled name of the
declaration it calls, which spells the function's qualified name one length-prefixed part at a
time; or, for a member of a class (a template probe's ``group_size<thread_group>`` instantiates a
call of ``thread_group::num_threads``), by the shims whose text gives that class as a template
argument.
"""

from __future__ import annotations

import os
import re
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass

_START = re.compile(r"^(?P<file>\S.*?)\((?P<line>\d+)\): (?P<kind>(?:catastrophic )?error|warning)")
_MESSAGE = re.compile(r"(?:catastrophic )?error: (?P<message>.*)$")
_CONTEXT = re.compile(r"at line \d+ of (?P<file>\S+?)\s*$", re.M)
_SUMMARY = re.compile(r"^\d+ (?:catastrophic )?errors? detected", re.M)
_UNDEFINED = re.compile(r'(?:function|variable) "(?P<name>[^"]+)" was referenced but not defined')
_OPERANDS = re.compile(r"^\s*operand types are: .*$", re.M)
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@dataclass(frozen=True)
class Diagnostic:
    """One error of NVRTC's log: where it is reported, its first line, its whole text, and
    every file its instantiation context names (the file it is reported in included)."""

    file: str
    line: int
    message: str
    text: str
    files: frozenset[str]

    def short(self) -> str:
        """``file(line): message`` with the file's base name (for coverage), and the operand
        types of an operator that has no candidate (which types lack it)."""
        operands = _OPERANDS.search(self.text)
        detail = f" ({' '.join(operands.group(0).split())})" if operands else ""
        return f"{os.path.basename(self.file)}({self.line}): {self.message}{detail}"


def errors_in(log: str) -> list[Diagnostic]:
    """The errors of NVRTC's ``log``, in order (warnings are left out)."""
    found = []
    lines = log.splitlines()
    starts = [i for i, line in enumerate(lines) if _START.match(line)]
    for position, start in enumerate(starts):
        end = starts[position + 1] if position + 1 < len(starts) else len(lines)
        block = "\n".join(lines[start:end])
        summary = _SUMMARY.search(block)
        if summary is not None:
            block = block[: summary.start()]
        head = _START.match(lines[start])
        if "error" not in head.group("kind"):
            continue
        message = _MESSAGE.search(lines[start])
        files = {head.group("file"), *(m.group("file") for m in _CONTEXT.finditer(block))}
        found.append(
            Diagnostic(
                file=head.group("file"),
                line=int(head.group("line")),
                message=message.group("message").strip() if message else lines[start],
                text=block.rstrip(),
                files=frozenset(files),
            )
        )
    return found


def shims_named(diagnostic: Diagnostic, shim_names: Collection[str]) -> set[str]:
    """The shims ``diagnostic`` names as files (its own, or in its instantiation context)."""
    return {name for name in diagnostic.files if name in shim_names}


def shims_calling_undefined(diagnostic: Diagnostic, shim_names: Iterable[str]) -> set[str]:
    """For "function X was referenced but not defined": the shims whose callee is X, told by
    their mangled names (empty for other errors, and for operators, whose names are coded)."""
    match = _UNDEFINED.search(diagnostic.message)
    if match is None:
        return set()
    parts = match.group("name").split("::")
    if not all(_IDENTIFIER.fullmatch(part) for part in parts):
        return set()  # an operator or a template-id: not spelled as a plain name when mangled
    fragment = re.compile(r"(?<![0-9])" + "".join(f"{len(p)}{re.escape(p)}" for p in parts))
    return {name for name in shim_names if fragment.search(name)}


def shims_instantiating_with_owner(
    diagnostic: Diagnostic, shims: Sequence[tuple[str, str]]
) -> set[str]:
    """For "function C::m was referenced but not defined" (C a class): the shims whose text
    gives C as a template argument, the instances whose bodies call it (empty for other
    errors, and when the owner is no plain name)."""
    match = _UNDEFINED.search(diagnostic.message)
    if match is None:
        return set()
    parts = match.group("name").split("::")
    if len(parts) < 2 or not _IDENTIFIER.fullmatch(parts[-2]):
        return set()
    # The owner as an argument: after `<` or `,`, maybe qualified, before `>`, `,`, `*` or `&`.
    argument = re.compile(
        r"[<,]\s*(?:::)?(?:[A-Za-z_][A-Za-z0-9_]*::)*" + re.escape(parts[-2]) + r"\s*[>,*&]"
    )
    return {name for name, text in shims if argument.search(text)}

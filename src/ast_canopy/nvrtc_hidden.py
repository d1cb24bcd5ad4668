"""Which declarations NVRTC never sees: those a header writes only for other compilers.

clang parses a header without ``__CUDACC_RTC__`` (its CUDA wrapper and the toolkit's
``cuda_runtime.h`` need the host's view), but NVRTC, which compiles every shim, defines it.
Libraries hide what NVRTC cannot compile behind it: CUTLASS's ``complex.h`` declares its
``cuFloatComplex`` overloads (``real(cuFloatComplex const&)``, ``complex(cuFloatComplex
const&)``, ``operator cuFloatComplex()``) inside ``#if !defined(__CUDACC_RTC__)``. clang reports
them, and a shim calling one can never compile. This module reads a file's conditional
directives (text only, no clang) and says whether a line is in a branch taken only where
``__CUDACC_RTC__`` is not defined:

- ``#ifndef __CUDACC_RTC__``, ``#if !defined(__CUDACC_RTC__)``, or an ``#if``/``#elif`` whose
  condition is a conjunction (``&&``, no ``||``) with ``!defined(__CUDACC_RTC__)`` among its
  terms;
- the ``#else`` and ``#elif`` branches after ``#ifdef __CUDACC_RTC__`` or ``#if
  defined(__CUDACC_RTC__)`` (a condition that is exactly that).

Any other condition is not read here (neither branch is taken to be hidden). Libraries also
write conditions on their own configuration macros (CCCL's ``#if _CCCL_HOSTED()``, which it
defines as 0 under NVRTC): :func:`enclosing_conditions` gives the conditions under which a line
is compiled, for NVRTC to evaluate (``numbast_import.nvrtc_conditions``), leaving out those whose
value at the end of a translation unit says nothing about their value at the directive: include
guards, and conditions on a macro the file ``#undef``s.
"""

from __future__ import annotations

import functools
import os
import re
from typing import NamedTuple

_MACRO = "__CUDACC_RTC__"
_DIRECTIVE = re.compile(r"^\s*#\s*(if|ifdef|ifndef|elif|else|endif)\b(.*)$")
_DEFINED = re.compile(rf"^defined\s*(?:\(\s*{_MACRO}\s*\)|\s+{_MACRO})$")
_NOT_DEFINED = re.compile(rf"^!\s*defined\s*(?:\(\s*{_MACRO}\s*\)|\s+{_MACRO})$")
_COMMENTS = re.compile(r"/\*.*?\*/|//.*$")
_IDENTIFIER = re.compile(r"[A-Za-z_]\w*")
_UNDEF = re.compile(r"^\s*#\s*undef\s+([A-Za-z_]\w*)", re.MULTILINE)
_DEFINE = re.compile(r"^\s*#\s*define\s+([A-Za-z_]\w*)")


class HiddenBranch(NamedTuple):
    first: int  # the first line of the branch (1-based)
    last: int  # its last line
    directive: int  # the line of the directive that opens it
    text: str  # that directive, as written


class _Frame(NamedTuple):
    hidden: bool  # this branch is taken only without __CUDACC_RTC__
    after_rtc: bool  # an earlier branch of the chain was exactly `defined(__CUDACC_RTC__)`
    start: int
    directive: str


def _condition_terms(condition: str) -> list[str]:
    condition = _COMMENTS.sub("", condition).strip()
    while condition.startswith("(") and condition.endswith(")"):
        condition = condition[1:-1].strip()
    if "||" in condition:
        return []
    return [term.strip() for term in condition.split("&&")]


def _requires_no_rtc(condition: str) -> bool:
    return any(_NOT_DEFINED.match(term) for term in _condition_terms(condition))


def _is_exactly_rtc(condition: str) -> bool:
    terms = _condition_terms(condition)
    return len(terms) == 1 and _DEFINED.match(terms[0]) is not None


def hidden_branches(text: str) -> list[HiddenBranch]:
    """The branches of ``text`` taken only where ``__CUDACC_RTC__`` is not defined."""
    lines = text.splitlines()
    found: list[HiddenBranch] = []
    stack: list[_Frame] = []
    number = 0
    while number < len(lines):
        start = number + 1
        line = lines[number]
        while line.endswith("\\") and number + 1 < len(lines):
            number += 1
            line = line[:-1] + lines[number]
        number += 1
        match = _DIRECTIVE.match(line)
        if match is None:
            continue
        word, rest = match.group(1), _COMMENTS.sub("", match.group(2)).strip()
        if word in ("elif", "else", "endif") and stack:
            closed = stack.pop()
            if closed.hidden:
                branch = HiddenBranch(closed.start + 1, start - 1, closed.start, closed.directive)
                found.append(branch)
            if word == "endif":
                continue
            hidden = closed.after_rtc or (word == "elif" and _requires_no_rtc(rest))
            stack.append(_Frame(hidden, closed.after_rtc, start, line.strip()))
        elif word in ("if", "ifdef", "ifndef"):
            if word == "ifdef":
                rest = f"defined({rest})"
            elif word == "ifndef":
                rest = f"!defined({rest})"
            stack.append(_Frame(_requires_no_rtc(rest), _is_exactly_rtc(rest), start, line.strip()))
    return found


class Condition(NamedTuple):
    directive: int  # the line of the directive that opens the branch (1-based)
    text: str  # that directive, as written
    expression: str  # the #if expression under which the branch is compiled


class _Open(NamedTuple):
    directive: int
    text: str
    expression: str
    earlier: tuple[str, ...]  # the expressions of the chain's earlier branches
    guard: bool  # `#ifndef X` then `#define X`: an include guard


def _lines(text: str) -> list[tuple[int, str]]:
    """(first line number, the line with its continuations joined) for each logical line."""
    lines, joined, number = text.splitlines(), [], 0
    while number < len(lines):
        start, line = number + 1, lines[number]
        while line.endswith("\\") and number + 1 < len(lines):
            number += 1
            line = line[:-1] + lines[number]
        number += 1
        joined.append((start, line))
    return joined


def _branch_expression(word: str, rest: str, earlier: tuple[str, ...]) -> str:
    if word == "ifdef":
        return f"defined({rest})"
    if word == "ifndef":
        return f"!defined({rest})"
    taken = [f"!({e})" for e in earlier] + ([f"({rest})"] if word in ("if", "elif") else [])
    return " && ".join(taken) or "1"


def enclosing_conditions(text: str, line: int) -> list[Condition]:
    """The conditions under which ``line`` of ``text`` is compiled, outermost first: one per
    enclosing branch (an ``#else`` or ``#elif`` holds the negations of its chain's earlier
    conditions), without include guards and conditions naming a macro the text ``#undef``s."""
    undefined = set(_UNDEF.findall(text))
    logical = _lines(text)
    stack: list[_Open] = []
    for index, (start, joined) in enumerate(logical):
        if start > line:
            break
        match = _DIRECTIVE.match(joined)
        if match is None:
            continue
        word, rest = match.group(1), _COMMENTS.sub("", match.group(2)).strip()
        if word in ("if", "ifdef", "ifndef"):
            guarded = _guarded_name(word, rest)
            following = logical[index + 1][1] if index + 1 < len(logical) else ""
            define = _DEFINE.match(following)
            guard = guarded is not None and define is not None and define.group(1) == guarded
            expression = _branch_expression(word, rest, ())
            stack.append(_Open(start, joined.strip(), expression, (), guard))
        elif stack:
            closed = stack.pop()
            if word == "endif":
                continue
            own = closed.expression if not closed.earlier else _own(closed)
            earlier = (*closed.earlier, own)
            expression = _branch_expression(word, rest, earlier)
            stack.append(_Open(start, joined.strip(), expression, earlier, False))
    return [
        Condition(frame.directive, frame.text, frame.expression)
        for frame in stack
        if not frame.guard and not (set(_IDENTIFIER.findall(frame.expression)) & undefined)
    ]


def _own(frame: _Open) -> str:
    """The condition an ``#elif`` itself wrote (its expression less the earlier negations)."""
    match = re.match(r"\s*#\s*elif\b(.*)$", frame.text)
    return _COMMENTS.sub("", match.group(1)).strip() if match else "0"


def _guarded_name(word: str, rest: str) -> str | None:
    """X for ``#ifndef X`` and ``#if !defined(X)``, else None."""
    if word == "ifndef":
        return rest.split()[0] if rest else None
    match = (
        re.fullmatch(r"!\s*defined\s*\(?\s*([A-Za-z_]\w*)\s*\)?", rest) if word == "if" else None
    )
    return match.group(1) if match else None


@functools.lru_cache(maxsize=256)
def _text_of(path: str, mtime_ns: int) -> str:
    with open(path, encoding="utf-8", errors="replace") as f:
        return f.read()


def conditions_at(path: str, line: int) -> list[Condition]:
    """:func:`enclosing_conditions` of line ``line`` of file ``path`` (none when the file
    cannot be read)."""
    try:
        text = _text_of(path, os.stat(path).st_mtime_ns)
    except OSError:
        return []
    return enclosing_conditions(text, line)


@functools.lru_cache(maxsize=256)
def _branches_of(path: str, mtime_ns: int) -> tuple[HiddenBranch, ...]:
    with open(path, encoding="utf-8", errors="replace") as f:
        return tuple(hidden_branches(f.read()))


def nvrtc_hidden_branch(path: str, line: int) -> HiddenBranch | None:
    """The branch of file ``path`` that hides ``line`` from NVRTC, or None (also when the file
    cannot be read: then nothing is known to be hidden)."""
    if not path or line <= 0:
        return None
    try:
        branches = _branches_of(path, os.stat(path).st_mtime_ns)
    except OSError:
        return None
    for branch in branches:
        if branch.first <= line <= branch.last:
            return branch
    return None


__all__ = [
    "Condition",
    "HiddenBranch",
    "conditions_at",
    "enclosing_conditions",
    "hidden_branches",
    "nvrtc_hidden_branch",
]

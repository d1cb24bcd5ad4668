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

Any other condition is not read (neither branch is taken to be hidden).
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


__all__ = ["HiddenBranch", "hidden_branches", "nvrtc_hidden_branch"]

"""Declarations that the library's own definition makes uncallable, whichever compiler and
standard library compile them: coverage does not count them as device-callable (they are
*excluded*, with the reason), since no binding could make a kernel call them.

The evidence is NVRTC's errors, and only errors that nothing of ours can cause count: each is
reported at a line of the declaration's own header (not of a shim, a probe, a stand-in standard
header or the toolkit), and says one of

- a lookup found only the library's own declarations, in the declaration's namespace, and none
  fits (``no instance of function template "cutlass::log"``, ``... overloaded function
  "cutlass::sqrt"``, ``... constructor "cutlass::complex<T>::complex ..."``): unqualified names
  in a namespace hide the global ones, and the standard library declares nothing in the
  library's namespace, so no header of ours or of the host changes the outcome;
- an operator on the library's own types has no candidate (``no operator "-" matches these
  operands`` whose operand types name the namespace: CUTLASS's ``complex`` has no unary ``-``);
- a conversion between the library's own class and a builtin (or another class of its own)
  does not exist (``no suitable conversion function from "cutlass::complex<float>" to
  "double"``): only the library's constructors and conversion functions take part;
- for a declaration whose types are all fixed (a function, a method of an instance: nothing a
  probe chose), the body fails a ``static_assert`` or casts away ``const``.

A template counts only when every instance tried failed that way (``template_probes`` tries
the arithmetic types and the module's own classes). nvcc with the host's standard library gives
the same errors for CUTLASS's (benchmarks/NOTES.md, "CUTLASS after checking ...").
"""

from __future__ import annotations

import re
from collections.abc import Sequence

# "complex.h(592): message": an error reported in a header, where a shim or probe led
_IN_HEADER = re.compile(r"(?P<file>[^\s()]+)\((?P<line>\d+)\): (?P<message>.*)", re.S)
_OWN_LOOKUP = re.compile(
    r'no instance of (?:function template|overloaded function|constructor) "(?P<name>[\w:]+)'
)
_OPERATOR = re.compile(r'no operator "[^"]+" matches these operands.*operand types are: (?P<t>.*)')
_CONVERSION = re.compile(
    r'no suitable (?:constructor exists to convert|conversion function) from "(?P<a>[^"]+)" to '
    r'"(?P<b>[^"]+)"'
)
_FIXED_INSTANCE_ONLY = ("static assertion failed", "cannot cast away const")
_BUILTINS = frozenset(
    "bool char short int long float double void signed unsigned const volatile".split()
)

EXCLUDED_PREFIX = "ill-formed in the library"


def library_defect(
    errors: Sequence[str], qual_name: str, where: str, fixed_types: bool
) -> str | None:
    """Why the declaration ``qual_name`` (declared at ``where``, "file:line") is ill-formed in
    the library itself, given NVRTC's first error for each of its uses (a rejected shim's, or
    each instance a probe tried); None when an error is not evidence of that."""
    if not errors or "::" not in qual_name:
        return None
    namespace = qual_name.removeprefix("::").split("::", 1)[0] + "::"
    header = where.rsplit(":", 1)[0].rsplit("/", 1)[-1]
    for error in errors:
        found = _IN_HEADER.match(error.strip())
        if found is None or found["file"].rsplit("/", 1)[-1] != header:
            return None
        if not _is_defect(found["message"], namespace, fixed_types):
            return None
    kind = "its body" if fixed_types else "every instance tried"
    return f"{EXCLUDED_PREFIX}: {kind} fails in the library's own code, whatever compiles it"


def _is_defect(message: str, namespace: str, fixed_types: bool) -> bool:
    lookup = _OWN_LOOKUP.search(message)
    if lookup is not None:
        return lookup["name"].removeprefix("::").startswith(namespace)
    operator = _OPERATOR.search(message)
    if operator is not None:
        return namespace in operator["t"]
    conversion = _CONVERSION.search(message)
    if conversion is not None:
        # Between the library's classes and builtins: only the library's constructors and
        # conversion functions take part.
        sides = (conversion["a"], conversion["b"])
        return any(_owned(t, namespace) for t in sides) and all(
            _owned(t, namespace) or set(t.replace("&", " ").split()) <= _BUILTINS for t in sides
        )
    return fixed_types and any(text in message for text in _FIXED_INSTANCE_ONLY)


def _owned(type_name: str, namespace: str) -> bool:
    name = " ".join(w for w in type_name.split() if w not in ("const", "volatile"))
    return name.removeprefix("::").startswith(namespace)

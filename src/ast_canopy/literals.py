"""C++ literals as values with their C++ types, read the way a compiler reads them (no clang).

Object-like macros such as ``#define CUDART_PI_F 3.141592654f`` expand to a literal; its type is
the literal's (``float``), and its value is what the compiler makes of the digits: the
correctly rounded single-precision value for an ``f`` suffix, the first of C++'s candidate
integer types that holds the value (``[lex.icon]``) for an integer. Sizes are the device's
(nvptx64, LP64: ``long`` has 64 bits).
"""

from __future__ import annotations

import math
import re
import struct
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from fractions import Fraction

# (C++ type, bits, signed) of the integer types, in C++'s order of preference.
_INT = ("int", 32, True)
_UINT = ("unsigned int", 32, False)
_LONG = ("long", 64, True)
_ULONG = ("unsigned long", 64, False)
_LLONG = ("long long", 64, True)
_ULLONG = ("unsigned long long", 64, False)
# [lex.icon] table 8: candidate types by suffix, for decimal and for other bases.
_CANDIDATES = {
    "": ((_INT, _LONG, _LLONG), (_INT, _UINT, _LONG, _ULONG, _LLONG, _ULLONG)),
    "u": ((_UINT, _ULONG, _ULLONG), (_UINT, _ULONG, _ULLONG)),
    "l": ((_LONG, _LLONG), (_LONG, _ULONG, _LLONG, _ULLONG)),
    "ul": ((_ULONG, _ULLONG), (_ULONG, _ULLONG)),
    "ll": ((_LLONG,), (_LLONG, _ULLONG)),
    "ull": ((_ULLONG,), (_ULLONG,)),
}
_INTEGER = re.compile(
    r"(?P<digits>0[xX][0-9a-fA-F']+|0[bB][01']+|0[0-7']*|[1-9][0-9']*)(?P<suffix>[uUlL]*)"
)
_FLOATING = re.compile(
    r"(?P<digits>(?:[0-9][0-9']*\.?[0-9']*|\.[0-9][0-9']*)(?:[eE][+-]?[0-9]+)?"
    r"|0[xX](?:[0-9a-fA-F']*\.?[0-9a-fA-F']*)[pP][+-]?[0-9]+)(?P<suffix>[fFlL]?)"
)
_CHARACTER = re.compile(r"'(?P<body>[^'\\]|\\.)'")
_STRING = re.compile(r'"(?P<body>(?:[^"\\]|\\.)*)"')
_ESCAPES = {"n": 10, "t": 9, "r": 13, "0": 0, "\\": 92, "'": 39, '"': 34, "a": 7, "b": 8}
_ESCAPES.update({"f": 12, "v": 11, "?": 63})


@dataclass(frozen=True)
class Literal:
    """A literal's value, its C++ type and C++ text that reads back as the same value."""

    value: bool | int | float | str
    cxx_type: str  # "float", "unsigned int", "bool", "char", "const char[6]"
    text: str


def _integer(token: str) -> Literal | None:
    match = _INTEGER.fullmatch(token)
    if match is None:
        return None
    suffix = match["suffix"].lower()
    if suffix not in _CANDIDATES:
        return None
    digits = match["digits"].replace("'", "")
    decimal = digits[:1] != "0" or digits == "0"
    if digits[:2] in ("0x", "0X"):
        value = int(digits, 16)
    elif digits[:2] in ("0b", "0B"):
        value = int(digits[2:], 2)
    elif not decimal:
        value = int(digits, 8)
    else:
        value = int(digits)
    for name, bits, signed in _CANDIDATES[suffix][0 if decimal else 1]:
        if value < (1 << (bits - 1) if signed else 1 << bits):
            return Literal(value, name, token)
    return None  # too large for any integer type


def _single(value: Fraction) -> float:
    """The float32 nearest ``value`` (ties to even), as a Python float: C++'s reading of a
    decimal literal with an ``f`` suffix, which a double in between could round differently."""
    try:
        near_bits = struct.unpack("<I", struct.pack("<f", float(value)))[0]
    except OverflowError:
        return math.inf
    candidates = []
    for bits in (near_bits - 1, near_bits, near_bits + 1):
        if 0 <= bits <= 0x7F7FFFFF:  # finite, non-negative: literals carry no sign
            candidates.append((struct.unpack("<f", struct.pack("<I", bits))[0], bits))
    if not candidates:
        return math.inf
    from fractions import Fraction

    best, _bits = min(candidates, key=lambda c: (abs(Fraction(c[0]) - value), c[1] & 1))
    return best


def _floating(token: str) -> Literal | None:
    match = _FLOATING.fullmatch(token)
    if match is None or not any(c in token for c in ".eEpP"):
        return None
    digits, suffix = match["digits"].replace("'", ""), match["suffix"].lower()
    if suffix == "l":
        return None  # long double: no counterpart in device code bindings
    # Imported here: a parse of a header without floating literals does without (~1.5 ms).
    from fractions import Fraction

    if digits[:2] in ("0x", "0X"):
        exact = Fraction(float.fromhex(digits))
    else:
        exact = Fraction(digits)
    if suffix == "f":
        return Literal(_single(exact), "float", token)
    return Literal(float(exact), "double", token)


def _character(token: str) -> Literal | None:
    match = _CHARACTER.fullmatch(token)
    if match is None:
        return None
    body = match["body"]
    if body.startswith("\\"):
        code = _ESCAPES.get(body[1:])
        if code is None:
            return None
    else:
        code = ord(body)
    if code > 127:
        return None
    return Literal(code, "char", token)


def _string(token: str) -> Literal | None:
    match = _STRING.fullmatch(token)
    if match is None:
        return None
    try:
        text = match["body"].encode("latin-1").decode("unicode_escape")
    except (UnicodeDecodeError, UnicodeEncodeError):
        return None
    return Literal(text, f"const char[{len(text.encode()) + 1}]", token)


def read_literal(tokens: list[str]) -> Literal | None:
    """The literal that a macro's replacement tokens spell: one literal token, in any number
    of parentheses, with unary ``-`` / ``+`` in front (``(-1)``, ``-(0.5f)``); None for
    anything else (an expression, a cast, a call, a name)."""
    sign = 1
    tokens = list(tokens)
    while tokens:
        if tokens[0] == "(" and tokens[-1] == ")" and _balanced(tokens[1:-1]):
            tokens = tokens[1:-1]
        elif tokens[0] in ("-", "+") and len(tokens) > 1:
            sign = -sign if tokens[0] == "-" else sign
            tokens = tokens[1:]
        else:
            break
    if len(tokens) != 1:
        return None
    token = tokens[0]
    if token in ("true", "false"):
        found: Literal | None = Literal(token == "true", "bool", token)
    else:
        found = _string(token) or _character(token) or _integer(token) or _floating(token)
    if found is None or sign == 1:
        return found
    return _negated(found)


def _negated(found: Literal) -> Literal | None:
    """``-literal``: unary minus in the literal's own type (wrapping for unsigned ones)."""
    value = found.value
    if isinstance(value, (bool, str)):
        return None
    if isinstance(value, float):
        return Literal(-value, found.cxx_type, f"-{found.text}")
    width = {"unsigned int": 32, "unsigned long": 64, "unsigned long long": 64}.get(found.cxx_type)
    if found.cxx_type == "char":
        return None
    negated = (-value) % (1 << width) if width else -value
    return Literal(negated, found.cxx_type, f"-{found.text}")


def _balanced(tokens: list[str]) -> bool:
    depth = 0
    for token in tokens:
        depth += {"(": 1, ")": -1}.get(token, 0)
        if depth < 0:
            return False
    return depth == 0

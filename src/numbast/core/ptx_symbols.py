"""Which symbols a header alone defines, read from its PTX: whether its shims can be compiled in
several units (``numbast_import.shim_units``, and the unit files of a standalone module:
``numbast.static.unit_files``).

A symbol the header defines is defined again by every unit that includes it. Weak symbols
(inline functions' static locals, template instances) are merged by the linker; visible ones
would be defined twice; an internal variable is one copy per unit, which is harmless only when
it is constant: NVRTC gives every namespace-scope ``constexpr`` or ``const`` variable (internal
linkage) an internal ``.global`` in each unit, whether used or not, and a copy of a constant is
the constant. So a header defines symbols of its own unless every one of them is weak, or is
an internal ``.global`` that is a string literal's data or a variable that the header declares
constant and no other way (``header_items.Item.constant``), matched by its unqualified name.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import NamedTuple

# A PTX declaration of the module's own (lines beginning so; weak ones begin with ``.weak``).
_OWN = re.compile(r"^[ \t]*(\.visible\b|\.global\b|\.shared\b)([^\n;]*)", re.M)
# The variable a ``.global`` line declares: the name before its array size, initializer or end.
_DECLARED = re.compile(r"([A-Za-z_$][\w$]*)\s*(?:\[[^\]]*\]\s*)?(?:=|$)")
_LENGTH_NAME = re.compile(r"(\d+)")


class HeaderSymbols(NamedTuple):
    """``own``: symbols of the header's own that units would define again; ``constants``: how
    many internal constant variables each unit gets a copy of."""

    own: tuple[str, ...]
    constants: int


def header_symbols(ptx: str, constant_names: Iterable[str]) -> HeaderSymbols:
    """What the header alone, compiled to ``ptx``, defines (see the module docstring);
    ``constant_names``: the names the header declares constant only."""
    constants = frozenset(constant_names)
    own: list[str] = []
    copies = 0
    for match in _OWN.finditer(ptx):
        kind, rest = match.groups()
        declared = _DECLARED.search(rest.strip())
        symbol = declared.group(1) if declared else f"{kind}{rest}".strip()
        if kind == ".global" and declared is not None and _is_constant(symbol, constants):
            copies += 1
        else:
            own.append(symbol)
    return HeaderSymbols(tuple(own), copies)


def _is_constant(symbol: str, constants: frozenset[str]) -> bool:
    if symbol.startswith("$str"):  # a string literal's characters
        return True
    name = variable_name(symbol)
    return name is not None and name in constants


def variable_name(symbol: str) -> str | None:
    """The unqualified name of the variable an internal PTX symbol stands for, or None when it
    is not a variable's name as NVRTC writes them: ``name`` (the global namespace),
    ``_ZL4name``, ``_ZN<prefix>2ns4nameE`` (``<prefix>``: NVRTC's ``_INTERNAL_...`` and
    anonymous namespaces' ``_GLOBAL__N_...`` components)."""
    if not symbol.startswith("_Z"):
        return symbol if re.fullmatch(r"[A-Za-z_]\w*", symbol) else None
    if symbol.startswith("_ZL"):
        parts = _length_prefixed(symbol[3:])
        return parts[0] if parts is not None and len(parts) == 1 else None
    if not (symbol.startswith("_ZN") and symbol.endswith("E")):
        return None
    parts = _length_prefixed(symbol[3:-1])
    if not parts:
        return None
    return parts[-1] if not parts[-1].startswith(("_INTERNAL_", "_GLOBAL__N_")) else None


def _length_prefixed(text: str) -> list[str] | None:
    """``2ns4name`` -> ["ns", "name"]; None when ``text`` is not only such components."""
    parts: list[str] = []
    index = 0
    while index < len(text):
        length = _LENGTH_NAME.match(text, index)
        if length is None:
            return None
        start = length.end()
        end = start + int(length.group(1))
        if end > len(text) or int(length.group(1)) == 0:
            return None
        parts.append(text[start:end])
        index = end
    return parts

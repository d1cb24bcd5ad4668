"""Python values and whole source files as Python literals, for generated modules."""

from __future__ import annotations

import json
from typing import Any


def literal(value: Any) -> str:
    """``value`` (str, int, bool, None, tuples of those) as Python source. Strings are
    double-quoted (JSON escapes are valid Python escapes), as ruff format would write them."""
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, tuple):
        items = ", ".join(literal(item) for item in value)
        return f"({items},)" if len(value) == 1 else f"({items})"
    if value is None or isinstance(value, (bool, int)):
        return repr(value)
    raise TypeError(f"cannot write {type(value).__name__} as a literal")


def source_literal(text: str) -> str:
    """A whole source file as a readable raw triple-quoted string when that is exact, else a
    plain literal."""
    if "'''" not in text and not text.endswith(("\\", "'")) and "\r" not in text:
        return f"r'''{text}'''"
    return literal(text)

"""ast_canopy: parse CUDA C++ headers into plain-data declarations (first stage of the pipeline).

Importing this package is cheap: libclang is loaded only when a parse is requested.
"""

from __future__ import annotations

import importlib
from typing import Any

__all__ = ["parse_declarations_from_source", "value_from_constexpr_vardecl", "ParseError"]

# name -> submodule that defines it; resolved on first attribute access (PEP 562).
_LAZY = {
    "parse_declarations_from_source": "ast_canopy.parser",
    "value_from_constexpr_vardecl": "ast_canopy.parser",
    "ParseError": "ast_canopy.errors",
}


def __getattr__(name: str) -> Any:
    module_name = _LAZY.get(name)
    if module_name is None:
        raise AttributeError(f"module 'ast_canopy' has no attribute {name!r}")
    value = getattr(importlib.import_module(module_name), name)
    globals()[name] = value
    return value

"""NVIDIA ast_canopy's ``ast_canopy.api`` module: the entry points and ``Declarations``.

Importing it loads libclang (``import ast_canopy`` alone does not).
"""

from __future__ import annotations

from ast_canopy.model import Declarations
from ast_canopy.parser import parse_declarations_from_source, value_from_constexpr_vardecl

__all__ = ["Declarations", "parse_declarations_from_source", "value_from_constexpr_vardecl"]

"""ast_canopy: parse CUDA C++ headers into plain-data declarations (first stage of the pipeline).

Importing this package is cheap: libclang is loaded only when a parse is requested.
"""

from __future__ import annotations

import importlib
from typing import Any

__all__ = [
    "parse_declarations_from_source",
    "value_from_constexpr_vardecl",
    "ParseError",
    "Declarations",
    "Type",
    "TypeKind",
    "Function",
    "ParamVar",
    "Method",
    "MethodKind",
    "Struct",
    "Field",
    "Enum",
    "Typedef",
    "ExecutionSpace",
    "Access",
    "TemplateParam",
    "TemplateParamKind",
    "FunctionTemplate",
    "ClassTemplate",
    "ClassTemplateSpecialization",
    "ConstExprVar",
]

# The model is plain data (no clang): import it eagerly.
from ast_canopy.model import (  # noqa: E402
    Access,
    ClassTemplate,
    ClassTemplateSpecialization,
    ConstExprVar,
    Declarations,
    ExecutionSpace,
    Field,
    Function,
    FunctionTemplate,
    Method,
    MethodKind,
    ParamVar,
    Struct,
    TemplateParam,
    TemplateParamKind,
    Type,
    Typedef,
    TypeKind,
)
from ast_canopy.model import Enum_ as Enum  # noqa: E402

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

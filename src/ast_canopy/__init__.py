"""ast_canopy: parse CUDA C++ headers into plain-data declarations (first stage of the pipeline).

Importing this package is cheap: libclang is loaded only when a parse is requested. The names
NVIDIA's ast_canopy documents are here too (``ast_canopy.decl``, ``ast_canopy.pylibastcanopy``,
``INVALID_SIZE_OF``, ``__version__``); see docs/numbast_compat.md.
"""

from __future__ import annotations

import importlib
from typing import Any

__all__ = [  # noqa: F822  (resolved lazily by __getattr__)
    "__version__",
    "INVALID_ALIGN_OF",
    "INVALID_SIZE_OF",
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
    "BaseClass",
    "Enum",
    "Typedef",
    "ExecutionSpace",
    "Access",
    "TemplateParam",
    "TemplateParamKind",
    "Template",
    "FunctionTemplate",
    "ClassTemplate",
    "ClassTemplateSpecialization",
    "ClassTemplatePartialSpecialization",
    "AliasTemplate",
    "ConstExprVar",
    "MacroConstant",
]

# name -> submodule that defines it; resolved on first attribute access (PEP 562), so importing
# the package (or ast_canopy.toolkit, on a warm import of cached bindings) builds no model
# classes. NVIDIA's module names (ast_canopy.decl, .pylibastcanopy) import as submodules.
_MODEL = (
    "Access AliasTemplate BaseClass ClassTemplate ClassTemplatePartialSpecialization "
    "ClassTemplateSpecialization ConstExprVar Declarations ExecutionSpace Field Function "
    "FunctionTemplate MacroConstant Method MethodKind ParamVar Struct Template TemplateParam "
    "TemplateParamKind Type Typedef TypeKind"
).split()
_LAZY = {
    **dict.fromkeys(_MODEL, "ast_canopy.model"),
    "Enum": "ast_canopy.model",
    "INVALID_ALIGN_OF": "ast_canopy.constants",
    "INVALID_SIZE_OF": "ast_canopy.constants",
    "parse_declarations_from_source": "ast_canopy.parser",
    "value_from_constexpr_vardecl": "ast_canopy.parser",
    "ParseError": "ast_canopy.errors",
}
_RENAMED = {"Enum": "Enum_"}
_SUBMODULES = ("decl", "pylibastcanopy")
_DISTRIBUTION = "numbast-import"


def _version() -> str:
    from importlib import metadata

    try:
        return metadata.version(_DISTRIBUTION)
    except metadata.PackageNotFoundError:  # running from a source tree that is not installed
        return "0+unknown"


def __getattr__(name: str) -> Any:
    if name == "__version__":
        value: Any = _version()
    elif name in _SUBMODULES:
        value = importlib.import_module(f"ast_canopy.{name}")
    else:
        module_name = _LAZY.get(name)
        if module_name is None:
            raise AttributeError(f"module 'ast_canopy' has no attribute {name!r}")
        value = getattr(importlib.import_module(module_name), _RENAMED.get(name, name))
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_LAZY, *_SUBMODULES])

"""NVIDIA ast_canopy's ``ast_canopy.pylibastcanopy`` names: its enums and declaration classes.

NVIDIA's module is a compiled extension; here every name is the matching class of the pure
Python model, and each enum member answers to NVIDIA's spelling (``execution_space.host_device``,
``access_kind.public_``, ``template_param_kind.type_``, ``method_kind.converting_constructor``).
NVIDIA's command-line entry points (``parse_declarations_from_command_line``) are not provided:
they drive a clang executable that this package does not use.
"""

from __future__ import annotations

from ast_canopy.constants import INVALID_ALIGN_OF, INVALID_SIZE_OF
from ast_canopy.errors import ParseError
from ast_canopy.kinds import Access as access_kind
from ast_canopy.kinds import ExecutionSpace as execution_space
from ast_canopy.kinds import MethodKind as method_kind
from ast_canopy.kinds import TemplateParamKind as template_param_kind
from ast_canopy.model import (
    ClassTemplate,
    ClassTemplateSpecialization,
    ConstExprVar,
    Declarations,
    Field,
    Function,
    FunctionTemplate,
    Method,
    ParamVar,
    Template,
    TemplateParam,
    Type,
    Typedef,
)
from ast_canopy.model import Enum_ as Enum
from ast_canopy.model import Struct as Record

__all__ = [
    "INVALID_ALIGN_OF",
    "INVALID_SIZE_OF",
    "ClassTemplate",
    "ClassTemplateSpecialization",
    "ConstExprVar",
    "Declarations",
    "Enum",
    "Field",
    "Function",
    "FunctionTemplate",
    "Method",
    "ParamVar",
    "ParseError",
    "Record",
    "Template",
    "TemplateParam",
    "Type",
    "Typedef",
    "access_kind",
    "execution_space",
    "method_kind",
    "template_param_kind",
]

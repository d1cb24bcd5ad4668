"""NVIDIA ast_canopy's ``ast_canopy.decl`` names for the declaration model.

Code written against NVIDIA's module (``from ast_canopy.decl import Struct``, ``isinstance(d,
decl.Function)``) runs unchanged: each name is the model class that the parser returns here.
NVIDIA's ``StructMethod`` / ``TemplatedStructMethod`` are both ``Method`` and ``TemplatedStruct``
is ``Struct``: one class serves records and template bodies alike.
"""

from __future__ import annotations

from ast_canopy.model import (
    ClassTemplate,
    ClassTemplateSpecialization,
    ConstExprVar,
    Function,
    FunctionTemplate,
    Method,
    Struct,
    Template,
)
from ast_canopy.operators import CXX_OP_TO_PYTHON_OP, CXX_TYPE_TO_PYTHON_TYPE

StructMethod = Method
TemplatedStructMethod = Method
TemplatedStruct = Struct

__all__ = [
    "CXX_OP_TO_PYTHON_OP",
    "CXX_TYPE_TO_PYTHON_TYPE",
    "ClassTemplate",
    "ClassTemplateSpecialization",
    "ConstExprVar",
    "Function",
    "FunctionTemplate",
    "Struct",
    "StructMethod",
    "Template",
    "TemplatedStruct",
    "TemplatedStructMethod",
]

"""Object-like macros that expand to a literal -> module constants with their C++ type.

``#define CUDART_PI_F 3.141592654f`` becomes ``CUDART_PI_F = numpy.float32(3.1415927...)``: a
NumPy scalar of the literal's type, which Numba reads as a typed constant inside a kernel (a
plain Python float would be a float64 there). The value is the one the parser read, the float
the compiler makes of the digits.
"""

from __future__ import annotations

import math
from typing import NamedTuple

from ast_canopy.model import MacroConstant
from numbast.planning.diagnostics import BindingError

# C++ type of a literal -> NumPy scalar type (LP64, as on the device).
NUMPY_TYPES = {
    "bool": "bool_",
    "char": "int8",
    "int": "int32",
    "unsigned int": "uint32",
    "long": "int64",
    "unsigned long": "uint64",
    "long long": "int64",
    "unsigned long long": "uint64",
    "float": "float32",
    "double": "float64",
}


class ConstantRow(NamedTuple):
    python_name: str
    numpy_type: str  # a numpy scalar type name: "float32", "uint32", "bool_"
    value: bool | int | float
    cxx_type: str  # the macro's C++ type, for messages and docs
    expansion: str  # the replacement as written

    def python_expression(self, numpy: str = "numpy") -> str:
        """Python source for the value: ``numpy.float32(3.1415927410125732)``. A float32 is
        written as the double that holds it exactly, so the conversion cannot round."""
        if self.numpy_type == "bool_":
            return repr(bool(self.value))
        value = self.value
        if isinstance(value, float) and not math.isfinite(value):
            text = f'float("{value}")'
        else:
            text = repr(value)
        return f"{numpy}.{self.numpy_type}({text})"


def plan_macro_constant(macro: MacroConstant, python_name: str | None = None) -> ConstantRow:
    """The constant a macro becomes; raises BindingError for a type with no NumPy scalar (a
    string literal)."""
    cxx_type = macro.type_.name
    numpy_type = NUMPY_TYPES.get(cxx_type)
    if numpy_type is None or isinstance(macro.value, str):
        raise BindingError(f"its value {macro.expansion} has type {cxx_type}, no Numba number")
    name = python_name or macro.name
    return ConstantRow(name, numpy_type, macro.value, cxx_type, macro.expansion)

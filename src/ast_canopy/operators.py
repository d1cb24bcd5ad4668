"""What a function's name says about it as an operator, in NVIDIA ast_canopy's terms.

``Function`` and ``Method`` inherit these queries. The tables map C++ operator symbols and
arithmetic type names to their Python counterparts, as NVIDIA's ``ast_canopy.decl`` exports them.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any

# The operators that have a Python counterpart. "+" and "-" have two: unary (index 0) and binary
# (index 1). Assignment has none: Python cannot overload it.
CXX_OP_TO_PYTHON_OP: dict[str, Any] = {
    "+": [operator.pos, operator.add],
    "-": [operator.neg, operator.sub],
    "*": operator.mul,
    "/": operator.truediv,
    "%": operator.mod,
    "&": operator.and_,
    "|": operator.or_,
    "^": operator.xor,
    "!": operator.not_,
    "~": operator.inv,
    "<<": operator.lshift,
    ">>": operator.rshift,
    "==": operator.eq,
    "!=": operator.ne,
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
    "+=": operator.iadd,
    "-=": operator.isub,
    "*=": operator.imul,
    "/=": operator.itruediv,
    "%=": operator.imod,
    "&=": operator.iand,
    "|=": operator.ior,
    "^=": operator.ixor,
    "<<=": operator.ilshift,
    ">>=": operator.irshift,
    "=": None,
}

# Arithmetic C++ type names -> the Python type of a constant of that type.
CXX_TYPE_TO_PYTHON_TYPE: dict[str, type] = {
    "bool": bool,
    "char": int,
    "signed char": int,
    "unsigned char": int,
    "short": int,
    "unsigned short": int,
    "int": int,
    "unsigned int": int,
    "long": int,
    "unsigned long": int,
    "long long": int,
    "unsigned long long": int,
    "int8_t": int,
    "int16_t": int,
    "int32_t": int,
    "int64_t": int,
    "uint8_t": int,
    "uint16_t": int,
    "uint32_t": int,
    "uint64_t": int,
    "float": float,
    "double": float,
    "long double": float,
}

_PREFIX = "operator"


def operator_spelling(name: str) -> str | None:
    """What follows ``operator`` in a function name (``"+"``, ``"new[]"``, ``"float"``,
    ``'"" _km'``), or None when the name is not an operator's."""
    if not name.startswith(_PREFIX) or len(name) == len(_PREFIX):
        return None
    rest = name[len(_PREFIX) :]
    if rest[0].isalnum() or rest[0] == "_":  # an identifier such as operator_count
        return None
    return rest.strip()


class OperatorQueries:
    """NVIDIA's operator queries, for classes with ``name`` and ``params``."""

    name: str
    params: tuple

    # Member operators count the object as an operand: "-" with no parameter is unary there.
    _IMPLICIT_OPERANDS = 0

    @property
    def _op_str(self) -> str | None:
        return operator_spelling(self.name)

    def is_allocation_operator(self) -> bool:
        return (self._op_str or "").startswith("new")

    def is_deallocation_operator(self) -> bool:
        return (self._op_str or "").startswith("delete")

    def is_user_defined_literal(self) -> bool:
        return (self._op_str or "").startswith('""')

    def is_cowait_operator(self) -> bool:
        return (self._op_str or "").startswith("co_await")

    def is_overloaded_operator(self) -> bool:
        """An operator with a Python counterpart (or assignment)."""
        return self._op_str in CXX_OP_TO_PYTHON_OP

    def is_copy_assignment_operator(self) -> bool:
        return self._op_str == "="

    def is_conversion_operator(self) -> bool:
        """``operator T()``: what follows ``operator`` is a type, not a symbol."""
        op = self._op_str
        return (
            op is not None
            and (op[0].isalpha() or op[0] in "_:")
            and not self.is_allocation_operator()
            and not self.is_deallocation_operator()
            and not self.is_cowait_operator()
        )

    @property
    def overloaded_operator_to_python_operator(self) -> Callable[..., Any] | None:
        """The Python operator function for this C++ operator (``operator.add`` for ``+``)."""
        op = self._op_str
        if op is None or op not in CXX_OP_TO_PYTHON_OP:
            raise ValueError(f"{self.name} is not an operator with a Python counterpart")
        found = CXX_OP_TO_PYTHON_OP[op]
        if isinstance(found, list):
            operands = len(self.params) + self._IMPLICIT_OPERANDS
            if operands not in (1, 2):
                raise ValueError(f"{self.name} takes {operands} operands; expected 1 or 2")
            return found[operands - 1]
        return found

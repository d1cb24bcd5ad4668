"""C++ operator spellings -> the Python ``operator`` functions Numba types them through."""

from __future__ import annotations

import operator
from collections.abc import Callable

BINARY: dict[str, Callable] = {
    "+": operator.add,
    "-": operator.sub,
    "*": operator.mul,
    "/": operator.truediv,
    "%": operator.mod,
    "&": operator.and_,
    "|": operator.or_,
    "^": operator.xor,
    "<<": operator.lshift,
    ">>": operator.rshift,
    "==": operator.eq,
    "!=": operator.ne,
    "<": operator.lt,
    ">": operator.gt,
    "<=": operator.le,
    ">=": operator.ge,
}

UNARY: dict[str, Callable] = {
    "-": operator.neg,
    "+": operator.pos,
    "~": operator.invert,
}

# Compound assignments mutate their left operand: the binding returns the updated value and
# Python's ``x += y`` rebinds ``x`` to it, which is C++'s in-place update seen from Numba.
COMPOUND: dict[str, Callable] = {
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
}


def python_operator_for(symbol: str, operand_count: int) -> Callable | None:
    """The operator function for a C++ operator with this many operands (``this`` counted)."""
    if symbol in COMPOUND and operand_count == 2:
        return COMPOUND[symbol]
    if operand_count == 2:
        return BINARY.get(symbol)
    if operand_count == 1:
        return UNARY.get(symbol)
    return None

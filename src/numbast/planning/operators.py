"""C++ operator spellings -> the Python ``operator`` functions Numba types them through.

The table is ast_canopy's (``CXX_OP_TO_PYTHON_OP``, NVIDIA's names); this module says which
entry applies to a declaration with a given number of operands.
"""

from __future__ import annotations

import operator
from collections.abc import Callable

from ast_canopy.operators import CXX_OP_TO_PYTHON_OP

# Not bound: `!` (Python's `not` cannot be overloaded), assignment (nor can `=`).
_NOT_BOUND = frozenset({"!", "="})
_COMPARISONS = frozenset({"==", "!=", "<=", ">="})
# Numba types `~x` as operator.invert; the table (as NVIDIA's) has its alias operator.inv, a
# distinct object Numba does not dispatch on.
_UNARY_ONLY = {"~": operator.invert}

# Compound assignments mutate their left operand: the binding returns the updated value and
# Python's ``x += y`` rebinds ``x`` to it, which is C++'s in-place update seen from Numba.
COMPOUND: dict[str, Callable] = {
    symbol: function
    for symbol, function in CXX_OP_TO_PYTHON_OP.items()
    if symbol.endswith("=") and symbol not in _COMPARISONS | _NOT_BOUND
}


# How a kernel written in Python could call an operator that it has no syntax for: such a
# declaration is excluded from coverage (it is not a gap), and the reason ends with this.
NO_PYTHON_SYNTAX = "a Python kernel has no syntax that calls it"

_WHY_NO_SYNTAX = {
    "=": "assignment rebinds a name in Python (construct the value instead)",
    "++": "Python has no increment operator (x += 1 calls operator+=)",
    "--": "Python has no decrement operator (x -= 1 calls operator-=)",
    "!": "Python's `not` cannot be overloaded",
    "&&": "Python's `and` cannot be overloaded",
    "||": "Python's `or` cannot be overloaded",
    ",": "Python has no comma operator",
    "->": "Python has no member access through a pointer",
    "->*": "Python has no pointer-to-member access",
}
_WHY_NO_UNARY_SYNTAX = {
    "*": "Python has no dereference operator",
    "&": "Python has no address-of operator",
}


def no_python_syntax(symbol: str, operand_count: int) -> str | None:
    """Why a kernel written in Python cannot call the C++ operator ``symbol`` taking
    ``operand_count`` operands (``this`` counted) whatever the binding, ending with
    ``NO_PYTHON_SYNTAX``; None when Python has syntax for it."""
    why = _WHY_NO_SYNTAX.get(symbol)
    if symbol.startswith('""'):
        why = "Python has no user-defined literals (call the type's constructor instead)"
    elif operand_count == 1 and symbol in _WHY_NO_UNARY_SYNTAX:
        why = _WHY_NO_UNARY_SYNTAX[symbol]
    if why is None:
        return None
    return f"operator{symbol} is not bound: {why}; {NO_PYTHON_SYNTAX}"


def python_operator_for(symbol: str, operand_count: int) -> Callable | None:
    """The operator function for a C++ operator with this many operands (``this`` counted)."""
    if symbol in _NOT_BOUND:
        return None
    if symbol == "[]":  # a[i] reads an element (a member operator: the object and the index)
        return operator.getitem if operand_count == 2 else None
    found = CXX_OP_TO_PYTHON_OP.get(symbol)
    if isinstance(found, list):  # "+" and "-": [unary, binary]
        return found[operand_count - 1] if operand_count in (1, 2) else None
    if found is None:
        return None
    if symbol in _UNARY_ONLY:
        return _UNARY_ONLY[symbol] if operand_count == 1 else None
    return found if operand_count == 2 else None

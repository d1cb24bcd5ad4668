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


def python_operator_for(symbol: str, operand_count: int) -> Callable | None:
    """The operator function for a C++ operator with this many operands (``this`` counted)."""
    if symbol in _NOT_BOUND:
        return None
    found = CXX_OP_TO_PYTHON_OP.get(symbol)
    if isinstance(found, list):  # "+" and "-": [unary, binary]
        return found[operand_count - 1] if operand_count in (1, 2) else None
    if found is None:
        return None
    if symbol in _UNARY_ONLY:
        return _UNARY_ONLY[symbol] if operand_count == 1 else None
    return found if operand_count == 2 else None

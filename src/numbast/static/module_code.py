"""A generated module's code object, compiled without parsing its rows (issue 23 point 12).

A bindings module is a few dozen lines of code and, in ``_nb_rows = ModuleRows(...)``, every
row of the header as literals: about five bytes of source per byte of header. ``compile()`` of
that source builds an AST of about 65 bytes per byte of source before folding the literals
into constants: 2.2 GB for a 6.5 MB header. The rows are data the writer already holds, so the
code object is made from a skeleton of the module instead: the same source with each block of
rows replaced by a placeholder string on the same lines (tracebacks still point into the real
source), compiled, then each placeholder swapped for its rows in the code's constants.

The constants are what ``compile()`` of the real source would make: plain tuples of str, int,
bool and None (``literal`` writes nothing else), equal ones shared (``compile()`` merges equal
constants, and marshal writes a shared object once: the .pyc keeps its size, a warm import
loads the same), identifier-like strings interned as the code object interns them.
"""

from __future__ import annotations

import logging
import secrets
import types
from dataclasses import dataclass
from typing import Any

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class ModuleCode:
    """What compiling a module needs besides its source: the ``skeleton`` (the source with
    each block of rows a placeholder string) and (placeholder, rows) for each block."""

    skeleton: str
    constants: tuple[tuple[str, tuple], ...]


class RowConstants:
    """Collects blocks of rows as constants for a module's skeleton, sharing equal values."""

    def __init__(self) -> None:
        self._tag = secrets.token_hex(8)  # no string of the module can be a placeholder
        self._shared: dict[Any, Any] = {}
        self.constants: list[tuple[str, tuple]] = []

    def placeholder(self, rows: tuple) -> str:
        """A placeholder for ``rows`` (values ``literal`` writes); the block it stands for."""
        name = f"\0numbast rows {self._tag} {len(self.constants)}"
        self.constants.append((name, self._constant(rows)))
        return name

    def _constant(self, value: Any) -> Any:
        if isinstance(value, tuple):  # named tuples too, written as plain tuples
            items = tuple(self._constant(item) for item in value)
            key: Any = (tuple, *map(id, items))  # items are shared: equal items, same object
            value = items
        elif isinstance(value, str):
            value = str(value)
            key = (str, value)
        elif value is None or type(value) is bool:
            key = (type(value), value)
        elif isinstance(value, int):
            value = int(value)
            key = (int, value)
        else:
            raise TypeError(f"cannot write {type(value).__name__} as a constant")
        return self._shared.setdefault(key, value)


def compile_module(source: str, code: ModuleCode | None, filename: str) -> types.CodeType:
    """The code object of the module ``source``: from ``code``'s skeleton and constants when
    given, else ``compile()`` of the source."""
    if code is None or not code.constants:
        return compile(source, filename, "exec")
    compiled = compile(code.skeleton, filename, "exec")
    values = dict(code.constants)
    consts = list(compiled.co_consts)
    found = 0
    for index, const in enumerate(consts):
        if type(const) is str and const in values:
            consts[index] = values[const]
            found += 1
    if found != len(values):  # each placeholder is one constant of the module's own code
        logger.warning(
            "%s: %d of %d blocks of rows found in the compiled skeleton; compiling the source",
            filename,
            found,
            len(values),
        )
        return compile(source, filename, "exec")
    return compiled.replace(co_consts=tuple(consts))

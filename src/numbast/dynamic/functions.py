"""Bind free functions and free operators: ``bind_cxx_function`` / ``bind_cxx_functions``.

Each function is planned into a row and applied at once through the runtime's one apply path
(``numbast.runtime.apply``), as a generated module applies its rows when imported.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from ast_canopy.model import Function
from numbast.dynamic.numba_types import NUMBA_TYPE_TABLE
from numbast.planning.calls import CallPlan
from numbast.planning.declarations import location_of, plan_function, signature_text
from numbast.planning.diagnostics import BindingError, warn_skipped
from numbast.planning.intents import IntentSpec
from numbast.planning.type_rules import UnsupportedTypeError
from numbast.runtime.apply import apply_function
from numbast.runtime.calls import Call
from numbast.runtime.overloads import FunctionStubs
from numbast.runtime.row_writer import RowWriter
from numbast.runtime.shim_library import ShimLibrary

logger = logging.getLogger(__name__)

# One stub per C++ qualified name, process-wide: binding a name again (or another overload of
# it) extends the same stub. Function templates join these stubs too.
FUNCTION_STUBS = FunctionStubs(by_qual_name=True)


def bind_cxx_function(
    shim_writer: ShimLibrary,
    func_decl: Function,
    skip_prefix: str | None = None,
    exclude: Iterable[str] = (),
    arg_intents: IntentSpec | None = None,
    python_name: str | None = None,
) -> Callable[..., Any] | None:
    """Make the C++ function ``func_decl`` callable from kernels.

    Returns the Python stub to call (for an operator, the ``operator`` function it binds to),
    or None when the declaration is skipped (with one BindingSkippedWarning saying why).
    """
    if func_decl.name in set(exclude) or (skip_prefix and func_decl.name.startswith(skip_prefix)):
        logger.debug("excluded %s", func_decl.qual_name)
        return None
    try:
        row = plan_function(func_decl, NUMBA_TYPE_TABLE, arg_intents, python_name)
    except (BindingError, UnsupportedTypeError) as exc:
        warn_skipped("function", signature_text(func_decl), str(exc), location_of(func_decl))
        return None
    writer = RowWriter()
    indexed = writer.function(row)
    return apply_function(indexed, writer.types, writer.shims, shim_writer, FUNCTION_STUBS)


def bind_cxx_functions(
    shim_writer: ShimLibrary,
    func_decls: Iterable[Function],
    skip_prefix: str | None = None,
    exclude: Iterable[str] = (),
    arg_intents: Mapping[str, IntentSpec] | None = None,
) -> list[Callable[..., Any]]:
    """Bind every function; returns the distinct stubs/operators bound (skips are warned)."""
    excluded = set(exclude)
    bound: list[Callable[..., Any]] = []
    for func in func_decls:
        intents = (arg_intents or {}).get(func.name)
        result = bind_cxx_function(shim_writer, func, skip_prefix, excluded, intents)
        if result is not None and result not in bound:
            bound.append(result)
    return bound


def runtime_call(plan: CallPlan) -> Call:
    """The runtime's view of one planned call (its signature and lowering), for bindings that
    are planned while Numba types a kernel (function template instantiations)."""
    return Call.from_plan(plan)

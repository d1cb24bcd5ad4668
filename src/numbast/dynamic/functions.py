"""Bind free functions and free operators: ``bind_cxx_function`` / ``bind_cxx_functions``, with
NVIDIA Numbast's signatures.

Each function is planned into a row and applied at once through the runtime's one apply path
(``numbast.runtime.apply``), as a generated module applies its rows when imported.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from ast_canopy.model import Function
from numbast.core.row_writer import RowWriter
from numbast.dynamic.binders import BINDERS
from numbast.dynamic.numba_types import NUMBA_TYPE_TABLE
from numbast.planning.calls import CallPlan
from numbast.planning.declarations import omittable_arguments, plan_function
from numbast.planning.descriptions import location_of, signature_text
from numbast.planning.diagnostics import BindingError, warn_skipped
from numbast.planning.intents import IntentSpec
from numbast.planning.type_rules import UnsupportedTypeError
from numbast.runtime.apply import apply_function
from numbast.runtime.calls import Call
from numbast.runtime.overloads import FunctionStubs
from numbast.runtime.shim_library import ShimLibrary

logger = logging.getLogger(__name__)


def function_stubs(shim_writer: ShimLibrary) -> FunctionStubs:
    """The stubs of the functions bound with ``shim_writer``: one per C++ qualified name, so
    binding a name again (or another overload of it) with the same writer extends the same
    stub, and function templates of that name join it. Bindings made with another writer are
    other objects, so a kernel links only the shims of the writer whose bindings it calls (a
    header's non-inline definitions then never meet twice in one link)."""
    return BINDERS.of(shim_writer).function_stubs


# NVIDIA's arg_intent: {function name: {parameter name or index: intent}}.
FunctionIntents = Mapping[str, IntentSpec]


def bind_cxx_function(
    shim_writer: ShimLibrary,
    func_decl: Function,
    skip_prefix: str | None = None,
    skip_non_device: bool = True,
    exclude: Iterable[str] = (),
    *,
    arg_intent: FunctionIntents | None = None,
    python_name: str | None = None,
) -> Callable[..., Any] | None:
    """Make the C++ function ``func_decl`` callable from kernels.

    Returns the Python stub to call (for an operator, the ``operator`` function it binds to),
    or None when the declaration is left out: its name starts with ``skip_prefix`` or is in
    ``exclude``, or it cannot be bound (one BindingSkippedWarning says why). Functions that are
    not device-callable are always left out with that warning, since a kernel cannot call them;
    ``skip_non_device`` is accepted for NVIDIA's signature. ``arg_intent`` maps function names
    to their parameters' intents: ``{"f": {"out": "out_return"}}``.
    """
    _check_flag(skip_non_device, "bind_cxx_function")
    excluded = _names(exclude, "bind_cxx_function")
    if func_decl.name in excluded or (skip_prefix and func_decl.name.startswith(skip_prefix)):
        logger.debug("left out %s (exclude / skip_prefix)", func_decl.qual_name)
        return None
    try:
        row = plan_function(
            func_decl, NUMBA_TYPE_TABLE, intent_spec(arg_intent, func_decl), python_name
        )
    except (BindingError, UnsupportedTypeError) as exc:
        warn_skipped("function", signature_text(func_decl), str(exc), location_of(func_decl))
        return None
    stubs = function_stubs(shim_writer)
    bound = _apply(row, shim_writer, stubs)
    if func_decl.operator is None:
        _bind_defaulted_forms(func_decl, arg_intent, python_name, shim_writer, stubs)
    return bound


def _apply(row: Any, shim_writer: ShimLibrary, stubs: FunctionStubs) -> Any:
    writer = RowWriter()
    indexed = writer.function(row)
    return apply_function(indexed, writer.types, writer.shims, shim_writer, stubs)


def _bind_defaulted_forms(
    func_decl: Function,
    arg_intent: FunctionIntents | None,
    python_name: str | None,
    shim_writer: ShimLibrary,
    stubs: FunctionStubs,
) -> None:
    """Overloads of the same stub for calls that leave out defaulted trailing arguments (C++
    supplies them in the shim), as an imported module's functions have."""
    intents = intent_spec(arg_intent, func_decl)
    for omitted in range(1, omittable_arguments(func_decl) + 1):
        try:
            row = plan_function(func_decl, NUMBA_TYPE_TABLE, intents, python_name, omitted)
        except (BindingError, UnsupportedTypeError) as exc:
            logger.debug("%s without %d argument(s): %s", func_decl.qual_name, omitted, exc)
            continue
        _apply(row, shim_writer, stubs)


def bind_cxx_functions(
    shim_writer: ShimLibrary,
    functions: Iterable[Function],
    skip_prefix: str | None = None,
    skip_non_device: bool = True,
    exclude: Iterable[str] = (),
    *,
    arg_intent: FunctionIntents | None = None,
) -> list[Callable[..., Any]]:
    """Bind every function; returns the stub of each non-operator declaration bound, in order
    (overloads of one name give the same stub again). Operators are bound to the Python
    operators and not listed, as in NVIDIA's Numbast."""
    _check_flag(skip_non_device, "bind_cxx_functions")
    excluded = _names(exclude, "bind_cxx_functions")
    bound: list[Callable[..., Any]] = []
    for func in functions:
        result = bind_cxx_function(
            shim_writer, func, skip_prefix, skip_non_device, excluded, arg_intent=arg_intent
        )
        if result is not None and func.operator is None:
            bound.append(result)
    return bound


def intent_spec(arg_intent: FunctionIntents | None, func: Function) -> IntentSpec | None:
    """The intents ``arg_intent`` gives ``func``: by name, else by qualified name."""
    if not arg_intent:
        return None
    if not isinstance(arg_intent, Mapping):
        raise TypeError(
            "arg_intent must be a mapping {function name: {parameter: intent}}, "
            f"not {type(arg_intent).__name__}"
        )
    spec = arg_intent.get(func.name)
    return spec if spec is not None else arg_intent.get(func.qual_name)


def _check_flag(skip_non_device: Any, where: str) -> None:
    # Guards the signature change: ``exclude`` used to be the 4th parameter, NVIDIA's
    # skip_non_device is; a set of names there must not pass silently as "true".
    if not isinstance(skip_non_device, bool):
        raise TypeError(
            f"{where}(shim_writer, decl, skip_prefix, skip_non_device, exclude): "
            f"skip_non_device must be a bool, not {type(skip_non_device).__name__}; pass the "
            "names to leave out as exclude=... (the 5th parameter)"
        )


def _names(exclude: Iterable[str], where: str) -> set[str]:
    if isinstance(exclude, str):
        raise TypeError(
            f"{where}: exclude must be a collection of names, not the string {exclude!r}"
        )
    return set(exclude)


def runtime_call(plan: CallPlan) -> Call:
    """The runtime's view of one planned call (its signature and lowering), for bindings that
    are planned while Numba types a kernel (function template instantiations)."""
    return Call.from_plan(plan)

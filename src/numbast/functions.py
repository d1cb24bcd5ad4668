"""Bind free functions and free operators: ``bind_cxx_function`` / ``bind_cxx_functions``."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from ast_canopy.model import Function
from numbast.declaration_plans import location_of, plan_function, signature_text
from numbast.diagnostics import BindingError, warn_skipped
from numbast.intents import IntentSpec
from numbast.runtime import add_overload, make_function_stub
from numbast.shim_writer import ShimWriterBase
from numbast.type_mapping import UnsupportedTypeError

logger = logging.getLogger(__name__)

_STUBS_LOCK = threading.Lock()
_FUNCTION_STUBS: dict[str, Callable[..., Any]] = {}


def _make_function_stub(qual_name: str, python_name: str) -> Callable[..., Any]:
    """The Python object kernels call. All overloads of one C++ name share it."""
    with _STUBS_LOCK:
        stub = _FUNCTION_STUBS.get(qual_name)
        if stub is None:
            stub = make_function_stub(qual_name, python_name)
            _FUNCTION_STUBS[qual_name] = stub
        return stub


# The planning (which checks, shim, operator) is shared with the static generator.
_signature_text = signature_text
_where = location_of


def bind_cxx_function(
    shim_writer: ShimWriterBase,
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
        return _bind(shim_writer, func_decl, arg_intents, python_name)
    except (BindingError, UnsupportedTypeError) as exc:
        warn_skipped("function", _signature_text(func_decl), str(exc), _where(func_decl))
        return None


def _bind(
    shim_writer: ShimWriterBase,
    func: Function,
    arg_intents: IntentSpec | None,
    python_name: str | None,
) -> Callable[..., Any]:
    planned = plan_function(func, arg_intents)
    plan = planned.call
    if planned.operator is not None:
        key = planned.operator
    else:
        key = _make_function_stub(func.qual_name, python_name or func.name)
    added = add_overload(key, plan.signature(), plan.lowering(shim_writer), planned.label)
    if not added:
        logger.debug("%s already bound with this signature", _signature_text(func))
    return key


def bind_cxx_functions(
    shim_writer: ShimWriterBase,
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

"""Bind free functions and free operators: ``bind_cxx_function`` / ``bind_cxx_functions``."""

from __future__ import annotations

import functools
import logging
import threading
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from ast_canopy.model import Function
from numbast.callables import plan_call
from numbast.diagnostics import BindingError, warn_skipped
from numbast.intents import IntentSpec, resolve_intents
from numbast.operators import COMPOUND, python_operator_for
from numbast.runtime import add_overload, make_function_stub
from numbast.shim_writer import ShimWriterBase
from numbast.shims import function_call_body, operator_body, shim_name_for
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


def _signature_text(func: Function) -> str:
    params = ", ".join(p.type_.canonical_name for p in func.params)
    return f"{func.qual_name}({params})"


def _where(func: Function) -> str:
    return f"{func.file}:{func.line}" if func.file else ""


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
    if not func.exec_space.is_device_callable:
        raise BindingError(f"it is a {func.exec_space.value} function, not callable on the device")
    if func.is_deleted:
        raise BindingError("it is deleted")
    if func.is_variadic:
        raise BindingError("variadic functions cannot be bound")

    intents = resolve_intents(func.qual_name, func.params, arg_intents)
    params = [(p.type_, intent) for p, intent in zip(func.params, intents, strict=True)]
    shim_name = shim_name_for(func.mangled_name, _signature_text(func))

    if func.operator is not None:
        key = python_operator_for(func.operator, len(func.params))
        if key is None:
            raise BindingError(
                f"operator{func.operator} with {len(func.params)} operand(s) has no Python "
                "counterpart"
            )
        compound = func.operator in COMPOUND
        if compound and not func.params[0].type_.is_lvalue_reference:
            raise BindingError(f"operator{func.operator} does not take its left operand by &")
        plan = plan_call(
            shim_name,
            params,
            None if compound else func.return_type,
            functools.partial(_operator_body, func.operator),
            returns_first_argument=compound,
        )
        label = f"operator_{key.__name__}"
    else:
        plan = plan_call(
            shim_name,
            params,
            func.return_type,
            functools.partial(function_call_body, _callee_spelling(func)),
        )
        key = _make_function_stub(func.qual_name, python_name or func.name)
        label = func.name
    added = add_overload(key, plan.signature(), plan.lowering(shim_writer), label)
    if not added:
        logger.debug("%s already bound with this signature", _signature_text(func))
    return key


def _operator_body(symbol: str, params, returns_value: bool) -> str:
    return operator_body(symbol, params, returns_value)


def _callee_spelling(func: Function) -> str:
    # Qualified with a leading :: so a same-named shim-local name can never capture the call.
    return f"::{func.qual_name}" if not func.qual_name.startswith("::") else func.qual_name


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

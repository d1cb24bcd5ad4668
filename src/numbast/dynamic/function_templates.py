"""Bind C++ function templates: ``bind_cxx_function_template`` / ``bind_cxx_function_templates``.

A bound function template is one Python stub. Calling it in a kernel deduces the template
arguments from the Numba argument types, as C++ does from ``T``, ``const T &``, ``T *`` and
template-ids such as ``const Vec<T, N> &`` (a bound class template instance); parameters that
cannot be deduced take their defaults, or are given by subscripting the stub on the host, in C++
order (``scale3 = scale_by[3]``, like ``scale_by<3>``), or by name in the call (``scale_by(x,
N=3)``). The template is planned into a row and bound by the runtime
(``numbast.runtime.templates.functions``), as a generated module binds its rows: instances are
made with NVRTC, never clang.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ast_canopy.model import FunctionTemplate
from numbast.dynamic.binders import BINDERS
from numbast.dynamic.functions import FunctionIntents, function_stubs, intent_spec
from numbast.dynamic.template_context import (
    InstantiationOptions,
    context_for,
    known_class_templates,
)
from numbast.planning.descriptions import location_of
from numbast.planning.diagnostics import BindingError, warn_skipped
from numbast.planning.templates import function_template_row
from numbast.runtime.shim_library import ShimLibrary
from numbast.runtime.templates.functions import (
    FunctionTemplateBinder,
    FunctionTemplateStub,
    bind_operator_template,
)


def bind_cxx_function_template(
    shim_writer: ShimLibrary | None = None,
    templ_decl: FunctionTemplate | None = None,
    options: InstantiationOptions | None = None,
    python_name: str | None = None,
    *,
    name: str | None = None,
    overloads: Iterable[FunctionTemplate] | None = None,
    arg_intent: FunctionIntents | None = None,
) -> Any:
    """Bind a function template; returns the stub kernels call (for an operator template, the
    ``operator`` function it binds to), or None when it is skipped (with one
    BindingSkippedWarning saying why).

    Give one declaration, ``bind_cxx_function_template(shim_writer, templ_decl)``, or NVIDIA's
    keywords: ``name=`` (the Python name) and ``overloads=`` (the templates of that name).
    Function templates with the same qualified name share one stub; Numba tries them in the
    order they were bound, after plain overloads of the same name (C++ prefers those).
    ``arg_intent`` maps function names to their parameters' intents, as for plain functions.
    """
    if shim_writer is None:
        raise TypeError("bind_cxx_function_template: shim_writer is required")
    if (templ_decl is None) == (overloads is None):
        raise TypeError(
            "bind_cxx_function_template: give one declaration (templ_decl) or NVIDIA's "
            "overloads=[...] with name=..., not both"
        )
    if overloads is None:
        return _bind_one(shim_writer, templ_decl, options, python_name or name, arg_intent)
    stub = None
    for decl in overloads:
        bound = _bind_one(shim_writer, decl, options, python_name or name, arg_intent)
        stub = stub if bound is None else bound
    return stub


def _bind_one(
    shim_writer: ShimLibrary,
    templ_decl: FunctionTemplate,
    options: InstantiationOptions | None,
    python_name: str | None,
    arg_intent: FunctionIntents | None,
) -> Any:
    func = templ_decl.function
    try:
        spec = intent_spec(arg_intent, func)
        row = function_template_row(templ_decl, known_class_templates(), python_name, spec)
    except BindingError as exc:
        warn_skipped("function template", _text(templ_decl), str(exc), location_of(func))
        return None
    binder = FunctionTemplateBinder(row, context_for(shim_writer, options))
    if row.operator:
        return bind_operator_template(binder)
    with BINDERS.lock:
        stubs = BINDERS.of(shim_writer).template_stubs
        stub = stubs.get(func.qual_name)
        if stub is None:
            stub = stubs[func.qual_name] = FunctionTemplateStub(func.qual_name, row.python_name)
    # Whichever of the plain overloads and the templates is bound first provides the one
    # object for the name; a plain stub bound earlier gets the templates too.
    plain = function_stubs(shim_writer).adopt(func.qual_name, stub)
    stub.add(binder, also=() if plain is stub else (plain,))
    return stub


def _text(templ_decl: FunctionTemplate) -> str:
    params = ", ".join(p.name for p in templ_decl.template_parameters)
    args = ", ".join(p.type_.name for p in templ_decl.function.params)
    return f"template <{params}> {templ_decl.qual_name}({args})"


def bind_cxx_function_templates(
    shim_writer: ShimLibrary | None = None,
    function_templates: Iterable[FunctionTemplate] = (),
    options: InstantiationOptions | None = None,
    exclude: Iterable[str] | None = (),
    *,
    skip_prefix: str | None = None,
    skip_non_device: bool = True,
    arg_intent: FunctionIntents | None = None,
) -> list[Any]:
    """Bind every function template; returns the distinct stubs bound, in order (operator
    templates bind to the Python operators and are not listed, as in NVIDIA's Numbast).

    NVIDIA's keywords work: ``bind_cxx_function_templates(function_templates=...,
    shim_writer=..., skip_prefix=..., exclude=..., arg_intent=...)``; templates whose name
    starts with ``skip_prefix`` or is in ``exclude`` are left out. Templates that are not
    device-callable are left out with a warning whatever ``skip_non_device`` says.
    """
    if not isinstance(skip_non_device, bool):
        raise TypeError("bind_cxx_function_templates: skip_non_device must be a bool")
    excluded = set(exclude or ())
    bound: list[Any] = []
    for decl in function_templates:
        name = decl.function.name
        if name in excluded or (skip_prefix and name.startswith(skip_prefix)):
            continue
        result = bind_cxx_function_template(shim_writer, decl, options, arg_intent=arg_intent)
        if result is not None and not decl.function.is_operator and result not in bound:
            bound.append(result)
    return bound


__all__ = [
    "FunctionTemplateStub",
    "InstantiationOptions",
    "bind_cxx_function_template",
    "bind_cxx_function_templates",
]

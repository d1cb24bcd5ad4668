"""Bind C++ function templates: ``bind_cxx_function_template`` / ``bind_cxx_function_templates``.

A bound function template is one Python stub. Calling it in a kernel deduces the template
arguments from the Numba argument types, as C++ does from ``T``, ``const T &``, ``T *`` and
template-ids such as ``const Vec<T, N> &`` (a bound class template instance); parameters that
cannot be deduced take their defaults. Arguments C++ cannot deduce either (``template <int N,
class T> T scale_by(T)``) are given by subscripting the stub on the host, in C++ order:
``scale3 = scale_by[3]`` then ``scale3(x)`` in the kernel, like ``scale_by<3>(x)``.

Each instantiation gets its own shim calling ``::name<Args...>(...)``. Numba sees lowerings
registered before a compilation starts, not those registered while it types the kernel, so each
template registers one lowering at bind time under a key of its own (``types.VarArg(Any)``)
which looks the instantiation up by the signature typing chose.
"""

from __future__ import annotations

import functools
import logging
import re
import threading
from collections.abc import Iterable, Sequence
from typing import Any

from numba.cuda import types
from numba.cuda.core.errors import TypingError
from numba.cuda.typing.templates import AbstractTemplate

from ast_canopy.model import FunctionTemplate, Type
from numbast.dynamic.functions import FUNCTION_STUBS, runtime_call
from numbast.dynamic.numba_types import NUMBA_TYPE_TABLE
from numbast.planning.calls import plan_call
from numbast.planning.declarations import location_of, not_device_callable
from numbast.planning.diagnostics import BindingError, warn_skipped
from numbast.planning.intents import ArgIntent
from numbast.planning.operators import COMPOUND, python_operator_for
from numbast.planning.type_rules import UnsupportedTypeError, strip_cv
from numbast.runtime.calls import Call
from numbast.runtime.overloads import DEFAULT_REGISTRIES
from numbast.runtime.shim_library import ShimLibrary
from numbast.runtime.shim_text import function_call_body, shim_name_for
from numbast.templates.arguments import (
    NeedsProbe,
    Substitution,
    TemplateArgument,
    explicit_argument,
    unsupported_parameter,
)
from numbast.templates.deduction import Deduction, DeductionError
from numbast.templates.probe import (
    InstantiationOptions,
    Probe,
    complete_arguments,
    run_probe,
    search_dirs_of,
)

logger = logging.getLogger(__name__)

_LOCK = threading.RLock()
_STUBS: dict[str, FunctionTemplateStub] = {}


class FunctionTemplateStub:
    """What kernels call for a bound function template; ``stub[args]`` fixes leading template
    arguments explicitly (C++'s ``f<args>``) and returns another stub."""

    _numbast_stub_ = True  # a binding stub: its overload sets are its own (runtime.overloads)

    def __init__(self, qual_name: str, python_name: str, explicit: tuple = ()) -> None:
        self.__name__ = self.__qualname__ = python_name
        self.__doc__ = f"Device function template {qual_name} (bound from C++)."
        self._qual_name = qual_name
        self._explicit = explicit
        self._templates: list[tuple[ShimLibrary, FunctionTemplate, InstantiationOptions]] = []
        self._children: dict[tuple, FunctionTemplateStub] = {}

    def __call__(self, *args: Any) -> Any:
        raise TypeError(
            f"{self._qual_name} is a CUDA device function template bound from C++: call it "
            "inside a @cuda.jit kernel or device function"
        )

    def __repr__(self) -> str:
        explicit = f"[{', '.join(map(repr, self._explicit))}]" if self._explicit else ""
        return f"<function template {self._qual_name}{explicit}>"

    def __getitem__(self, arguments: Any) -> FunctionTemplateStub:
        given = self._explicit + (arguments if isinstance(arguments, tuple) else (arguments,))
        with _LOCK:
            child = self._children.get(_hashable(given))
            if child is not None:
                return child
            child = FunctionTemplateStub(self._qual_name, self.__name__, given)
            reasons = [child._add(*entry) for entry in self._templates]
            if not child._templates:
                raise TypeError(
                    f"{self._qual_name}[{', '.join(map(repr, given))}]: "
                    + "; ".join(r for r in reasons if r)
                )
            self._children[_hashable(given)] = child
            return child

    def _add(
        self,
        shim_writer: ShimLibrary,
        decl: FunctionTemplate,
        options: InstantiationOptions,
        also: tuple = (),
    ) -> str | None:
        """Register ``decl`` under this stub (and the keys in ``also``); returns why not when
        the explicit arguments do not fit it."""
        params = decl.template_parameters
        if len(self._explicit) > len(params):
            return f"{decl.qual_name} takes {len(params)} template argument(s)"
        try:
            explicit = tuple(
                explicit_argument(v, p) for v, p in zip(self._explicit, params, strict=False)
            )
        except TypeError as exc:
            return str(exc)
        self._templates.append((shim_writer, decl, options))
        instantiator = _Instantiator(shim_writer, decl, explicit, options, is_operator=False)
        for key in (self, *also):
            _register(key, instantiator)
        return None


def _hashable(arguments: tuple) -> tuple:
    return tuple((type(a), a) if isinstance(a, (bool, int)) else a for a in arguments)


class _Instantiator:
    """Deduces, instantiates and lowers one function template for one set of explicit
    arguments. Also the key its lowering is registered under."""

    def __init__(
        self,
        shim_writer: ShimLibrary,
        decl: FunctionTemplate,
        explicit: tuple[TemplateArgument, ...],
        options: InstantiationOptions,
        is_operator: bool,
    ) -> None:
        self.shim_writer = shim_writer
        self.decl = decl
        self.explicit = explicit
        self.options = options
        self.is_operator = is_operator
        self.params = decl.template_parameters
        # (template argument keys, arity) -> plan, or why there is none (asking clang again on
        # every typing attempt would cost a parse each time)
        self._plans: dict[tuple, Call | str] = {}
        self._by_signature: dict[tuple, Call] = {}  # formal argument types -> call
        self._lock = threading.Lock()

    # -- typing -----------------------------------------------------------------------------
    def signature_for(self, context, args: Sequence[types.Type], kws) -> Any:
        func = self.decl.function
        if kws:
            raise TypingError(f"{func.qual_name}: keyword arguments are not supported")
        args = tuple(types.unliteral(a) for a in args)
        required = sum(1 for p in func.params if p.default_value is None)
        if not required <= len(args) <= len(func.params):
            raise TypingError(f"{func.qual_name} takes {len(func.params)} argument(s)")
        arguments = self._arguments(args)
        plan = self._plan(arguments, len(args))
        for actual, formal in zip(args, plan.visible_args, strict=True):
            if actual != formal and context.can_convert(actual, formal) is None:
                raise TypingError(f"{self._spelling(arguments)}: cannot pass {actual} as {formal}")
        sig = plan.signature()
        with self._lock:
            self._by_signature[sig.args] = plan
        return sig

    def _arguments(self, args: tuple[types.Type, ...]) -> list[TemplateArgument]:
        if self.is_operator and not any(_is_bound_class(a) for a in args):
            # C++ overloads operators only for class and enum operands; without this an
            # unconstrained template would capture every int + int in every kernel.
            raise DeductionError("no operand is a bound C++ class or enum")
        deduction = Deduction(self.params, self.explicit)
        for param, actual in zip(self.decl.function.params, args, strict=False):
            deduction.deduce(param.type_, actual)
        try:
            return complete_arguments(
                self.params,
                deduction.arguments,
                self.shim_writer.preamble,
                self.options,
                self.decl.qual_name,
                search_dirs_of(self.decl.function.file),
                hint=f"give it explicitly: {self.decl.name}[...](...)",
            )
        except BindingError as exc:
            raise DeductionError(str(exc)) from None

    # -- instantiation ----------------------------------------------------------------------
    def _spelling(self, arguments: Sequence[TemplateArgument]) -> str:
        qual = self.decl.qual_name
        callee = qual if qual.startswith("::") else f"::{qual}"
        return f"{callee}<{', '.join(a.cxx for a in arguments)}>"

    def _plan(self, arguments: list[TemplateArgument], arity: int) -> Call:
        key = (tuple(a.key for a in arguments), arity)
        with self._lock:
            plan = self._plans.get(key)
        if plan is None:
            try:
                plan = self._make_plan(arguments, arity)
            except (BindingError, UnsupportedTypeError) as exc:
                # Instances cannot be made while Numba compiles (see the module docstring).
                hint = "; index the class template on the host first" if "<" in str(exc) else ""
                plan = f"{self._spelling(arguments)}: {exc}{hint}"
            with self._lock:
                self._plans[key] = plan
        if isinstance(plan, str):
            raise TypingError(plan)
        return plan

    def _make_plan(self, arguments: list[TemplateArgument], arity: int) -> Call:
        func = self.decl.function
        callee = self._spelling(arguments)
        substitution = Substitution(self.params, arguments)
        declared = [p.type_ for p in func.params[:arity]]
        probe = Probe()
        for index, declared_type in enumerate(declared):
            try:
                substitution.type(declared_type)
            except NeedsProbe as need:
                probe.types[f"nbi_p{index}"] = need.text
        params = [substitution.text(t.name) for t in declared]
        call = f"{callee}({', '.join(f'nbi_declval<{p}>()' for p in params)})"
        probe.types["nbi_r"] = f"decltype({call})"
        answer = None
        if _needs_clang(func.return_type, substitution) or len(probe.types) > 1:
            answer = run_probe(
                probe,
                self.shim_writer.preamble,
                self.options,
                callee,
                search_dirs_of(self.decl.function.file),
            )
            substitution.known.update(
                {text: answer.types[name] for name, text in probe.types.items() if name != "nbi_r"}
            )
        concrete = [substitution.type(t) for t in declared]
        result = (
            answer.types["nbi_r"] if answer is not None else substitution.type(func.return_type)
        )
        signature_text = f"{callee}({', '.join(t.canonical_name for t in concrete)})"
        role = re.sub(r"\W", "_", func.name)
        shim_name = shim_name_for("", signature_text, f"tmpl_{role}")
        compound = func.operator in COMPOUND
        if compound and not (concrete and concrete[0].is_lvalue_reference):
            raise BindingError(f"operator{func.operator} does not take its left operand by &")
        plan = plan_call(
            shim_name,
            [(t, ArgIntent.IN) for t in concrete],
            None if compound else result,
            functools.partial(function_call_body, callee),
            returns_first_argument=compound,
            type_table=NUMBA_TYPE_TABLE,
        )
        return runtime_call(plan)

    # -- lowering ---------------------------------------------------------------------------
    def lower(self, context, builder, sig, args):
        with self._lock:
            plan = self._by_signature[sig.args]
        return plan.lowering(self.shim_writer)(context, builder, sig, args)


def _needs_clang(return_type: Type, substitution: Substitution) -> bool:
    if strip_cv(return_type.name) in ("auto", "decltype(auto)"):
        return True
    try:
        substitution.type(return_type)
    except NeedsProbe:
        return True
    return False


def _is_bound_class(numba_type: types.Type) -> bool:
    return hasattr(numba_type, "cxx_qual_name") or isinstance(numba_type, types.IntEnumMember)


def _register(key: Any, instantiator: _Instantiator) -> None:
    class FunctionTemplateTyping(AbstractTemplate):
        def generic(self, args, kws):
            try:
                return instantiator.signature_for(self.context, args, kws)
            except TypingError as exc:
                if instantiator.is_operator:
                    # Most uses of an operator are not this template's business: let other
                    # overloads try, quietly.
                    logger.debug("%s does not apply: %s", instantiator.decl.qual_name, exc)
                    return None
                raise

        def get_impl_key(self, sig):
            return instantiator

    FunctionTemplateTyping.key = key
    DEFAULT_REGISTRIES.typing.register_global(key, types.Function(FunctionTemplateTyping))
    DEFAULT_REGISTRIES.lowering.lower(instantiator, types.VarArg(types.Any))(instantiator.lower)


def bind_cxx_function_template(
    shim_writer: ShimLibrary,
    templ_decl: FunctionTemplate,
    options: InstantiationOptions | None = None,
    python_name: str | None = None,
) -> Any:
    """Bind the function template ``templ_decl``; returns the stub kernels call (for an
    operator template, the ``operator`` function it binds to), or None when it is skipped
    (with one BindingSkippedWarning saying why).

    Function templates with the same qualified name share one stub; Numba tries them in the
    order they were bound. ``options`` say how to parse the header when clang must be asked
    about an instantiation (a return type such as ``decltype(a + b)``).
    """
    func = templ_decl.function
    options = options or InstantiationOptions()
    try:
        _check_bindable(templ_decl)
        if func.operator is not None:
            key = python_operator_for(func.operator, len(func.params))
            if key is None:
                raise BindingError(f"operator{func.operator} has no Python counterpart")
            _register(key, _Instantiator(shim_writer, templ_decl, (), options, is_operator=True))
            return key
    except BindingError as exc:
        warn_skipped("function template", _text(templ_decl), str(exc), location_of(func))
        return None
    with _LOCK:
        stub = _STUBS.get(func.qual_name)
        if stub is None:
            stub = _STUBS[func.qual_name] = FunctionTemplateStub(
                func.qual_name, python_name or func.name
            )
        # A C++ name can have plain overloads and templates. Whichever is bound first provides
        # the one object for that name; a plain stub bound earlier gets the templates too (tried
        # after its own overloads, as C++ prefers non-templates), this stub keeps the
        # subscription for explicit arguments.
        plain = FUNCTION_STUBS.adopt(func.qual_name, stub)
        stub._add(shim_writer, templ_decl, options, also=() if plain is stub else (plain,))
    return stub


def _check_bindable(templ_decl: FunctionTemplate) -> None:
    func = templ_decl.function
    if not func.exec_space.is_device_callable:
        raise BindingError(not_device_callable(func))
    if func.is_deleted or func.is_variadic:
        raise BindingError("it is deleted" if func.is_deleted else "it is variadic")
    reason = unsupported_parameter(templ_decl.template_parameters)
    if reason is not None:
        raise BindingError(reason)


def _text(templ_decl: FunctionTemplate) -> str:
    params = ", ".join(p.name for p in templ_decl.template_parameters)
    args = ", ".join(p.type_.name for p in templ_decl.function.params)
    return f"template <{params}> {templ_decl.qual_name}({args})"


def bind_cxx_function_templates(
    shim_writer: ShimLibrary,
    templ_decls: Iterable[FunctionTemplate],
    options: InstantiationOptions | None = None,
    exclude: Iterable[str] = (),
) -> list[Any]:
    """Bind every function template; returns the distinct stubs/operators bound."""
    excluded = set(exclude)
    bound: list[Any] = []
    for decl in templ_decls:
        if decl.name in excluded:
            continue
        result = bind_cxx_function_template(shim_writer, decl, options)
        if result is not None and result not in bound:
            bound.append(result)
    return bound


__all__ = [
    "FunctionTemplateStub",
    "InstantiationOptions",
    "bind_cxx_function_template",
    "bind_cxx_function_templates",
]

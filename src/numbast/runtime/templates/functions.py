"""Function templates in kernels: one stub per C++ name, instantiated when a kernel calls it.

Calling the stub deduces the template arguments from the Numba argument types, the way C++
deduces them; arguments C++ cannot deduce are given by subscripting the stub on the host, in C++
order (``scale_by[3]``, like ``scale_by<3>``), or as keywords in the call (``scale_by(x,
N=3)``), and the rest take their defaults. Each instance gets its own shim calling
``::name<Args...>(...)``. Numba sees lowerings registered before a compilation starts, so each
template registers one lowering when it is bound, under a key of its own, which finds the
instance by the signature typing chose.
"""

from __future__ import annotations

import functools
import logging
import operator as operator_module
import threading
from collections.abc import Sequence
from typing import Any

from numba.cuda import types
from numba.cuda.core.errors import TypingError
from numba.cuda.typing.templates import AbstractTemplate, Signature

from ...core import template_rows
from ...core.shim_text import function_call_body, operator_body
from ...core.template_rows import FunctionTemplateRow
from ..calls import Call
from ..overloads import is_bound_type
from .args import (
    Deduction,
    DeductionError,
    TemplateArgument,
    explicit_argument,
    template_id,
)
from .calls import (
    COMPOUND_OPERATORS,
    InstanceCalls,
    call_layout,
    check_arguments,
    deduce_from_call,
    intent_modes,
    keyword_arguments,
    lower_without_keywords,
    plan_instance_call,
    with_keywords,
)
from .completion import complete_arguments
from .context import TemplateContext
from .kernel_subscripts import install_kernel_subscripts
from .pickling import by_module_attribute
from .probe import TemplateInstantiationError

logger = logging.getLogger(__name__)


class FunctionTemplateStub:
    """What kernels call for a bound function template; ``stub[args]`` fixes leading template
    arguments explicitly (C++'s ``f<args>``) and returns another stub."""

    _numbast_stub_ = True  # a binding stub: its overload sets are its own (runtime.overloads)
    _numbast_template_ = True  # indexed with template arguments (also inside kernels)

    def __init__(
        self, qual_name: str, python_name: str, explicit: tuple = (), origin: str = ""
    ) -> None:
        self.__name__ = self.__qualname__ = python_name
        self.__module__ = origin  # the module that binds it, where it pickles by reference
        self._parent: FunctionTemplateStub | None = None
        self._numbast_qual_name_ = qual_name
        self._numbast_declarations_: list[str] = []
        self._explicit = explicit
        self._binders: list[FunctionTemplateBinder] = []
        self._children: dict[tuple, FunctionTemplateStub] = {}
        self._lock = threading.RLock()
        self.__doc__ = f"Device function template {qual_name} (bound from C++)."

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise TypeError(
            f"{self._numbast_qual_name_} is a CUDA device function template bound from C++: "
            "call it inside a @cuda.jit kernel or device function"
        )

    def __repr__(self) -> str:
        explicit = f"[{', '.join(map(repr, self._explicit))}]" if self._explicit else ""
        return f"<function template {self._numbast_qual_name_}{explicit}>"

    def __reduce__(self) -> tuple:
        """By reference: the module's attribute, subscripted with the same arguments."""
        if self._parent is not None:
            return operator_module.getitem, (
                self._parent,
                self._explicit[len(self._parent._explicit) :],
            )
        return by_module_attribute(self, self.__module__, self.__name__)

    def __getitem__(self, arguments: Any) -> FunctionTemplateStub:
        from ..deferred import run_pending

        run_pending()  # a module's templates join their stubs when its registrations run
        given = self._explicit + (arguments if isinstance(arguments, tuple) else (arguments,))
        key = tuple((type(a), a) if isinstance(a, (bool, int)) else a for a in given)
        with self._lock:
            child = self._children.get(key)
            if child is not None:
                return child
            child = FunctionTemplateStub(
                self._numbast_qual_name_, self.__name__, given, self.__module__
            )
            child._parent = self
            reasons = [child.add(binder) for binder in self._binders]
            if not child._binders:
                raise TypeError(
                    f"{self._numbast_qual_name_}[{', '.join(map(repr, given))}]: "
                    + "; ".join(r for r in reasons if r)
                )
            self._children[key] = child
            return child

    def add(self, binder: FunctionTemplateBinder, also: Sequence[Any] = ()) -> str | None:
        """Make ``binder``'s template callable through this stub (and the keys in ``also``);
        returns why not when the explicit arguments do not fit it."""
        params = binder.row.params
        if len(self._explicit) > len(params):
            return f"{binder.row.qual_name} takes {len(params)} template argument(s)"
        try:
            explicit = tuple(
                explicit_argument(v, p) for v, p in zip(self._explicit, params, strict=False)
            )
        except TypeError as exc:
            return str(exc)
        with self._lock:
            self._binders.append(binder)
        instantiator = _Instantiator(binder, explicit)
        for key in (self, *also):
            instantiator.register(key)
            # Plain overloads of the name give way to templates that deduce (C++'s order).
            deducers = getattr(key, "_numbast_template_deducers_", None)
            if deducers is None:
                deducers = []
                key._numbast_template_deducers_ = deducers
            deducers.append(instantiator.deduces)
        declaration = binder.row.callable.declaration
        if declaration and declaration not in self._numbast_declarations_:
            self._numbast_declarations_.append(declaration)
            self.__doc__ += f"\n    {declaration}"
        return None


class FunctionTemplateBinder:
    """One function template of one set of bindings."""

    def __init__(
        self, row: FunctionTemplateRow, context: TemplateContext, intents: Sequence[str] = ()
    ) -> None:
        """``intents``: the argument intent of each parameter of the function (``in``,
        ``inout_ptr``, ``out_ptr``, ``out_return``); none given: all ``in``."""
        self.row = template_rows.function_template_row(row)
        self.callable = self.row.callable
        self.params = self.row.params
        self.context = context
        self.modes = intent_modes(intents or self.callable.intents, len(self.callable.params))

    @property
    def is_operator(self) -> bool:
        return bool(self.row.operator)


class _Instantiator:
    """Deduces, instantiates and lowers one function template for one set of explicit
    arguments; also the key its lowering is registered under."""

    def __init__(self, binder: FunctionTemplateBinder, explicit: tuple[TemplateArgument, ...]):
        self.binder = binder
        self.explicit = explicit
        self._calls = InstanceCalls()  # by (argument keys, arity)
        self._by_signature: dict[tuple, Call] = {}
        self._lock = threading.Lock()

    def register(self, key: Any) -> None:
        instantiator = self

        class FunctionTemplateTyping(AbstractTemplate):
            def generic(self, args, kws):
                try:
                    return instantiator.signature_for(self.context, args, kws)
                except TypingError as exc:
                    if instantiator.binder.is_operator:
                        # Most uses of an operator are not this template's business: let
                        # other overloads try, quietly.
                        logger.debug(
                            "%s does not apply: %s", instantiator.binder.row.qual_name, exc
                        )
                        return None
                    raise

            def get_impl_key(self, sig):
                return instantiator

        FunctionTemplateTyping.key = key
        install_kernel_subscripts()  # f[types.int32](x) written inside a kernel
        registries = self.binder.context.registries
        registries.typing.register_global(key, types.Function(FunctionTemplateTyping))
        registries.lowering.lower(self, types.VarArg(types.Any))(self.lower)

    # -- typing -----------------------------------------------------------------------------
    def deduces(self, args: tuple) -> bool:
        """Whether the template's arguments can be deduced (or defaulted) from ``args`` alone,
        without instantiating it: a plain overload then only matches exactly (C++'s order)."""
        binder, row = self.binder, self.binder.callable
        deduction = Deduction(binder.params, self.explicit)
        try:
            layout = call_layout(row.params, binder.modes, len(args), binder.row.qual_name)
            deduce_from_call(deduction, row.params, binder.modes, layout, args)
        except TypingError:
            return False
        return all(
            index in deduction.arguments or param.default is not None
            for index, param in enumerate(binder.params)
        )

    def signature_for(self, typing_context, args, kws) -> Signature | None:
        binder, row = self.binder, self.binder.callable
        args = tuple(types.unliteral(a) for a in args)
        keywords, others = keyword_arguments(binder.params, dict(kws or {}))
        if others:
            raise TypingError(
                f"{binder.row.qual_name}: {', '.join(others)} is no template parameter (call "
                "arguments are positional)"
            )
        if any(value is None for value in keywords.values()):
            return None  # a value parameter given as a non-constant: Numba retries with literals
        layout = call_layout(row.params, binder.modes, len(args), binder.row.qual_name)
        if binder.is_operator and not any(is_bound_type(a) for a in args):
            # C++ overloads operators only for class and enum operands; without this an
            # unconstrained template would capture every int + int in every kernel.
            raise DeductionError("no operand is a bound C++ class or enum")
        deduction = Deduction(binder.params, self.explicit)
        for index, argument in keywords.items():
            deduction.bind(index, argument)
        deduce_from_call(deduction, row.params, binder.modes, layout, args)
        try:
            arguments = complete_arguments(
                binder.context,
                binder.params,
                deduction.arguments,
                binder.row.qual_name,
                hint=f"give it explicitly: {binder.row.python_name or 'f'}[...](...) or by name",
            )
            call = self._call(arguments, len(layout))
        except TemplateInstantiationError as exc:
            raise TypingError(str(exc)) from None
        check_arguments(typing_context, args, call.visible_args, self._callee(arguments))
        sig = with_keywords(call.signature(), kws or {})
        with self._lock:
            self._by_signature[sig.args] = call
        return sig

    def _callee(self, arguments: Sequence[TemplateArgument]) -> str:
        return template_id(self.binder.row.qual_name, arguments)

    def _call(self, arguments: list[TemplateArgument], arity: int) -> Call:
        """The instance's call with the first ``arity`` parameters (trailing defaulted ones
        left out)."""
        key = (tuple(a.key for a in arguments), arity)
        make = functools.partial(self._instantiate, arguments, arity)
        return self._calls.get(key, make, self._callee(arguments))

    # -- instantiation ----------------------------------------------------------------------
    def _instantiate(self, arguments: list[TemplateArgument], arity: int) -> Call:
        binder, row, context = self.binder, self.binder.callable, self.binder.context
        callee = self._callee(arguments)
        parameter_types, result = context.callable_types(
            row.params[:arity],
            row.result,
            arguments,
            lambda values: f"{callee}({values})",
            callee,
            lambda unknown: ["function", row.declaration, callee, arity, sorted(unknown.items())],
        )
        compound = binder.row.operator in COMPOUND_OPERATORS
        if binder.is_operator:
            body = functools.partial(operator_body, row.cxx_name)
        else:
            body = functools.partial(function_call_body, callee)
        plan = plan_instance_call(
            row,
            parameter_types,
            None if compound else result,
            body,
            callee=callee,
            returns_first_argument=compound,
            modes=binder.modes[:arity],
        )
        return Call.from_plan(plan)

    # -- lowering ---------------------------------------------------------------------------
    def lower(self, context, builder, sig, args):
        with self._lock:
            call = self._by_signature[sig.args]
        library = self.binder.context.library
        count = len(call.visible_args)
        return lower_without_keywords(call, library, count)(context, builder, sig, args)


def bind_operator_template(binder: FunctionTemplateBinder) -> Any:
    """Bind an operator template to its Python operator; returns the ``operator`` function."""
    key = getattr(operator_module, binder.row.operator)
    _Instantiator(binder, ()).register(key)
    return key


__all__ = ["FunctionTemplateBinder", "FunctionTemplateStub", "bind_operator_template"]

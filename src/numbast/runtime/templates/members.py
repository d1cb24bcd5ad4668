"""Member function templates: ``obj.method(args)`` in a kernel, instantiated when called.

The method's own template arguments are deduced from the call's arguments, given by name
(``box.as_type(U=np.float32)``), or defaulted; the class's are those of the object's type (an
instance of a class template) or none (a plain struct). Each instance calls
``obj.method<Args...>(...)`` through a shim of its own, lowered under one key per method name.
A non-const member template works on a copy of the object (unlike non-template methods, it
does not update the object in place).
"""

from __future__ import annotations

import functools
import logging
import operator as operator_module
from collections.abc import Sequence
from typing import Any

from numba.cuda import types
from numba.cuda.core.errors import TypingError
from numba.cuda.typing.templates import AbstractTemplate, AttributeTemplate, signature

from ...core.call_plans import ShimValue
from ...core.rows import OPERATOR
from ...core.shim_text import method_call_body, operator_body
from ...core.template_rows import TemplateCallableRow, callable_row
from ..calls import Call
from ..cxx_types import cxx_spelling_of
from ..structs import add_member_template_names, method_overloads
from .args import Deduction, TemplateArgument
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
from .probe import TemplateInstantiationError

logger = logging.getLogger(__name__)

CALL_OPERATOR = "__call__"  # planning.templates binds operator() under this name


def add_member_templates(
    numba_type: types.Type,
    rows: Sequence[Any],
    class_arguments: Sequence[TemplateArgument],
    context: TemplateContext,
) -> None:
    """Make the member templates ``rows`` callable on objects of ``numba_type``."""
    by_name: dict[str, list[_MemberTemplate]] = {}
    for row in map(callable_row, rows):
        member = _MemberTemplate(row, numba_type, tuple(class_arguments), context)
        if row.kind == OPERATOR:
            _bind_operator(member)
            continue
        by_name.setdefault(row.name, []).append(member)
    templates = {name: _typing_template(name, members) for name, members in by_name.items()}
    add_member_template_names(numba_type, templates)

    class MemberTemplateAttributes(AttributeTemplate):
        key = type(numba_type)

        def generic_resolve(self, value_type, attr):
            template = templates.get(attr)
            return types.BoundFunction(template, value_type) if template else None

    context.registries.typing.register_attr(MemberTemplateAttributes)


def _typing_template(name: str, members: list[_MemberTemplate]) -> type:
    dispatcher = _Dispatcher(members)
    for member in members:
        member.dispatcher = dispatcher

    class MemberTemplateCall(AbstractTemplate):
        key = dispatcher

        def generic(self, args, kws):
            plain = method_overloads(self.this, name)
            if plain is not None and not kws:
                # A plain method of the name that takes these arguments is preferred.
                sig = plain(self.context).apply(args, kws)
                if sig is not None:
                    dispatcher.plain[(self.this, *sig.args)] = plain
                    return sig
            failures = []
            for member in members:
                try:
                    sig = member.signature_for(self.context, self.this, args, kws)
                except TypingError as exc:
                    failures.append(str(exc))
                    continue
                if sig is not None:
                    return sig
            if failures:
                raise TypingError("; ".join(failures))
            return None

    registries = members[0].context.registries
    registries.lowering.lower(dispatcher, types.VarArg(types.Any))(dispatcher.lower)
    if name == CALL_OPERATOR:
        # ``f(args)`` on a functor whose operator() is a template (``cuda::std::plus<>``).
        this_type = members[0].numba_type
        registries.lowering.lower(this_type, types.VarArg(types.Any))(dispatcher.lower)
    return MemberTemplateCall


def _bind_operator(member: _MemberTemplate) -> None:
    """A member operator template (``template <class U> Pair &operator+=(const Pair<U> &)``)
    on its Python operator: it applies when the left operand is the object's type."""
    dispatcher = _Dispatcher([member])
    member.dispatcher = dispatcher
    key = getattr(operator_module, member.row.name)

    class MemberOperatorTemplate(AbstractTemplate):
        def generic(self, args, kws):
            if kws or not args or types.unliteral(args[0]) != member.numba_type:
                return None
            try:
                sig = member.signature_for(self.context, args[0], args[1:], {})
            except TypingError as exc:
                logger.debug("%s does not apply: %s", member.row.declaration, exc)
                return None
            return signature(sig.return_type, args[0], *sig.args)

        def get_impl_key(self, sig):
            return dispatcher

    MemberOperatorTemplate.key = key
    registries = member.context.registries
    registries.typing.register_global(key, types.Function(MemberOperatorTemplate))
    registries.lowering.lower(dispatcher, types.VarArg(types.Any))(dispatcher.lower)


class _Dispatcher:
    """The lowering key of one method name: finds the instance typing chose."""

    def __init__(self, members: list[_MemberTemplate]) -> None:
        self.members = members
        self.calls: dict[tuple, Call] = {}
        self.plain: dict[tuple, type] = {}  # calls typing gave to a plain method of the name

    def lower(self, context, builder, sig, args):
        plain = self.plain.get(sig.args)
        if plain is not None and sig.args not in self.calls:
            method = types.BoundFunction(plain, sig.args[0])
            return context.get_function(method, sig)(builder, args)
        call = self.calls[sig.args]
        library = self.members[0].context.library
        count = len(call.visible_args)  # the receiver and the arguments the call passes
        return lower_without_keywords(call, library, count)(context, builder, sig, args)


class _MemberTemplate:
    def __init__(
        self,
        row: TemplateCallableRow,
        numba_type: types.Type,
        class_arguments: tuple[TemplateArgument, ...],
        context: TemplateContext,
    ) -> None:
        self.row = row
        self.numba_type = numba_type
        self.class_arguments = class_arguments
        self.context = context
        self._calls = InstanceCalls()  # by argument keys
        self.dispatcher: _Dispatcher | None = None  # set when its method name is registered
        self.modes = intent_modes(row.intents, len(row.params))

    def signature_for(self, typing_context, this, args, kws):
        row, own = self.row, self.row.own_params
        args = tuple(types.unliteral(a) for a in args)
        keywords, others = keyword_arguments(own, dict(kws or {}))
        if others:
            raise TypingError(f"{row.declaration}: {', '.join(others)} is no template parameter")
        if any(value is None for value in keywords.values()):
            # A value given as a non-constant: raising (not returning None) makes Numba's
            # bound-method typing retry with literal values.
            raise TypingError(f"{row.declaration}: template arguments by name are constants")
        layout = call_layout(row.params, self.modes, len(args), row.declaration)
        if len(layout) != len(row.params):
            raise TypingError(f"{row.declaration}: give every argument")
        offset = len(self.class_arguments)
        deduction = Deduction((*self._class_params(), *own), self.class_arguments)
        for index, argument in keywords.items():
            deduction.bind(offset + index, argument)
        deduce_from_call(deduction, row.params, self.modes, layout, args)
        # Defaults may name the class's parameters (``template <int M = N>``): complete the
        # class's and the method's arguments together, numbered as the row numbers them.
        given = dict(enumerate(self.class_arguments))
        given.update({i: a for i, a in deduction.arguments.items() if i >= offset})
        try:
            complete = complete_arguments(
                self.context,
                (*self._class_params(), *own),
                given,
                row.declaration,
                hint="give it by name",
            )
            own_arguments = complete[offset:]
            call = self._call([*self.class_arguments, *own_arguments], own_arguments)
        except TemplateInstantiationError as exc:
            raise TypingError(str(exc)) from None
        formals = call.visible_args[1:]
        check_arguments(typing_context, args, formals, row.declaration)
        sig = with_keywords(signature(call.numba_return_type, *formals, recvr=this), kws or {})
        self.dispatcher.calls[(this, *sig.args)] = call
        return sig

    def _class_params(self) -> tuple:
        from ...core.template_rows import TemplateParamRow

        return tuple(TemplateParamRow(a.cxx, "type", "", None) for a in self.class_arguments)

    def _call(self, arguments: list[TemplateArgument], own: list[TemplateArgument]) -> Call:
        key = tuple(a.key for a in arguments)
        make = functools.partial(self._instantiate, arguments, own)
        return self._calls.get(key, make, self.row.declaration)

    def _instantiate(self, arguments: list[TemplateArgument], own: list[TemplateArgument]) -> Call:
        row, context = self.row, self.context
        this = cxx_spelling_of(self.numba_type)
        name = f"operator{row.cxx_name}" if row.kind == OPERATOR else row.cxx_name
        method = f"{name}<{', '.join(a.cxx for a in own)}>"
        params, result = context.callable_types(
            row.params,
            row.result,
            arguments,
            lambda values: f"nbi_probe::declval<::{this} &>().{method}({values})",
            f"::{this}::{method}",
            lambda _unknown: ["member", row.declaration, this, method],
        )
        object_value = ShimValue(self.numba_type, this, align=self.numba_type.alignof_)
        compound = row.kind == OPERATOR and row.name in COMPOUND_OPERATORS
        if row.kind == OPERATOR:  # spelled as an expression: C++ deduces the same arguments
            body = functools.partial(operator_body, row.cxx_name)
        else:
            body = functools.partial(method_call_body, method)
        plan = plan_instance_call(
            row,
            params,
            None if compound else result,
            body,
            callee=f"::{this}::{method}",
            object_value=object_value,
            modes=self.modes,
            returns_first_argument=compound,
        )
        return Call.from_plan(plan)

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
from collections.abc import Sequence
from typing import Any

from numba.cuda import types
from numba.cuda.core.errors import TypingError
from numba.cuda.typing.templates import AbstractTemplate, AttributeTemplate, signature

from ...core.call_plans import ShimValue
from ...core.rows import TemplateCallableRow, callable_row
from ...core.shim_text import method_call_body
from ..calls import Call
from ..cxx_types import cxx_spelling_of
from .args import Deduction, TemplateArgument
from .calls import (
    InstanceCalls,
    call_layout,
    deduce_from_call,
    keyword_arguments,
    lower_without_keywords,
    plan_instance_call,
    with_keywords,
)
from .context import TemplateContext, complete_arguments
from .probe import TemplateInstantiationError

logger = logging.getLogger(__name__)


def add_member_templates(
    numba_type: types.Type,
    rows: Sequence[Any],
    class_arguments: Sequence[TemplateArgument],
    context: TemplateContext,
) -> None:
    """Make the member templates ``rows`` callable on objects of ``numba_type``."""
    by_name: dict[str, list[_MemberTemplate]] = {}
    for row in map(callable_row, rows):
        by_name.setdefault(row.name, []).append(
            _MemberTemplate(row, numba_type, tuple(class_arguments), context)
        )
    templates = {name: _typing_template(name, members) for name, members in by_name.items()}

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
    return MemberTemplateCall


class _Dispatcher:
    """The lowering key of one method name: finds the instance typing chose."""

    def __init__(self, members: list[_MemberTemplate]) -> None:
        self.members = members
        self.calls: dict[tuple, Call] = {}

    def lower(self, context, builder, sig, args):
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
        owner = getattr(numba_type, "template_qual_name", None) or cxx_spelling_of(numba_type)
        self.modes = context.member_modes(owner, row)

    def signature_for(self, typing_context, this, args, kws):
        row, own = self.row, self.row.own_params
        args = tuple(types.unliteral(a) for a in args)
        keywords, others = keyword_arguments(own, dict(kws or {}))
        if others:
            raise TypingError(f"{row.declaration}: {', '.join(others)} is no template parameter")
        if any(value is None for value in keywords.values()):
            return None  # a value given as a non-constant: Numba retries with literals
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
        for actual, formal in zip(args, formals, strict=True):
            if actual != formal and typing_context.can_convert(actual, formal) is None:
                raise TypingError(f"{row.declaration}: cannot pass {actual} as {formal}")
        sig = with_keywords(signature(call.numba_return_type, *formals, recvr=this), kws or {})
        self.dispatcher.calls[(this, *sig.args)] = call
        return sig

    def _class_params(self) -> tuple:
        from ...core.rows import TemplateParamRow

        return tuple(TemplateParamRow(a.cxx, "type", "", None) for a in self.class_arguments)

    def _call(self, arguments: list[TemplateArgument], own: list[TemplateArgument]) -> Call:
        key = tuple(a.key for a in arguments)
        make = functools.partial(self._instantiate, arguments, own)
        return self._calls.get(key, make, self.row.declaration)

    def _instantiate(self, arguments: list[TemplateArgument], own: list[TemplateArgument]) -> Call:
        row, context = self.row, self.context
        this = cxx_spelling_of(self.numba_type)
        method = f"{row.cxx_name}<{', '.join(a.cxx for a in own)}>"
        params, result = context.callable_types(
            row.params,
            row.result,
            arguments,
            lambda values: f"nbi_probe::declval<::{this} &>().{method}({values})",
            f"::{this}::{method}",
            lambda _unknown: ["member", row.declaration, this, method],
        )
        object_value = ShimValue(self.numba_type, this, align=self.numba_type.alignof_)
        plan = plan_instance_call(
            row,
            params,
            result,
            functools.partial(method_call_body, method),
            callee=f"::{this}::{method}",
            object_value=object_value,
            modes=self.modes,
        )
        return Call.from_plan(plan)

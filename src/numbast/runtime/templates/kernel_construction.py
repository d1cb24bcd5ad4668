"""Class templates constructed inside kernels: ``Vec(x, T=np.float32, N=3)``.

Numba types such a call with the template's arguments given by name and the rest deduced from
the constructor's arguments (class template argument deduction), then the instance's own
constructor (a struct binding: ``ClassTemplateBinder.instance`` makes it); the call lowers to
that constructor. Binding the template and making its instances is ``classes``'s job.
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from numba.cuda import types
from numba.cuda.core.errors import TypingError
from numba.cuda.typing.templates import AbstractTemplate, signature

from ...core import rows
from ...core.template_rows import TemplateCallableRow
from ..element_assignment import enable_for_template
from .args import Deduction, DeductionError, TemplateArgument
from .calls import keyword_arguments
from .kernel_subscripts import install_kernel_subscripts
from .member_types import install_kernel_member_types
from .probe import TemplateInstantiationError

if TYPE_CHECKING:
    from .classes import ClassTemplateBinder


def register_kernel_construction(binder: ClassTemplateBinder) -> None:
    """Make ``Template(args, T=..., N=...)`` construct ``binder``'s instances inside kernels."""
    calls: dict[tuple, tuple] = {}  # signature args -> (constructor function type, sig, kept)

    class ClassTemplateCall(AbstractTemplate):
        key = binder.stub

        def generic(self, args, kws):
            return _type_kernel_call(binder, self.context, args, dict(kws), calls)

        def get_impl_key(self, sig):
            return binder

    def lower(context, builder, sig, args):
        function_type, ctor_sig, kept = calls[sig.args]
        implementation = context.get_function(function_type, ctor_sig)
        return implementation(builder, [args[i] for i in kept])

    registries = binder.context.registries
    install_kernel_member_types(registries)
    install_kernel_subscripts()  # M.Box[types.int64] written inside a kernel
    enable_for_template(binder.row, registries)  # v[i] = x on its instances
    registries.typing.register_global(binder.stub, types.Function(ClassTemplateCall))
    registries.lowering.lower(binder, types.VarArg(types.Any))(lower)


def _type_kernel_call(
    binder: ClassTemplateBinder,
    typing_context: Any,
    args: Sequence[types.Type],
    kws: dict[str, types.Type],
    calls: dict[tuple, tuple],
) -> Any:
    args = tuple(args)
    template_kws, ctor_kws = keyword_arguments(binder.params, kws)
    if any(value is None for value in template_kws.values()):
        return None  # a value given as a non-constant: Numba retries with literals
    constructors = [
        c for c in map(TemplateCallableRow._make, binder.row.members) if c.kind == rows.CONSTRUCTOR
    ]
    most = max((len(c.params) for c in constructors), default=0)
    if len(args) > most:
        names = ", ".join(f"{p.name}=..." for p in binder.params)
        raise TypingError(
            f"{binder.row.qual_name}: expected at most {most} constructor args, got "
            f"{len(args)} positional args; template arguments are given by name ({names})"
        )
    try:
        arguments, order = _deduce_from_constructor(
            binder, constructors, args, template_kws, ctor_kws
        )
        stub = binder.instance(arguments)
    except TemplateInstantiationError as exc:
        raise TypingError(str(exc)) from None
    ctor_args = [types.unliteral(a) for a in args] + [ctor_kws[n] for n in order]
    function_type = typing_context.resolve_value_type(stub)
    ctor_sig = typing_context.resolve_function_type(function_type, tuple(ctor_args), {})
    if ctor_sig is not None and binder.is_ambiguous(stub._cxx_name_, tuple(ctor_sig.args)):
        raise TypingError(
            f"Ambiguous constructor selection for {stub._cxx_name_}: more than one "
            f"constructor takes ({', '.join(map(str, ctor_sig.args))})"
        )
    if ctor_sig is None:
        raise TypingError(
            f"{stub._cxx_name_} has no constructor taking ({', '.join(map(str, ctor_args))})"
        )
    names = [f"arg{i}" for i in range(len(args))] + list(kws)
    all_types = list(args) + [kws[name] for name in kws]
    kept = list(range(len(args))) + [len(args) + list(kws).index(n) for n in order]
    pysig = inspect.Signature(
        [inspect.Parameter(n, inspect.Parameter.POSITIONAL_OR_KEYWORD) for n in names]
    )
    sig = signature(ctor_sig.return_type, *all_types)
    sig = sig.replace(pysig=pysig)
    calls[tuple(all_types)] = (function_type, ctor_sig, kept)
    return sig


def _deduce_from_constructor(
    binder: ClassTemplateBinder,
    constructors: Sequence[TemplateCallableRow],
    args: tuple,
    template_kws: Mapping[int, TemplateArgument],
    ctor_kws: Mapping[str, types.Type],
) -> tuple[list[TemplateArgument], list[str]]:
    """Template arguments from the keywords and, for the rest, from the constructor arguments
    (class template argument deduction); and the order of constructor keywords."""
    failures = []
    for ctor in constructors or [None]:
        deduction = Deduction(binder.params, ())
        for index, argument in template_kws.items():
            deduction.bind(index, argument)
        order: list[str] = []
        try:
            if ctor is not None:
                names = [name for name, _t, _d in ctor.params]
                if not set(ctor_kws) <= set(names[len(args) :]):
                    raise DeductionError(f"no constructor parameters {sorted(ctor_kws)}")
                order = [n for n in names[len(args) :] if n in ctor_kws]
                given = list(args) + [ctor_kws[n] for n in order]
                for (_n, type_row, _d), actual in zip(ctor.params, given, strict=False):
                    deduction.deduce(type_row.pattern, actual)
            elif ctor_kws:
                raise DeductionError(f"no constructor takes {sorted(ctor_kws)}")
            return binder.complete(deduction.arguments), order
        except (DeductionError, TemplateInstantiationError) as exc:
            failures.append(str(exc))
    raise TemplateInstantiationError(f"{binder.row.qual_name}: {'; '.join(failures)}")

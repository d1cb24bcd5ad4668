"""Overload sets in numba-cuda-mlir: the typing of every bound callable and its one lowering.

As in numba-cuda (``numbast.runtime.overloads``), all overloads of one key (a function stub, a
struct stub, a method, a Python operator or builtin) share one ConcreteTemplate, so the typing
picks among them by overload resolution. numba-cuda-mlir finds a lowering by the types of the
call site's variables, not by the signature the typing chose, so each key has one lowering that
resolves the overload again from those types and converts the arguments to its parameters
(``calls.convert``). Keys that are ours (stubs, methods) take that lowering for any arguments;
Python operators and builtins take it for exactly the argument types the typing accepted (so
numba-cuda-mlir's own lowerings of ``+`` on numbers stay theirs), registered as the typing
accepts them. Operators and builtins apply only when an operand is a bound type, as in C++.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any

from numba_cuda_mlir import types as mlir_types
from numba_cuda_mlir.extending import lowering_registry, typing_registry
from numba_cuda_mlir.numba_cuda.types import unliteral
from numba_cuda_mlir.numba_cuda.typing.templates import (
    AttributeTemplate,
    ConcreteTemplate,
    Signature,
)

from ..runtime.state import LOCK, shared_table
from .calls import convert
from .type_translation import is_bound_type

# (builder, argument values converted to the overload's parameters) -> the call's value
Lowering = Callable[[Any, list], Any]

# key -> its OverloadSet; method keys are "<C++ type>.<name>" strings
_SETS: dict[Hashable, OverloadSet] = shared_table("mlir_overload_sets", dict)


class _Overloads(ConcreteTemplate):
    overloads: OverloadSet


class _StubOverloads(_Overloads):
    """The overloads of a key of ours (a stub or a method)."""


class _BuiltinOverloads(_Overloads):
    """Overloads added to a Python operator or builtin: only for bound-type operands; the
    argument types accepted get the lowering."""

    def apply(self, args, kws):
        if not any(is_bound_type(a) for a in args):
            return None
        sig = super().apply(args, kws)
        if sig is not None:
            self.overloads.lower_exactly(tuple(args))
        return sig


class OverloadSet:
    """The overloads of one key: their signatures (the typing template's cases) and, by
    parameter types, how each is lowered."""

    def __init__(self, key: Hashable, label: str, builtin: bool) -> None:
        self.key = key
        self.builtin = builtin
        self.lowerings: dict[tuple, Lowering] = {}
        self._lowered: set[tuple] = set()
        base = _BuiltinOverloads if builtin else _StubOverloads
        self.template = type(
            f"numbast_mlir_{label}_overloads", (base,), {"key": key, "cases": [], "overloads": self}
        )
        if not builtin:
            lowering_registry.lower(key, mlir_types.VarArg(mlir_types.Any))(self.lower)

    def add(self, sig: Signature, lowering: Lowering) -> bool:
        """``sig``'s arguments call ``lowering``; False when that signature is bound already."""
        args = tuple(sig.args)
        with LOCK:
            if args in self.lowerings:
                return False
            self.lowerings[args] = lowering
            self.template.cases.append(sig)
        return True

    def lower_exactly(self, args: tuple) -> None:
        """Lower calls with exactly these argument types here (operators, builtins)."""
        with LOCK:
            if args in self._lowered:
                return
            self._lowered.add(args)
        lowering_registry.lower(self.key, *args)(self.lower)
        from numba_cuda_mlir.descriptor import mlir_target

        mlir_target.target_context.refresh()  # the lowering is looked up after this typing

    def lower(self, builder, target, args, kws) -> None:
        """numba-cuda-mlir's lowering of a call: ``args`` are the call site's variables."""
        actual = [builder.get_numba_type(arg.name) for arg in args]
        sig = self.resolve(builder.context.typing_context, actual)
        if sig is None:
            raise TypeError(f"numbast: no overload of {self.key} takes {actual} when lowering")
        values = [builder.load_var(arg) for arg in args]
        builder.store_var(target, self.lower_values(builder, sig, values, actual))

    def lower_values(self, builder, sig: Signature, values: list, actual: list) -> Any:
        """The value of the overload ``sig`` called with ``values`` of types ``actual``."""
        formal = tuple(sig.args) if sig.recvr is None else (sig.recvr, *sig.args)
        converted = [
            convert(builder, value, at, ft)
            for value, at, ft in zip(values, actual, formal, strict=True)
        ]
        return self.lowerings[tuple(sig.args)](builder, converted)

    def resolve(self, typing_context, actual: list) -> Signature | None:
        """The overload the typing chose for ``actual`` (with literals, then without)."""
        template = self.template(typing_context)
        receiver = actual[0] if self.template.cases and self.template.cases[0].recvr else None
        args = actual[1:] if receiver is not None else actual
        for attempt in (tuple(args), tuple(unliteral(a) for a in args)):
            sig = _ConcreteOnly.apply(template, attempt, {})
            if sig is not None:
                return sig
        return None


class _ConcreteOnly:
    """ConcreteTemplate's own resolution, without the bound-type check of _BuiltinOverloads
    (which also registers lowerings) when the lowering asks again."""

    @staticmethod
    def apply(template: _Overloads, args: tuple, kws: dict) -> Signature | None:
        return ConcreteTemplate.apply(template, args, kws)


def find_overload_set(key: Hashable) -> OverloadSet | None:
    """The overload set of ``key`` when it has one."""
    return _SETS.get(key)


def overload_set(
    key: Hashable, label: str, builtin: bool = False, method: bool = False
) -> OverloadSet:
    """The overload set of ``key``, made and registered the first time (a method's is reached
    through its type's attribute, not as a global)."""
    with LOCK:
        found = _SETS.get(key)
        if found is None:
            found = _SETS[key] = OverloadSet(key, label, builtin)
            if not method:
                typing_registry.register_global(key, mlir_types.Function(found.template))
        return found


def add_overload(
    key: Hashable, sig: Signature, lowering: Lowering, label: str, builtin: bool = False
) -> bool:
    """``key(*sig.args)`` types as ``sig`` and lowers with ``lowering``. ``builtin``: ``key``
    is a Python operator or builtin (applies to bound-type operands only)."""
    return overload_set(key, label, builtin).add(sig, lowering)


def add_methods(
    numba_type: Any, qual_name: str, methods: dict[str, list[tuple[Signature, Lowering]]]
) -> None:
    """Methods of ``numba_type`` by name -> overloads as (signature with the receiver,
    lowering taking the object first)."""
    templates = {}
    for name, overloads in methods.items():
        found = overload_set(f"{qual_name}.{name}", f"method_{name}", method=True)
        for sig, lowering in overloads:
            found.add(sig, lowering)
        templates[name] = found.template

    class MethodAttributes(AttributeTemplate):
        key = type(numba_type)

        def generic_resolve(self, value_type, attr):
            template = templates.get(attr)
            return None if template is None else mlir_types.BoundFunction(template, value_type)

    typing_registry.register_attr(MethodAttributes)

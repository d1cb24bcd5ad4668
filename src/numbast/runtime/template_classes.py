"""Class templates: ``Vec[types.float32, 3]`` on the host, ``Vec(T=np.float32, N=3)`` in a
kernel, and the instances they make, bound as structs through the one apply path.

An instance is a struct whose members are the template's with the arguments substituted. Its
layout (size, alignment, field offsets) and the types substitution cannot tell are asked of the
compiler once (``template_probe``) and recorded in the bindings' instance store. An explicit
specialization written in the header is bound as a struct when the bindings load, and is what
indexing with its arguments returns; a partial specialization provides the members of the
instances it matches.
"""

from __future__ import annotations

import functools
import inspect
import logging
import threading
from collections.abc import Mapping, Sequence
from typing import Any

from numba.cuda import types
from numba.cuda.core.errors import TypingError
from numba.cuda.typing.templates import AbstractTemplate, signature

from . import rows
from .apply import apply_struct, make_struct_type_of
from .call_plans import ShimValue
from .row_writer import RowWriter
from .rows import (
    ClassTemplateRow,
    MemberRow,
    StructBodyRow,
    StructRow,
    TemplateCallableRow,
)
from .shim_text import (
    constructor_body,
    conversion_body,
    function_call_body,
    method_call_body,
    operator_body,
)
from .struct_padding import FieldSlot, padded_members
from .template_args import (
    Deduction,
    DeductionError,
    TemplateArgument,
    explicit_argument,
    substitute,
    template_id,
    type_argument,
    value_argument,
)
from .template_calls import keyword_arguments, needs_compiler_for_result, plan_instance_call
from .template_probe import NO_COUNTERPART, Probe, TemplateInstantiationError
from .templates import (
    NEEDS_COMPILER,
    TemplateContext,
    complete_arguments,
    refresh_numba,
    register_instance_spelling,
)

logger = logging.getLogger(__name__)

_BEING_MADE = types.Opaque("numbast_instance_being_made")
_NO_OFFSETOF: list = []  # set once NVRTC turns out to lack __builtin_offsetof
_COMPOUND = frozenset(
    {"iadd", "isub", "imul", "itruediv", "imod", "iand", "ior", "ixor", "ilshift", "irshift"}
)


class _ClassTemplateType(type):
    """The metaclass of bound class templates: a bound template is a class (as NVIDIA's
    Numbast makes it), indexed with template arguments on the host, called in kernels."""

    _binder: ClassTemplateBinder

    def __getitem__(cls, arguments: Any) -> type:
        raw = arguments if isinstance(arguments, tuple) else (arguments,)
        return cls._binder.instantiate(raw)

    def __call__(cls, *args: Any, **kwargs: Any) -> Any:
        binder = cls._binder
        params = ", ".join(p.name for p in binder.params)
        name = binder.row.python_name
        raise TypeError(
            f"{binder.row.qual_name} is a class template: give its template arguments "
            f"({params}) first, e.g. {name}[types.float32, ...](...), or by name "
            f"inside a kernel, {name}(..., {binder.params[0].name}=...)"
        )

    def __repr__(cls) -> str:
        return f"<class template {cls._binder.row.qual_name}>"

    @property
    def instances(cls) -> dict[str, type]:
        """The instantiations bound so far, by C++ spelling."""
        return cls._binder.instances()


class ClassTemplateStub(metaclass=_ClassTemplateType):
    """Base of bound class templates: ``Vec[types.float32, 3]`` -> the struct stub of
    ``Vec<float, 3>``; ``Vec(x, T=np.float32, N=3)`` in a kernel constructs one."""

    _numbast_stub_ = True  # a binding stub (kernels call it with template arguments by name)


def _class_template_stub(binder: ClassTemplateBinder) -> type[ClassTemplateStub]:
    # NVIDIA's Numbast names the object of a class template by its qualified C++ name.
    qual_name = binder.row.qual_name.removeprefix("::")
    return _ClassTemplateType(
        qual_name,
        (ClassTemplateStub,),
        {
            "_binder": binder,
            "__qualname__": qual_name,
            "__doc__": f"CUDA C++ class template {binder.row.qual_name} (bound from C++).",
        },
    )


class ClassTemplateBinder:
    """One class template of one set of bindings, and its instances."""

    def __init__(
        self,
        row: ClassTemplateRow,
        context: TemplateContext,
        specialization_types: Mapping[tuple[str, ...], types.Type] = (),
        register: bool = True,
    ) -> None:
        """``register``: register the kernel-time construction with Numba now (else call
        :meth:`register` before kernels use it)."""
        self.row = rows.class_template_row(row)
        self.params = self.row.params
        self.context = context
        self._stubs: dict[tuple, type] = {}
        self._types: dict[tuple, types.Type] = {}  # made (or being made): members refer to them
        self._making: set[tuple] = set()
        self._lock = threading.RLock()
        self.stub = _class_template_stub(self)
        context.add_class_template(self)
        self._specializations: dict[tuple[str, ...], tuple] = {}
        self._ambiguous: dict[str, set[tuple]] = {}  # instance -> constructor argument types
        for spelled, numba_type in dict(specialization_types).items():
            self._add_specialization(tuple(spelled), numba_type)
        if register:
            self.register()

    def instances(self) -> dict[str, type]:
        with self._lock:
            return {stub._cxx_name_: stub for stub in self._stubs.values()}

    # -- arguments --------------------------------------------------------------------------
    def instantiate(self, raw: Sequence[Any]) -> type:
        """The instance for template arguments written on the host (trailing defaults may be
        left out); raises TypeError saying what is wrong."""
        if len(raw) > len(self.params):
            raise TypeError(
                f"{self.row.qual_name} takes {len(self.params)} template argument(s), "
                f"{len(raw)} given"
            )
        pairs = zip(raw, self.params, strict=False)
        given = {i: explicit_argument(value, param) for i, (value, param) in enumerate(pairs)}
        try:
            arguments = self.complete(given)
            return self.instance(arguments)
        except TemplateInstantiationError as exc:
            raise TemplateInstantiationError(str(exc)) from None

    def complete(self, given: Mapping[int, TemplateArgument]) -> list[TemplateArgument]:
        return complete_arguments(
            self.context,
            self.params,
            given,
            self.row.qual_name,
            hint=f"give it as {self.row.python_name}[...]",
        )

    def numba_type_of_instance(self, values: Sequence[Any]) -> types.Type:
        """The instance for arguments as a probe answers them (Numba types and ints)."""
        arguments = [
            value_argument(bool(v) if p.value_type == "bool" else v)
            if p.kind == rows.VALUE_PARAMETER
            else type_argument(v)
            for v, p in zip(values, self.params, strict=False)
        ]
        return self.instance_type(self.complete(dict(enumerate(arguments))))

    # -- instances --------------------------------------------------------------------------
    def instance(self, arguments: Sequence[TemplateArgument]) -> type:
        key = tuple(a.key for a in arguments)
        with self._lock:
            stub = self._stubs.get(key)
            if stub is None:
                stub = self._stubs[key] = self._make(list(arguments))
            return stub

    def instance_type(self, arguments: Sequence[TemplateArgument]) -> types.Type:
        """The instance's Numba type, also while its members are being made (before its layout
        is known, a placeholder: only whether the type is known matters then)."""
        key = tuple(a.key for a in arguments)
        with self._lock:
            made = self._types.get(key)
            if made is None and key in self._making:
                return _BEING_MADE
            return made if made is not None else self.instance(arguments)._numba_type_

    def _add_specialization(self, spelled: tuple[str, ...], numba_type: types.Type) -> None:
        """A specialization written in the header (bound as a struct): ``self[args]`` is it."""
        from .template_bindings import spelled_argument

        try:
            given = {
                index: spelled_argument(text, param)
                for index, (text, param) in enumerate(zip(spelled, self.params, strict=False))
            }
            arguments = self.complete(given)
        except (TypeError, TemplateInstantiationError) as exc:
            logger.info("%s%s cannot be selected by index: %s", self.row.python_name,
                        list(spelled), exc)  # fmt: skip
            return
        self._tag(numba_type, arguments)
        key = tuple(a.key for a in arguments)
        with self._lock:
            self._types.setdefault(key, numba_type)
            self._specializations[spelled] = key

    def add_specialization_stub(self, spelled: Sequence[str], stub: type) -> None:
        key = self._specializations.get(tuple(spelled))
        if key is not None:
            with self._lock:
                self._stubs.setdefault(key, stub)

    def _tag(self, numba_type: types.Type, arguments: Sequence[TemplateArgument]) -> None:
        # Function templates deduce through these (``const Vec<T, N> &`` from a Vec3f).
        numba_type.template_qual_name = self.row.qual_name
        numba_type.template_arguments = tuple(arguments)

    def _make(self, arguments: list[TemplateArgument]) -> type:
        key = tuple(a.key for a in arguments)
        self._making.add(key)
        try:
            return self._make_instance(arguments)
        finally:
            self._making.discard(key)

    def _make_instance(self, arguments: list[TemplateArgument]) -> type:
        key = tuple(a.key for a in arguments)
        # The members are those of the row chosen (a partial specialization's, substituted with
        # its own arguments); the instance is named by the primary template's arguments.
        row, row_arguments = self._specialized(arguments)
        spelling = template_id(self.row.qual_name, arguments).removeprefix("::")
        python_name = f"{self.row.python_name}[{', '.join(map(str, arguments))}]"
        layout = self._layout(row, row_arguments, spelling)
        struct_row = StructRow(
            python_name,
            spelling,
            layout["sizeof"],
            layout["alignof"],
            self.row.parent_type,
            self.row.data_model,
        )
        numba_type = make_struct_type_of(struct_row, self.context.origin)
        self._tag(numba_type, arguments)
        with self._lock:
            self._types[key] = numba_type
        register_instance_spelling(spelling, numba_type)
        writer = RowWriter()
        body = self._body(row, row_arguments, numba_type, spelling, layout)
        stub = apply_struct(
            struct_row,
            numba_type,
            writer.struct_body(body),
            writer.types,
            writer.shims,
            self.context.library,
            self.context.registries,
            self.context.origin,
            self.context,
            row_arguments,
        )
        refresh_numba()
        logger.debug("instantiated %s as %s (%d bytes)", spelling, python_name, layout["sizeof"])
        return stub

    def _specialized(
        self, arguments: list[TemplateArgument]
    ) -> tuple[ClassTemplateRow, list[TemplateArgument]]:
        """The row whose members an instance has (the primary template, or the most specialized
        partial specialization matching), and the arguments of that row."""
        best = None
        for partial, patterns in self.row.partial_specializations:
            own = partial.params
            deduction = Deduction(own, ())
            try:
                for pattern, argument in zip(patterns, arguments, strict=True):
                    _match(deduction, pattern, argument)
            except (DeductionError, ValueError):
                continue
            if len(deduction.arguments) != len(own):
                continue
            fixed = sum(1 for p in patterns if p[0] != "param")
            if best is None or fixed > best[0]:
                best = (fixed, partial, [deduction.arguments[i] for i in range(len(own))])
        if best is None:
            return self.row, arguments
        return best[1], best[2]

    # -- what the compiler says -------------------------------------------------------------
    def _layout(
        self, row: ClassTemplateRow, arguments: list[TemplateArgument], spelling: str
    ) -> dict:
        instance = f"::{spelling}"
        unknown = self._unknown_types(row, arguments, instance)

        def ask() -> dict:
            constants = {"size": f"sizeof({instance})", "align": f"alignof({instance})"}
            offsets = {
                f"off{i}": f"__builtin_offsetof({instance}, {name})"
                for i, name in enumerate(row.public_fields)
            }
            answer = None
            if not _NO_OFFSETOF:
                try:
                    answer = self.context.probe(
                        Probe({**constants, **offsets}, unknown, optional=unknown), instance
                    )
                except TemplateInstantiationError as exc:
                    if "__builtin_offsetof" not in str(exc):
                        raise
                    # This NVRTC (CUDA 13.0's) has no offsetof builtin: the layout is then
                    # checked by size and alignment only.
                    _NO_OFFSETOF.append(True)
            if answer is None:
                answer = self.context.probe(Probe(constants, unknown, optional=unknown), instance)
            return {
                "sizeof": answer.constants["size"],
                "alignof": answer.constants["align"],
                "offsets": {
                    name: answer.constants[f"off{i}"]
                    for i, name in enumerate(row.public_fields)
                    if f"off{i}" in answer.constants
                },
                "types": {slot: self.context.describe(t) for slot, t in answer.types.items()},
            }

        return self.context.recorded(["class", row.declaration, spelling], ask)

    def _unknown_types(
        self, row: ClassTemplateRow, arguments: list[TemplateArgument], instance: str
    ) -> dict:
        """Slots (name -> C++ type-id) for the member types only the compiler can tell."""
        unknown = {}
        evaluate = self.context.evaluate
        public = set(row.public_fields)
        for index, (name, type_row) in enumerate(row.fields):
            # A probe cannot name a private member type (``_TempStorage &``); such a field
            # stays unknown and the instance gets an opaque model of its size.
            if name in public and evaluate(type_row.pattern, arguments) is NEEDS_COMPILER:
                unknown[f"f{index}"] = substitute(type_row.spelling, arguments)
        for m, member in enumerate(row.members):
            if member.own_params:
                continue  # member function templates are instantiated when called
            for p, (_name, type_row, _default) in enumerate(member.params):
                if evaluate(type_row.pattern, arguments) is NEEDS_COMPILER:
                    unknown[f"m{m}p{p}"] = substitute(type_row.spelling, arguments)
            result = member.result
            if result is not None and member.kind != rows.CONSTRUCTOR:
                if needs_compiler_for_result(result):
                    unknown[f"m{m}r"] = _result_expression(member, arguments, instance)
                elif evaluate(result.pattern, arguments) is NEEDS_COMPILER:
                    unknown[f"m{m}r"] = substitute(result.spelling, arguments)
        return unknown

    # -- the struct -------------------------------------------------------------------------
    def _body(
        self,
        row: ClassTemplateRow,
        arguments: list[TemplateArgument],
        numba_type: types.Type,
        spelling: str,
        layout: dict,
    ) -> StructBodyRow:
        answered = {slot: self.context.undescribe(d) for slot, d in layout["types"].items()}

        def resolved(slot: str, type_row) -> Any:
            found = self.context.evaluate(type_row.pattern, arguments)
            return answered.get(slot) if found is NEEDS_COMPILER else found

        fields = [(name, resolved(f"f{i}", t)) for i, (name, t) in enumerate(row.fields)]
        members: list[MemberRow] = []
        member_templates = tuple(member for member in row.members if member.own_params)
        for m, member in enumerate(row.members):
            if member.own_params:
                continue
            try:
                members.append(
                    self._member(member, m, arguments, numba_type, spelling, resolved, answered)
                )
            except (TypeError, TemplateInstantiationError) as exc:
                logger.info("%s: member %s is not bound: %s", spelling, member.declaration, exc)
        self._note_ambiguous_constructors(spelling, members)
        return StructBodyRow(
            _natural_fields(fields, layout),
            tuple(row.public_fields),
            tuple(members),
            member_templates,
        )

    def _note_ambiguous_constructors(self, spelling: str, members: Sequence[MemberRow]) -> None:
        """Remember the argument types that more than one constructor of the instance takes
        (``Ambig(T)`` beside ``Ambig(const T &)``): C++ cannot choose between them, so a
        kernel constructing from them is an error at typing, not at link time."""
        seen: set[tuple] = set()
        for member in members:
            if member.kind != rows.CONSTRUCTOR:
                continue
            taken = tuple(
                types.CPointer(a.type) if a.mode == rows.POINTER else a.type
                for a in member.call.arguments
                if a.mode != rows.HIDDEN_OUT
            )
            if taken in seen:
                self._ambiguous.setdefault(spelling, set()).add(taken)
            seen.add(taken)

    def _member(
        self,
        member: TemplateCallableRow,
        m: int,
        arguments: list[TemplateArgument],
        numba_type: types.Type,
        spelling: str,
        resolved,
        answered: Mapping[str, Any],
    ) -> MemberRow:
        params = [resolved(f"m{m}p{p}", t) for p, (_n, t, _d) in enumerate(member.params)]
        result = None
        if member.result is not None:
            if needs_compiler_for_result(member.result):
                result = answered[f"m{m}r"]
            else:
                result = resolved(f"m{m}r", member.result)
        if NO_COUNTERPART in (*params, result):
            raise TypeError("a type it uses has no Numba counterpart (bind the C++ type first)")
        instance = f"::{spelling}"
        this = ShimValue(numba_type, spelling, align=numba_type.alignof_)
        kind = member.kind
        plan = functools.partial(plan_instance_call, member, params, callee=instance)
        if kind == rows.CONSTRUCTOR:
            body = functools.partial(_constructor, instance)
            call = plan(numba_type, body)
        elif kind == rows.CONVERSION:
            call = plan(
                result, lambda _p, _r: conversion_body(spelling_of(result)), object_value=this
            )
        elif kind == rows.OPERATOR:
            compound = member.name in _COMPOUND
            body = functools.partial(operator_body, member.cxx_name)
            call = plan(None if compound else result, body, object_value=this,
                        returns_first_argument=compound)  # fmt: skip
        elif kind == rows.STATIC_METHOD:
            body = functools.partial(function_call_body, f"{instance}::{member.cxx_name}")
            call = plan(result, body, modes=self.context.member_modes(self.row.qual_name, member))
        else:
            call = plan(result, functools.partial(method_call_body, member.cxx_name),
                        object_value=this,
                        modes=self.context.member_modes(self.row.qual_name, member))  # fmt: skip
        return MemberRow(kind, member.name, call, member.flag)

    # -- construction inside kernels ----------------------------------------------------------
    def register(self) -> None:
        """Make ``Template(args, T=..., N=...)`` construct instances inside kernels."""
        binder = self
        calls: dict[tuple, tuple] = {}  # signature args -> (constructor function type, sig, kept)

        class ClassTemplateCall(AbstractTemplate):
            key = self.stub

            def generic(self, args, kws):
                return binder._type_kernel_call(self.context, args, dict(kws), calls)

            def get_impl_key(self, sig):
                return binder

        def lower(context, builder, sig, args):
            function_type, ctor_sig, kept = calls[sig.args]
            implementation = context.get_function(function_type, ctor_sig)
            return implementation(builder, [args[i] for i in kept])

        registries = self.context.registries
        registries.typing.register_global(self.stub, types.Function(ClassTemplateCall))
        registries.lowering.lower(self, types.VarArg(types.Any))(lower)

    def _type_kernel_call(self, typing_context, args, kws, calls):
        args = tuple(args)
        template_kws, ctor_kws = keyword_arguments(self.params, kws)
        if any(value is None for value in template_kws.values()):
            return None  # a value given as a non-constant: Numba retries with literals
        constructors = [
            c
            for c in map(TemplateCallableRow._make, self.row.members)
            if c.kind == rows.CONSTRUCTOR
        ]
        most = max((len(c.params) for c in constructors), default=0)
        if len(args) > most:
            names = ", ".join(f"{p.name}=..." for p in self.params)
            raise TypingError(
                f"{self.row.qual_name}: expected at most {most} constructor args, got "
                f"{len(args)} positional args; template arguments are given by name ({names})"
            )
        try:
            arguments, order = self._deduce_from_constructor(constructors, args, template_kws,
                                                             ctor_kws)  # fmt: skip
            stub = self.instance(arguments)
        except TemplateInstantiationError as exc:
            raise TypingError(str(exc)) from None
        ctor_args = [types.unliteral(a) for a in args] + [ctor_kws[n] for n in order]
        function_type = typing_context.resolve_value_type(stub)
        ctor_sig = typing_context.resolve_function_type(function_type, tuple(ctor_args), {})
        if ctor_sig is not None and tuple(ctor_sig.args) in self._ambiguous.get(
            stub._cxx_name_, ()
        ):
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

    def _deduce_from_constructor(self, constructors, args, template_kws, ctor_kws):
        """Template arguments from the keywords and, for the rest, from the constructor
        arguments (class template argument deduction); and the order of constructor
        keywords."""
        failures = []
        for ctor in constructors or [None]:
            deduction = Deduction(self.params, ())
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
                return self.complete(deduction.arguments), order
            except (DeductionError, TemplateInstantiationError) as exc:
                failures.append(str(exc))
        raise TemplateInstantiationError(f"{self.row.qual_name}: {'; '.join(failures)}")


def _match(deduction: Deduction, pattern: tuple, argument: TemplateArgument) -> None:
    """Deduce a partial specialization's parameters from one argument of the primary."""
    kind = pattern[0]
    if kind == "param":
        deduction.bind(pattern[1], argument)
    elif kind == "value":
        deduction.bind(pattern[1], argument)
    elif kind == "text":
        if argument.is_type or str(argument.value) != pattern[1].strip():
            from .cxx_types import canonical_spelling

            if canonical_spelling(argument.cxx) != canonical_spelling(pattern[1]):
                raise ValueError("a fixed argument differs")
    elif argument.is_type:
        deduction.deduce(pattern, argument.numba_type)
    else:
        raise ValueError("a value where the specialization has a type")


def _constructor(instance: str, params, _returns: bool) -> str:
    return constructor_body(instance, params)


def spelling_of(numba_type: types.Type) -> str:
    from .cxx_types import cxx_spelling_of

    return cxx_spelling_of(numba_type)


def _result_expression(
    member: TemplateCallableRow, arguments: list[TemplateArgument], instance: str
) -> str:
    """``decltype`` of calling ``member`` on an instance, for results only the compiler knows."""
    values = ", ".join(
        f"nbi_probe::declval<{substitute(t.spelling, arguments)}>()" for _n, t, _d in member.params
    )
    if member.kind == rows.STATIC_METHOD:
        return f"decltype({instance}::{member.cxx_name}({values}))"
    target = f"nbi_probe::declval<{instance} &>()"
    if member.kind == rows.CONVERSION:
        return substitute(member.result.spelling, arguments)
    if member.kind == rows.OPERATOR:
        other = values or ""
        return f"decltype({target} {member.cxx_name} {other})" if other else (
            f"decltype({member.cxx_name}{target})")  # fmt: skip
    return f"decltype({target}.{member.cxx_name}({values}))"


def _size_and_align(numba_type: types.Type) -> tuple[int, int] | None:
    if isinstance(numba_type, (types.Boolean, types.Integer, types.Float)):
        size = 1 if isinstance(numba_type, types.Boolean) else numba_type.bitwidth // 8
        return size, size
    if isinstance(numba_type, (types.CPointer,)) or numba_type == types.voidptr:
        return 8, 8
    if getattr(numba_type, "cxx_qual_name", None) is not None:
        return numba_type.sizeof_, numba_type.alignof_
    if isinstance(numba_type, types.UniTuple):
        inner = _size_and_align(numba_type.dtype)
        return None if inner is None else (inner[0] * numba_type.count, inner[1])
    count, base = getattr(numba_type, "num_elements", None), getattr(numba_type, "base_type", None)
    if count is not None and base is not None:
        element = base.bitwidth // 8
        return element * count, min(element * count, 16) if count in (2, 4) else element
    return None


def _natural_fields(fields: list, layout: dict) -> tuple | None:
    """The fields as StructModel members at the compiler's offsets and size, with padding
    members where LLVM would not pad as C++ does (``planning.struct_layout``); else None (the
    instance gets an opaque model of its size)."""
    if not fields:
        return None
    slots = []
    offset = 0
    for name, numba_type in fields:
        measured, storage_align = _size_and_align(numba_type), _storage_align(numba_type)
        if measured is None or storage_align is None:
            return None
        size, align = measured
        known = layout["offsets"].get(name)
        offset = known if known is not None else (offset + align - 1) // align * align
        slots.append(FieldSlot(name, offset, size, storage_align))
        offset += size
    order, _why_not = padded_members(slots, layout["sizeof"])
    if order is None:
        return None
    by_name = dict(fields)
    members, position = [], 0
    for item, slot in _with_slots(order, slots):
        if isinstance(item, int):
            members.append((f"_numbast_pad{position}", types.UniTuple(types.uint8, item)))
            position += item
        else:
            members.append((item, by_name[item]))
            position = slot.offset + slot.size
    return tuple(members)


def _with_slots(order: list, slots: list[FieldSlot]):
    named = {slot.name: slot for slot in slots}
    return [(item, None if isinstance(item, int) else named[item]) for item in order]


def _storage_align(numba_type: types.Type) -> int | None:
    """The alignment of ``numba_type`` in an LLVM struct; 1 for bound structs (not known here:
    padding then places them), None for types this does not know."""
    if isinstance(numba_type, types.Boolean):
        return 1
    if isinstance(numba_type, (types.Integer, types.Float)):
        return numba_type.bitwidth // 8
    if isinstance(numba_type, types.CPointer) or numba_type == types.voidptr:
        return 8
    if getattr(numba_type, "cxx_qual_name", None) is not None:
        return 1
    if isinstance(numba_type, types.UniTuple):
        return _storage_align(numba_type.dtype)
    base = getattr(numba_type, "base_type", None)
    if getattr(numba_type, "num_elements", None) is not None and base is not None:
        return base.bitwidth // 8  # a CUDA vector type: a struct of its elements
    return None


__all__ = ["ClassTemplateBinder", "ClassTemplateStub"]

"""Class templates: ``Vec[types.float32, 3]`` on the host, ``Vec(T=np.float32, N=3)`` in a
kernel, and the instances they make, bound as structs through the one apply path.

An instance is a struct whose members are the template's with the arguments substituted. Its
layout (size, alignment, field offsets) and the types substitution cannot tell are asked of the
compiler once (``template_probe``) and recorded in the bindings' instance store; making one is
``template_instances``'s job, binding it this module's. An explicit specialization written in the
header is bound as a struct when the bindings load, and is what indexing with its arguments
returns; a partial specialization provides the members of the instances it matches. How a
kernel's ``Vec(x, T=..., N=...)`` is typed and lowered is ``kernel_construction``'s.
"""

from __future__ import annotations

import functools
import logging
import threading
from collections.abc import Mapping, Sequence
from typing import Any

from numba.cuda import types

from ...core import template_rows
from ...core.row_writer import RowWriter
from ...core.rows import StructBodyRow, StructRow
from ...core.template_rows import ClassTemplateRow
from ..members import inherit_static_members
from ..registration import hand_over, register_struct
from ..row_types import make_struct_type_of
from ..structs import make_struct_stub
from .args import (
    TemplateArgument,
    explicit_argument,
    normalized_arguments,
    spelled_argument,
    template_id,
    type_argument,
    value_argument,
)
from .completion import complete_arguments
from .context import (
    TemplateContext,
    refresh_numba,
    register_instance_spelling,
)
from .inheritance import inherited
from .instances import (
    ambiguous_constructor_arguments,
    instance_body,
    instance_layout,
)
from .kernel_construction import register_kernel_construction
from .member_types import InstanceStubType, member_type
from .members import add_member_templates
from .partials import specialized_row
from .pickling import install as install_pickling
from .probe import TemplateInstantiationError

logger = logging.getLogger(__name__)

_BEING_MADE = types.Opaque("numbast_instance_being_made")


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
    _numbast_template_ = True  # indexed with template arguments (also inside kernels)


def _class_template_stub(binder: ClassTemplateBinder) -> type[ClassTemplateStub]:
    # NVIDIA's Numbast names the object of a class template by its qualified C++ name; its
    # module and the name it has there say where it is found again (numbast.runtime.templates.
    # pickling: it pickles by reference).
    qual_name = binder.row.qual_name.removeprefix("::")
    return _ClassTemplateType(
        qual_name,
        (ClassTemplateStub,),
        {
            "_binder": binder,
            # What a template template parameter's argument names (f[M.plus]).
            "_numbast_class_template_": binder.row.qual_name,
            "__module__": binder.context.origin,
            "__qualname__": binder.row.python_name,
            "__doc__": f"CUDA C++ class template {binder.row.qual_name} (bound from C++).",
        },
    )


install_pickling(_ClassTemplateType)


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
        self.row = template_rows.class_template_row(row)
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
            value_argument(v, p.value_type)
            if p.kind == template_rows.VALUE_PARAMETER
            else type_argument(v)
            for v, p in zip(values, self.params, strict=False)
        ]
        return self.instance_type(self.complete(dict(enumerate(arguments))))

    # -- instances --------------------------------------------------------------------------
    def instance(self, arguments: Sequence[TemplateArgument]) -> type:
        arguments = normalized_arguments(self.params, arguments)
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

        try:
            known = self.context.enumerator_value
            given = {
                index: spelled_argument(text, param, known, self.context.type_of)
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

    def is_specialization(self, numba_type: types.Type) -> bool:
        """Whether ``numba_type`` is a specialization the header defines (bound as a struct),
        not an instance made from this template's row."""
        key = tuple(a.key for a in getattr(numba_type, "template_arguments", ()))
        with self._lock:
            return key in self._specializations.values() and self._types.get(key) is numba_type

    def add_specialization_stub(self, spelled: Sequence[str], stub: type) -> None:
        key = self._specializations.get(tuple(spelled))
        if key is not None:
            with self._lock:
                self._stubs.setdefault(key, stub)

    def add_template_members(self, numba_type: types.Type) -> None:
        """The member templates of an instance clang made (bound as a struct; clang lists
        methods for it, not member templates: ``cutlass::complex<float>``'s operators)."""
        arguments = getattr(numba_type, "template_arguments", None)
        if arguments is None:
            return  # not selectable by its arguments (logged by _add_specialization)
        known = self.context.enumerator_value
        row, row_arguments = specialized_row(self.row, list(arguments), known)
        members = [member for member in row.members if member.own_params]
        if members:
            add_member_templates(numba_type, members, row_arguments, self.context)

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
        row, row_arguments = specialized_row(self.row, arguments, self.context.enumerator_value)
        spelling = template_id(self.row.qual_name, arguments).removeprefix("::")
        python_name = f"{self.row.python_name}[{', '.join(map(str, arguments))}]"
        layout = instance_layout(self.context, row, row_arguments, spelling)
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
        body = instance_body(self.context, row, row_arguments, numba_type, spelling, layout)
        own = {m.name for m in body.members} | {t.name for t in body.member_templates}
        bases = inherited(self.context, row, row_arguments, numba_type, spelling, own)
        body = body._replace(members=(*body.members, *bases.members))
        ambiguous = ambiguous_constructor_arguments(body.members)
        if ambiguous:
            # C++ cannot choose between these constructors: constructing from these argument
            # types in a kernel is an error at typing, not at link time.
            self._ambiguous.setdefault(spelling, set()).update(ambiguous)
        stub = make_struct_stub(
            python_name, spelling, numba_type, self.context.origin, metaclass=InstanceStubType
        )
        # It pickles as the template subscripted again. (Not ``_numbast_template_``: that is
        # the templates' own mark, True, which an instance, no template, must not carry.)
        stub._numbast_instance_of_ = self.stub
        stub._numbast_member_type_ = functools.partial(member_type, self.context, layout, spelling)
        stub._numbast_member_type_names_ = tuple(row.member_types)
        indexed = writer.struct_body(body)
        register_struct(
            struct_row,
            numba_type,
            indexed,
            writer.types,
            writer.shims,
            self.context.library,
            self.context.registries,
            self.context.origin,
            stub,
        )
        # The instance is a struct to the other backends too (their kernels index on the host).
        entry = (struct_row, numba_type, StructBodyRow(*indexed), stub)
        hand_over(self.context.origin, self.context.library, writer.shims, writer.types, [entry])
        if body.member_templates:
            add_member_templates(numba_type, body.member_templates, row_arguments, self.context)
        for templates, class_arguments in bases.member_templates:
            add_member_templates(numba_type, templates, class_arguments, self.context)
        for base in bases.static_bases:
            inherit_static_members(stub, base, own, self.context.registries)
        refresh_numba()
        logger.debug("instantiated %s as %s (%d bytes)", spelling, python_name, layout["sizeof"])
        return stub

    # -- construction inside kernels ----------------------------------------------------------
    def register(self) -> None:
        """Make ``Template(args, T=..., N=...)`` construct instances inside kernels
        (``kernel_construction``)."""
        register_kernel_construction(self)

    def is_ambiguous(self, spelling: str, argument_types: tuple) -> bool:
        """Whether C++ cannot choose between the instance ``spelling``'s constructors for
        ``argument_types`` (constructing so in a kernel is an error at typing)."""
        return argument_types in self._ambiguous.get(spelling, ())


__all__ = ["ClassTemplateBinder", "ClassTemplateStub"]

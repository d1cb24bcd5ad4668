"""Bind C++ class templates: ``bind_cxx_class_template`` / ``bind_cxx_class_templates``.

A bound class template is an object indexed with template arguments in C++ order: Numba types
(or bound structs / enums, NumPy scalar types) for type parameters, ints or bools for non-type
ones; trailing defaulted parameters may be left out::

    Vec = bind_cxx_class_template(shim_writer, decls.class_templates[0])
    Vec3f = Vec[types.float32, 3]          # on the host, before the kernel
    @cuda.jit
    def kernel(out):
        v = Vec3f(np.float32(1.0))         # constructors, fields, methods, operators

Indexing instantiates the class once (cached) and returns the same kind of stub as
``bind_cxx_struct``. The instance's layout comes from clang (``numbast.templates.probe``: sizeof,
alignof and field offsets of ``Vec<float, 3>``); its members are the template's members with the
arguments substituted. An explicit specialization written in the header (``template <> struct
Vec<float, 2> {...}``) is bound as it is written and is what ``Vec[types.float32, 2]`` returns.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from numba.cuda import types
from numba.cuda.datamodel.models import StructModel

from ast_canopy.model import (
    ClassTemplate,
    ClassTemplateSpecialization,
    Function,
    TemplateParamKind,
    TypeKind,
)
from numbast.dynamic.numba_types import registered_numba_type
from numbast.dynamic.structs import bind_cxx_struct
from numbast.planning.declarations import location_of
from numbast.planning.diagnostics import BindingError, warn_skipped
from numbast.planning.type_rules import normalize_cxx_name, strip_cv
from numbast.runtime.shim_library import ShimLibrary
from numbast.templates.arguments import (
    TemplateArgument,
    explicit_argument,
    integer_value,
    split_template_id,
    template_id,
    unsupported_parameter,
    value_argument,
)
from numbast.templates.class_instances import instance_struct
from numbast.templates.probe import (
    InstantiationOptions,
    TemplateInstantiationError,
    complete_arguments,
    search_dirs_of,
)

logger = logging.getLogger(__name__)


class ClassTemplateStub:
    """``Vec[types.float32, 3]`` -> the bound struct stub of ``Vec<float, 3>``."""

    def __init__(self, binder: _ClassTemplateBinder, python_name: str) -> None:
        self._binder = binder
        self.__name__ = self.__qualname__ = python_name
        self.__doc__ = f"CUDA C++ class template {binder.decl.qual_name} (bound from C++)."

    def __getitem__(self, arguments: Any) -> type:
        return self._binder.instantiate(arguments if isinstance(arguments, tuple) else (arguments,))

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        params = ", ".join(p.name for p in self._binder.decl.template_parameters)
        raise TypeError(
            f"{self._binder.decl.qual_name} is a class template: give its template arguments "
            f"({params}) first, e.g. {self.__name__}[types.float32, ...](...)"
        )

    def __repr__(self) -> str:
        return f"<class template {self._binder.decl.qual_name}>"

    @property
    def instances(self) -> dict[str, type]:
        """The instantiations bound so far, by C++ spelling."""
        return self._binder.instances()


class _ClassTemplateBinder:
    def __init__(
        self,
        shim_writer: ShimLibrary,
        decl: ClassTemplate,
        parent_type: type[types.Type],
        data_model: type,
        options: InstantiationOptions,
        python_name: str,
    ) -> None:
        self.shim_writer = shim_writer
        self.decl = decl
        self.parent_type = parent_type
        self.data_model = data_model
        self.options = options
        self.python_name = python_name
        self.params = decl.template_parameters
        self._by_key: dict[tuple, type] = {}
        self._lock = threading.RLock()
        self._search_dirs = search_dirs_of(decl.record.file)

    def instances(self) -> dict[str, type]:
        with self._lock:
            return {stub._cxx_name_: stub for stub in self._by_key.values()}

    # -- arguments --------------------------------------------------------------------------
    def _complete(self, given: Mapping[int, TemplateArgument]) -> list[TemplateArgument]:
        return complete_arguments(
            self.params,
            dict(given),
            self.shim_writer.preamble,
            self.options,
            self.decl.qual_name,
            self._search_dirs,
            hint=f"give it as {self.python_name}[...]",
        )

    def instantiate(self, raw: Sequence[Any]) -> type:
        if len(raw) > len(self.params):
            raise TypeError(
                f"{self.decl.qual_name} takes {len(self.params)} template argument(s), "
                f"{len(raw)} given"
            )
        pairs = zip(raw, self.params, strict=False)
        given = {i: explicit_argument(value, param) for i, (value, param) in enumerate(pairs)}
        with self._lock:
            try:
                arguments = self._complete(given)
            except BindingError as exc:
                raise TypeError(str(exc)) from None
            return self._instance(arguments)

    def _instance(self, arguments: list[TemplateArgument]) -> type:
        with self._lock:
            key = tuple(a.key for a in arguments)
            stub = self._by_key.get(key)
            if stub is None:
                stub = self._bind_instance(arguments)
                self._by_key[key] = stub
            return stub

    def instantiate_spelled(self, spelling: str) -> type | None:
        """The instance a C++ spelling such as ``Vec<float, 3>`` names; None when it names
        something else or its arguments have no Numba counterpart."""
        parsed = split_template_id(normalize_cxx_name(spelling))
        if parsed is None or parsed[0] != normalize_cxx_name(self.decl.qual_name):
            return None
        arguments = self._spelled_arguments(parsed[1])
        return None if arguments is None else self._instance(arguments)

    # -- explicit specializations -------------------------------------------------------------
    def add_specialization(self, spec: ClassTemplateSpecialization) -> type | None:
        """Bind a specialization written in the header; ``self[args]`` returns it from now on
        (when its arguments can be read back as Numba types and values)."""
        arguments = self._spelled_arguments(spec.template_arguments)
        python_name = self.python_name
        if arguments is not None:
            python_name = f"{self.python_name}[{', '.join(map(str, arguments))}]"
        aliases = [template_id(self.decl.qual_name, arguments)] if arguments else []
        stub = bind_cxx_struct(
            self.shim_writer, spec.record, self.parent_type, self.data_model, aliases, python_name
        )
        if stub is None:
            return None
        if arguments is None:
            logger.info(
                "%s is bound, but %s[...] cannot select it: its arguments %s have no Numba "
                "counterpart",
                spec.qual_name,
                self.python_name,
                spec.template_arguments,
            )
            return stub
        self._tag(stub, arguments)
        with self._lock:
            self._by_key.setdefault(tuple(a.key for a in arguments), stub)
        return stub

    def _spelled_arguments(self, spelled: Sequence[str]) -> list[TemplateArgument] | None:
        given: dict[int, TemplateArgument] = {}
        for index, (text, param) in enumerate(zip(spelled, self.params, strict=False)):
            if param.kind is TemplateParamKind.TYPE:
                numba_type = registered_numba_type(normalize_cxx_name(text))
                if numba_type is None:
                    return None
                given[index] = TemplateArgument(normalize_cxx_name(text), numba_type=numba_type)
            else:
                value = integer_value(text)
                if value is None:
                    return None
                is_bool = text.strip() in ("true", "false")
                given[index] = value_argument(bool(value) if is_bool else value)
        try:
            return self._complete(given)
        except BindingError:
            return None

    def _tag(self, stub: type, arguments: Sequence[TemplateArgument]) -> None:
        # Function templates deduce through these (``const Vec<T, N> &`` from a Vec3f).
        numba_type = stub._numba_type_
        numba_type.template_qual_name = self.decl.qual_name
        numba_type.template_arguments = tuple(arguments)

    # -- implicit instantiations --------------------------------------------------------------
    def _bind_instance(self, arguments: list[TemplateArgument]) -> type:
        spelling = template_id(self.decl.qual_name, arguments)
        struct = instance_struct(
            self.decl, arguments, self.shim_writer.preamble, self.options, self._search_dirs
        )
        python_name = f"{self.python_name}[{', '.join(map(str, arguments))}]"
        aliases_of_self = [spelling] if spelling != struct.qual_name else []
        stub = bind_cxx_struct(
            self.shim_writer,
            struct,
            self.parent_type,
            self.data_model,
            aliases_of_self,
            python_name,
        )
        if stub is None:
            raise TemplateInstantiationError(f"{spelling} could not be bound (see the warning)")
        self._tag(stub, arguments)
        logger.debug("instantiated %s as %s (%d bytes)", spelling, python_name, struct.sizeof_)
        return stub


def instantiate_used(stubs: Iterable[ClassTemplateStub], signatures: Iterable[Function]) -> None:
    """Instantiate the class template instances that ``signatures`` name (``float
    norm(const Vec<float, 3> &)``), so that those functions can be bound."""
    binders = [stub._binder for stub in stubs]
    seen: set[str] = set()
    for func in signatures:
        for cxx_type in (func.return_type, *(p.type_ for p in func.params)):
            base = cxx_type.referenced()
            while base.is_pointer and base.pointee is not None:
                base = base.pointee
            spelling = normalize_cxx_name(strip_cv(base.canonical_name))
            if base.kind is not TypeKind.RECORD or "<" not in spelling or spelling in seen:
                continue
            seen.add(spelling)
            if registered_numba_type(spelling) is not None:
                continue
            for binder in binders:
                try:
                    if binder.instantiate_spelled(spelling) is not None:
                        break
                except (BindingError, TypeError) as exc:
                    logger.info("%s is not instantiated for %s: %s", spelling, func.name, exc)


def bind_cxx_class_template(
    shim_writer: ShimLibrary,
    templ_decl: ClassTemplate,
    parent_type: type[types.Type] = types.Type,
    data_model: type = StructModel,
    specializations: Iterable[ClassTemplateSpecialization] = (),
    options: InstantiationOptions | None = None,
    python_name: str | None = None,
) -> ClassTemplateStub | None:
    """Bind the class template ``templ_decl``; returns the object to index with template
    arguments (``Vec[types.float32, 3]``), or None when it is skipped (with one warning).

    ``specializations`` are explicit specializations from the header (those of other templates
    are ignored); they are bound now, so functions taking them can be bound too. ``parent_type``
    and ``data_model`` apply to every instantiation, as in ``bind_cxx_struct``. ``options`` say
    how to parse the header when clang is asked about an instantiation.
    """
    reason = unsupported_parameter(templ_decl.template_parameters)
    if reason is not None:
        warn_skipped("class template", templ_decl.qual_name, reason, location_of(templ_decl.record))
        return None
    name = python_name or templ_decl.name
    binder = _ClassTemplateBinder(
        shim_writer, templ_decl, parent_type, data_model, options or InstantiationOptions(), name
    )
    for spec in specializations:
        if spec.is_explicit and normalize_cxx_name(spec.template_qual_name) == normalize_cxx_name(
            templ_decl.qual_name
        ):
            binder.add_specialization(spec)
    return ClassTemplateStub(binder, name)


def bind_cxx_class_templates(
    shim_writer: ShimLibrary,
    templ_decls: Iterable[ClassTemplate],
    specializations: Iterable[ClassTemplateSpecialization] = (),
    parent_types: Mapping[str, type[types.Type]] | None = None,
    data_models: Mapping[str, type] | None = None,
    options: InstantiationOptions | None = None,
    exclude: Iterable[str] = (),
) -> dict[str, ClassTemplateStub]:
    """Bind several class templates (per-template parent types and data models by name)."""
    excluded = set(exclude)
    specializations = list(specializations)
    bound: dict[str, ClassTemplateStub] = {}
    for decl in templ_decls:
        if decl.name in excluded:
            continue
        stub = bind_cxx_class_template(
            shim_writer,
            decl,
            (parent_types or {}).get(decl.name, types.Type),
            (data_models or {}).get(decl.name, StructModel),
            specializations,
            options,
        )
        if stub is not None:
            bound[decl.name] = stub
    return bound


__all__ = [
    "ClassTemplateStub",
    "InstantiationOptions",
    "bind_cxx_class_template",
    "bind_cxx_class_templates",
    "instantiate_used",
]

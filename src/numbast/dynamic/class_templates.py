"""Bind C++ class templates: ``bind_cxx_class_template`` / ``bind_cxx_class_templates``.

A bound class template is an object indexed with template arguments in C++ order: Numba types
(or bound structs / enums, NumPy scalar types) for type parameters, ints or bools for non-type
ones; trailing defaulted parameters may be left out::

    Vec = bind_cxx_class_template(decls.class_templates[0], shim_writer)
    Vec3f = Vec[types.float32, 3]          # on the host, before the kernel
    @cuda.jit
    def kernel(out):
        v = Vec3f(np.float32(1.0))         # constructors, fields, methods, operators
        w = Vec(np.float32(2.0), T=np.float32, N=3)   # or by name, inside the kernel

Indexing instantiates the class once (cached) and returns the same kind of stub as
``bind_cxx_struct``. The template is planned into a row and bound by the runtime
(``numbast.runtime.templates.classes``), as a generated module binds its rows: the layout of an
instance comes from NVRTC, never clang. A specialization written in the header (``template <>
struct Vec<float, 2> {...}``) is bound as it is written and is what ``Vec[types.float32, 2]``
returns; partial specializations give the members of the instances they match.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from numba.cuda import types
from numba.cuda.datamodel.models import StructModel

from ast_canopy.model import (
    AliasTemplate,
    ClassTemplate,
    ClassTemplatePartialSpecialization,
    ClassTemplateSpecialization,
)
from numbast.dynamic.numba_types import NUMBA_TYPE_TABLE
from numbast.dynamic.structs import bind_cxx_struct
from numbast.dynamic.template_context import (
    InstantiationOptions,
    context_for,
    known_class_templates,
)
from numbast.planning.descriptions import location_of
from numbast.planning.diagnostics import BindingError, bind_each, warn_skipped
from numbast.planning.templates import alias_template_row, class_template_row
from numbast.planning.type_rules import normalize_cxx_name
from numbast.runtime.shim_library import ShimLibrary
from numbast.runtime.templates.bindings import AliasTemplateStub
from numbast.runtime.templates.classes import ClassTemplateBinder, ClassTemplateStub
from numbast.runtime.templates.context import _CLASS_TEMPLATES


def bind_cxx_class_template(
    class_template_decl: ClassTemplate,
    shim_writer: ShimLibrary,
    header_path: str | os.PathLike[str] | None = None,
    *,
    arg_intent: Mapping[str, Any] | None = None,
    parent_type: type[types.Type] = types.Type,
    data_model: type = StructModel,
    specializations: Iterable[ClassTemplateSpecialization] = (),
    options: InstantiationOptions | None = None,
    python_name: str | None = None,
    partial_specializations: Iterable[ClassTemplatePartialSpecialization] = (),
) -> ClassTemplateStub | None:
    """Bind the class template ``class_template_decl`` (NVIDIA's signature); returns the object
    to call in kernels with template arguments by name (``Vec(x, T=np.float32, N=3)``) or to
    index on the host (``Vec[types.float32, 3]``), or None when it is skipped (one warning).

    ``header_path`` (NVIDIA's) is the header declaring the template; the shim writer's
    preceding text includes it already, so it is only checked to exist. ``arg_intent`` gives
    methods' argument intents, ``{"Vec": {"method": {"param": "out_return"}}}``. Ours, by
    keyword: ``specializations`` of the header (those of other templates are ignored) with a
    layout are bound now as structs, so functions taking them can be bound too;
    ``partial_specializations`` give the members of the instances they match; ``parent_type``
    and ``data_model`` apply to every instance, as in ``bind_cxx_struct``; ``options`` say how
    to instantiate.
    """
    templ_decl = class_template_decl
    if not isinstance(templ_decl, ClassTemplate):
        raise TypeError(
            "bind_cxx_class_template(class_template_decl, shim_writer, header_path): the first "
            f"argument is a ClassTemplate declaration, not {type(templ_decl).__name__}"
        )
    if header_path is not None and not os.path.isfile(header_path):
        raise FileNotFoundError(
            f"bind_cxx_class_template: header_path {os.fspath(header_path)!r} (of "
            f"{templ_decl.qual_name}) does not exist"
        )
    own = normalize_cxx_name(templ_decl.qual_name)
    partials = [
        p for p in partial_specializations if normalize_cxx_name(p.template_qual_name) == own
    ]
    try:
        row = class_template_row(
            templ_decl,
            [*known_class_templates(), templ_decl.qual_name],
            parent_type,
            data_model,
            warn_skipped,
            python_name,
            partials=partials,
            arg_intent=arg_intent,
        )
    except BindingError as exc:
        warn_skipped(
            "class template", templ_decl.qual_name, str(exc), location_of(templ_decl.record)
        )
        return None
    header_specializations = {}
    for spec in specializations:
        if normalize_cxx_name(spec.template_qual_name) != own or spec.record.sizeof_ is None:
            continue
        stub = bind_cxx_struct(
            shim_writer, spec.record, parent_type, data_model, python_name=spec.qual_name
        )
        if stub is not None:
            header_specializations[tuple(spec.template_arguments)] = stub
    context = context_for(shim_writer, options)
    binder = ClassTemplateBinder(
        row, context, {args: stub._numba_type_ for args, stub in header_specializations.items()}
    )
    for args, stub in header_specializations.items():
        binder.add_specialization_stub(args, stub)
    return binder.stub


def bind_cxx_class_templates(
    class_templates: Iterable[ClassTemplate],
    header_path: str | os.PathLike[str] | None = None,
    shim_writer: ShimLibrary | None = None,
    *,
    arg_intent: Mapping[str, Any] | None = None,
    specializations: Iterable[ClassTemplateSpecialization] = (),
    parent_types: Mapping[str, type[types.Type]] | None = None,
    data_models: Mapping[str, type] | None = None,
    options: InstantiationOptions | None = None,
    exclude: Iterable[str] = (),
    partial_specializations: Sequence[ClassTemplatePartialSpecialization] = (),
) -> list[ClassTemplateStub]:
    """Bind several class templates (NVIDIA's signature); returns their objects in order
    (skipped ones left out, warned). Per-template parent types and data models are looked up by
    name; the other keywords are those of :func:`bind_cxx_class_template`."""
    if shim_writer is None:
        raise TypeError("bind_cxx_class_templates: shim_writer is required")
    specializations = list(specializations)

    def bind(decl: ClassTemplate) -> ClassTemplateStub | None:
        return bind_cxx_class_template(
            decl,
            shim_writer,
            header_path,
            arg_intent=arg_intent,
            parent_type=(parent_types or {}).get(decl.name, types.Type),
            data_model=(data_models or {}).get(decl.name, StructModel),
            specializations=specializations,
            options=options,
            partial_specializations=partial_specializations,
        )

    return bind_each(class_templates, exclude, bind)


def clear_concrete_type_caches() -> None:
    """NVIDIA's reset of its class template instance caches. Instances here are cached per
    bound template, and rebinding makes a new template object with its own, so there is
    nothing to reset."""


def bind_cxx_alias_template(
    shim_writer: ShimLibrary, alias: AliasTemplate, options: InstantiationOptions | None = None
) -> AliasTemplateStub | None:
    """Bind ``template <class T> using V3 = Vec<T, 3>``: ``V3[types.float32]`` is
    ``Vec[types.float32, 3]`` (the class template must be bound already)."""
    try:
        row = alias_template_row(alias, known_class_templates())
    except BindingError as exc:
        warn_skipped("alias template", alias.qual_name, str(exc), location_of(alias))
        return None
    return AliasTemplateStub(row, context_for(shim_writer, options))


def _instance_of(spelling: str) -> types.Type | None:
    """The instance a C++ spelling such as ``Vec<double, 4>`` names, made now: how a function
    taking an instance nobody asked for yet gets bound."""
    from ast_canopy.spelling import split_template_arguments
    from numbast.runtime.templates.args import spelled_argument

    name = normalize_cxx_name(spelling)
    binder = _CLASS_TEMPLATES.get(name[: name.find("<")].strip())
    if binder is None:
        return None
    arguments = split_template_arguments(name)
    try:
        given = {
            i: spelled_argument(text, param)
            for i, (text, param) in enumerate(zip(arguments, binder.params, strict=False))
        }
        return binder.instance_type(binder.complete(given))
    except (TypeError, BindingError) as exc:
        warn_skipped("class template instance", spelling, str(exc))
        return None


@functools.cache
def _install_instance_fallback() -> None:
    NUMBA_TYPE_TABLE.instance_fallbacks.append(_instance_of)


_install_instance_fallback()

__all__ = [
    "AliasTemplateStub",
    "ClassTemplateStub",
    "bind_cxx_alias_template",
    "InstantiationOptions",
    "bind_cxx_class_template",
    "bind_cxx_class_templates",
    "clear_concrete_type_caches",
]

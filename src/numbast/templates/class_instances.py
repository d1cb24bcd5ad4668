"""One implicit instantiation of a class template as a plain ``Struct`` declaration.

clang gives the layout (``sizeof``, ``alignof``, field offsets of ``Vec<float, 3>``, through a
probe header) and the types substitution cannot resolve; the members are the template's with the
arguments substituted. The result binds with the ordinary struct binder, so constructors,
fields, methods and operators work as for any struct.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import replace

from ast_canopy.model import Access, ClassTemplate, Field, Method, MethodKind, Struct
from numbast.planning.declarations import location_of
from numbast.planning.diagnostics import warn_skipped
from numbast.planning.type_rules import UnsupportedTypeError, normalize_cxx_name
from numbast.templates.arguments import (
    NeedsProbe,
    Substitution,
    TemplateArgument,
    record_type,
    template_id,
)
from numbast.templates.probe import (
    InstantiationOptions,
    Probe,
    TemplateInstantiationError,
    run_probe,
)

logger = logging.getLogger(__name__)


def injected_class_names(decl: ClassTemplate) -> list[str]:
    """How the template names itself inside its body: ``Vec``, ``Vec<T, N>`` (qualified too)."""
    own = [TemplateArgument(p.name) for p in decl.template_parameters]
    return [
        decl.name,
        decl.qual_name,
        template_id(decl.name, own),
        template_id(decl.qual_name, own),
    ]


def instance_struct(
    decl: ClassTemplate,
    arguments: Sequence[TemplateArgument],
    preamble: str,
    options: InstantiationOptions,
    search_dirs: Sequence[str] = (),
) -> Struct:
    """The declaration of ``decl<arguments>``; raises TemplateInstantiationError with clang's
    messages when the instantiation is ill-formed."""
    params = decl.template_parameters
    spelling = template_id(decl.qual_name, arguments)
    record = decl.record
    self_names = injected_class_names(decl)
    public = [f.name for f in record.fields if f.access is Access.PUBLIC and not f.is_bitfield]
    probe = Probe(
        constants={
            "nbi_size": f"sizeof(::{spelling})",
            "nbi_align": f"alignof(::{spelling})",
            **{f"nbi_offset_{n}": f"__builtin_offsetof(::{spelling}, {n})" for n in public},
        },
        types={"nbi_self": f"::{spelling}"},
    )
    unresolved = _unresolved(decl, arguments, self_names)
    aliases = {f"nbi_t{i}": text for i, text in enumerate(unresolved)}
    what = f"{spelling} (from {location_of(record) or 'the header'})"
    try:
        answer = run_probe(
            replace(probe, types={**probe.types, **aliases}), preamble, options, what, search_dirs
        )
    except TemplateInstantiationError:
        if not aliases:
            raise
        # Some member type is ill-formed for these arguments; the class itself may be fine
        # (C++ only instantiates members that are used): retry for the layout alone.
        answer = run_probe(probe, preamble, options, what, search_dirs)
    qual_name = normalize_cxx_name(answer.types["nbi_self"].canonical_name)
    size, align = answer.constants["nbi_size"], answer.constants["nbi_align"]
    known = {text: answer.types[n] for n, text in aliases.items() if n in answer.types}
    substitution = Substitution(
        params, arguments, self_names, record_type(qual_name, size, align), known
    )
    return Struct(
        name=decl.name,
        qual_name=qual_name,
        sizeof_=size,
        alignof_=align,
        fields=_fields(record.fields, substitution, answer.constants),
        methods=_methods(decl, substitution, qual_name),
        tag=record.tag,
        file=record.file,
        line=record.line,
    )


def _unresolved(
    decl: ClassTemplate, arguments: Sequence[TemplateArgument], self_names: list[str]
) -> list[str]:
    """Spellings of member types that only clang can resolve, each once."""
    placeholder = record_type("", 0, 1)
    substitution = Substitution(decl.template_parameters, arguments, self_names, placeholder)
    found: dict[str, None] = {}
    member_types = [f.type_ for f in decl.record.fields]
    for method in decl.record.methods:
        member_types += [method.return_type, *(p.type_ for p in method.params)]
    for member_type in member_types:
        try:
            substitution.type(member_type)
        except NeedsProbe as need:
            found.setdefault(need.text)
        except UnsupportedTypeError:
            continue
    return list(found)


def _fields(
    fields: Sequence[Field], substitution: Substitution, constants: Mapping[str, int]
) -> tuple[Field, ...]:
    concrete = []
    for field in fields:
        try:
            field_type = substitution.type(field.type_)
        except UnsupportedTypeError as exc:
            # Without every field's type there is no faithful StructModel: opaque it is.
            owner = substitution.self_type.name if substitution.self_type else ""
            logger.info("%s gets an opaque data model: field %s: %s", owner, field.name, exc)
            return ()
        offset = constants.get(f"nbi_offset_{field.name}", field.offset)
        concrete.append(replace(field, type_=field_type, offset=offset))
    return tuple(concrete)


def _methods(decl: ClassTemplate, substitution: Substitution, qual_name: str) -> tuple[Method, ...]:
    methods = []
    for method in decl.record.methods:
        # The parser names a class template's constructors after the injected class name.
        name = decl.name if method.kind.is_constructor else method.name
        member = f"{qual_name}::{name}"
        try:
            methods.append(
                replace(
                    method,
                    name=name,
                    qual_name=member,  # shim names derive from it: one per instantiation
                    parent_qual_name=qual_name,
                    mangled_name="",
                    return_type=substitution.type(method.return_type),
                    params=tuple(
                        replace(p, type_=substitution.type(p.type_)) for p in method.params
                    ),
                )
            )
        except UnsupportedTypeError as exc:
            if _bound_by_design(method):
                warn_skipped("method", member, str(exc), location_of(method))
    return tuple(methods)


def _bound_by_design(method: Method) -> bool:
    # Copy/move constructors and destructors are never bound, so failing to substitute their
    # types is not worth a warning.
    skipped = (MethodKind.COPY_CONSTRUCTOR, MethodKind.MOVE_CONSTRUCTOR, MethodKind.DESTRUCTOR)
    return method.access is Access.PUBLIC and method.kind not in skipped


__all__ = ["injected_class_names", "instance_struct"]

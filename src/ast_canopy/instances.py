"""Class template specializations -> ``model.ClassTemplateSpecialization``, and which ones a
parse reports besides those written in retained files.

An instance is reported when a reported declaration names it (a field ``Vec<float, 3> v;``, a
parameter ``const ns::Arr<float, 4> &``, a return type, a base, a typedef), or a reported
instance of a template declared in a retained file does (its fields, its methods' signatures,
its type arguments). Functions that device code cannot call (host ones, and those naming the
host standard library: ``ast_canopy.host_only``) name nothing here. Instances of other
templates (``cuda::std::...``) are reported but not followed further, so a retained struct
holding a standard type does not pull in its internals.
"""

from __future__ import annotations

import itertools
import re
from collections import deque
from collections.abc import Iterable, Iterator

from clang import cindex as ci

from ast_canopy import records, templates
from ast_canopy.context import Context
from ast_canopy.host_only import function_host_library_type
from ast_canopy.model import (
    ClassTemplateSpecialization,
    Declarations,
    ExecutionSpace,
    Function,
    Struct,
    Type,
    TypeKind,
)
from ast_canopy.spelling import split_template_arguments


def _same_place(a: ci.Cursor, b: ci.Cursor) -> bool:
    la, lb = a.location, b.location
    return (
        la.offset == lb.offset
        and la.file is not None
        and lb.file is not None
        and la.file.name == lb.file.name
    )


def is_explicit_specialization(cursor: ci.Cursor) -> bool:
    """Written as ``template <> struct X<...>``: an implicit instance sits where the template
    it was instantiated from (primary or partial specialization) is written."""
    pattern = cursor.specialized_template
    return pattern is None or not _same_place(cursor, pattern)


def is_explicit_instantiation(cursor: ci.Cursor) -> bool:
    """Written as ``template struct X<...>;`` (or ``extern template``): clang makes the instance
    there, and libclang visits none of its members (they are read through its type)."""
    tokens = [token.spelling for token in itertools.islice(cursor.get_tokens(), 3)]
    if tokens[:1] == ["extern"]:
        tokens = tokens[1:]
    return len(tokens) >= 2 and tokens[0] == "template" and tokens[1] != "<"


def _arguments_per_parameter(
    ctx: Context, cursor: ci.Cursor, primary: ci.Cursor | None, flat: tuple[str, ...]
) -> tuple[str, ...]:
    """One entry per template parameter: a pack's arguments joined by ", "."""
    count = cursor.get_num_template_arguments()  # a pack counts once here
    if count < 0 or count == len(flat) or primary is None:
        return flat
    params = templates.template_params(ctx, primary)
    pack = next((i for i, p in enumerate(params) if p.is_pack), None)
    if pack is None:
        return flat
    size = len(flat) - (count - 1)
    return (*flat[:pack], ", ".join(flat[pack : pack + size]), *flat[pack + size :])


def make_specialization(
    ctx: Context, cursor: ci.Cursor, written: bool
) -> ClassTemplateSpecialization:
    """``written``: the cursor is a specialization's definition in a retained file, whose
    members libclang visits; otherwise the record is read through its type."""
    spelling = templates.record_spelling(cursor.type)  # "ns::Vec<float, 3>", fully qualified
    primary = templates.primary_template(cursor)
    if written:
        record = records.make_struct(ctx, cursor, "", name=cursor.spelling, qual_name=spelling)
    else:
        record = records.make_instance_struct(ctx, cursor, spelling)
    flat = split_template_arguments(spelling)
    return ClassTemplateSpecialization(
        record=record,
        template_qual_name=templates.qualified_name(primary) if primary is not None else "",
        template_arguments=flat,
        is_explicit=written or is_explicit_specialization(cursor),
        arguments_per_parameter=_arguments_per_parameter(ctx, cursor, primary, flat),
    )


_CV_PREFIX = re.compile(r"^(?:(?:const|volatile)\s+)+")


def _record_names(types: Iterable[Type | None]) -> Iterator[str]:
    """Canonical names of the record types among ``types`` (cv-qualifiers dropped), through
    pointers, references and arrays."""
    for t in types:
        while t is not None and t.kind is not TypeKind.RECORD:
            t = t.pointee
        if t is not None:
            yield _CV_PREFIX.sub("", t.canonical_name)


def _function_types(function: Function) -> Iterator[Type]:
    """The types a function names, if device code can call it: a host function's types (CUB's
    ``operator<<(std::ostream &, ...)`` names ``std::basic_ostream<char>``) are not followed."""
    if not _device_usable(function):
        return
    yield function.return_type
    for param in function.params:
        yield param.type_


def _device_usable(function: Function) -> bool:
    space = function.exec_space
    return (space.is_device_callable or space is ExecutionSpace.GLOBAL) and (
        function_host_library_type(function) is None
    )


def _struct_types(struct: Struct) -> Iterator[Type | None]:
    for f in struct.fields:
        yield f.type_
    for base in struct.bases:
        yield base.type_
    for method in (*struct.methods, *struct.non_public_methods):
        yield from _function_types(method)
    for member_template in struct.templated_methods:
        yield from _function_types(member_template.function)
    for nested in struct.nested_records:
        yield from _struct_types(nested)


def _declaration_types(decls: Declarations) -> Iterator[Type | None]:
    for struct in decls.structs:
        yield from _struct_types(struct)
    for function in decls.functions:
        yield from _function_types(function)
    for function_template in decls.function_templates:
        yield from _function_types(function_template.function)
    for container in (
        decls.class_templates,
        decls.class_template_specializations,
        decls.class_template_partial_specializations,
    ):
        for templ in container:
            yield from _struct_types(templ.record)
    for typedef in decls.typedefs:
        yield typedef.underlying_type
    for var in decls.constexpr_vars:
        yield var.type_


def _argument_types(ctx: Context, cursor: ci.Cursor) -> Iterator[Type]:
    instance_type = cursor.type
    for index in range(max(instance_type.get_num_template_arguments(), 0)):
        argument = instance_type.get_template_argument_type(index)
        if argument.kind != ci.TypeKind.INVALID:
            yield ctx.types.make(argument)


def named_instances(ctx: Context, decls: Declarations) -> list[ClassTemplateSpecialization]:
    """The specializations reported declarations name, besides those already in ``decls``."""
    seen = {spec.qual_name for spec in decls.class_template_specializations}
    queue = deque(_record_names(_declaration_types(decls)))
    found: list[ClassTemplateSpecialization] = []
    while queue:
        name = queue.popleft()
        if name in seen:
            continue
        seen.add(name)
        cursor = ctx.types.specializations.get(name)
        if cursor is None:
            continue  # a plain record
        spec = make_specialization(ctx, cursor, written=False)
        found.append(spec)
        primary = templates.primary_template(cursor)
        if primary is not None and ctx.is_retained(primary):
            queue.extend(_record_names(_struct_types(spec.record)))
            queue.extend(_record_names(_argument_types(ctx, cursor)))
    return found


def named_tag_records(ctx: Context, decls: Declarations) -> list[Struct]:
    """The empty classes (tags, such as CUB's ``NullType``) declared outside the retained files
    that reported declarations name, the methods of reported instances included
    (``Uninitialized<NullType>::Alias()`` returns a ``NullType &``): reported as structs, so
    that what names them binds. A kernel can make one; there is nothing else in them. Classes
    with fields or bases are left to the retain list (they bring their own declarations)."""
    names = set(_record_names(_declaration_types(decls)))
    reported = {struct.qual_name for struct in decls.structs}
    found = []
    for name in sorted(names - reported):
        cursor = ctx.types.plain_records.get(name)
        if cursor is None or not cursor.is_definition() or ctx.is_retained(cursor):
            continue
        if cursor.kind not in (ci.CursorKind.STRUCT_DECL, ci.CursorKind.CLASS_DECL):
            continue
        struct = records.make_instance_struct(ctx, cursor, name)
        if struct.sizeof_ == 1 and not struct.fields and not struct.bases:
            found.append(struct)
    return found


__all__ = [
    "is_explicit_instantiation",
    "is_explicit_specialization",
    "make_specialization",
    "named_instances",
    "named_tag_records",
]

"""Struct, class and union definitions -> ``model.Struct``, and the class templates, partial
specializations and implicit instances whose bodies are records."""

from __future__ import annotations

import logging

from clang import cindex as ci

from ast_canopy import defaults, functions, templates
from ast_canopy.context import Context
from ast_canopy.model import (
    Access,
    BaseClass,
    ClassTemplate,
    ClassTemplatePartialSpecialization,
    Field,
    Method,
    Struct,
)
from ast_canopy.spelling import split_template_arguments

logger = logging.getLogger(__name__)

_CK = ci.CursorKind

RECORD_KINDS = {_CK.STRUCT_DECL: "struct", _CK.CLASS_DECL: "class", _CK.UNION_DECL: "union"}
METHOD_KINDS = {_CK.CXX_METHOD, _CK.CONSTRUCTOR, _CK.DESTRUCTOR, _CK.CONVERSION_FUNCTION}


def _layout(value: int) -> int | None:
    return value if value >= 0 else None


def record_name(cursor: ci.Cursor) -> str:
    """The record's name; for ``typedef struct {...} name;`` the typedef's name.

    clang names such an unnamed struct after its typedef (the "typedef name for linkage"), and
    its type spelling says so; a truly unnamed record gets "".
    """
    if not cursor.is_anonymous():
        return cursor.spelling
    spelling = cursor.type.spelling
    return "" if "(unnamed" in spelling or "(anonymous" in spelling else spelling.split("::")[-1]


def base_class(ctx: Context, cursor: ci.Cursor) -> BaseClass:
    """A CXX_BASE_SPECIFIER cursor -> BaseClass."""
    return BaseClass(
        qual_name=templates.record_spelling(cursor.type),
        access=functions.access_of(cursor),
        is_virtual=cursor.is_virtual_base(),
        type_=ctx.types.make(cursor.type),
    )


class _Members:
    """Collects a record body's members, flattening anonymous struct/union members.

    Fields are kept whatever their access (the layout needs them); methods, member templates and
    nested records only when public, as NVIDIA's model has them; other methods go to
    ``non_public_methods``. ``dependent`` marks the body of a class template (or a record inside
    one): its methods have no symbols yet.
    """

    def __init__(self, ctx: Context, record_type: ci.Type, qual_name: str, dependent: bool) -> None:
        self.ctx = ctx
        self.record_type = record_type
        self.qual_name = qual_name
        self.dependent = dependent
        self.fields: list[Field] = []
        self.methods: list[Method] = []
        self.non_public_methods: list[Method] = []
        self.templated_methods: list = []
        self.nested: list[Struct] = []
        self.nested_templates: list = []
        self.type_names: list[str] = []
        self.bases: list[BaseClass] = []

    def visit(self, cursor: ci.Cursor, via_anonymous: bool = False) -> None:
        ctx = self.ctx
        for child in cursor.get_children():
            kind = child.kind
            if kind == _CK.FIELD_DECL:
                self.fields.append(self.field_of(child, via_anonymous))
            elif kind in METHOD_KINDS:
                method = functions.make_method(ctx, child, self.qual_name, self.dependent)
                if method.access is Access.PUBLIC:
                    self.methods.append(method)
                else:
                    self.non_public_methods.append(method)
            elif kind == _CK.CXX_BASE_SPECIFIER:
                self.bases.append(base_class(ctx, child))
            elif kind in RECORD_KINDS and child.is_anonymous_record_decl():
                if child.is_definition():
                    # Members of `union { float f; int i; };` are members of the parent.
                    self.visit(child, via_anonymous=True)
            elif child.access_specifier == ci.AccessSpecifier.PUBLIC:
                self._public_declaration(child, kind)

    def _public_declaration(self, child: ci.Cursor, kind: ci.CursorKind) -> None:
        ctx, scope = self.ctx, f"{self.qual_name}::"
        if kind == _CK.FUNCTION_TEMPLATE:
            self.templated_methods.append(
                templates.make_function_template(ctx, child, scope, parent_qual_name=self.qual_name)
            )
        elif kind in RECORD_KINDS and child.is_definition():
            self.nested.append(make_struct(ctx, child, scope, dependent=self.dependent))
        elif kind == _CK.CLASS_TEMPLATE and child.is_definition():
            self.nested_templates.append(make_class_template(ctx, child, scope))
        if kind in (_CK.TYPEDEF_DECL, _CK.TYPE_ALIAS_DECL) or (
            kind in RECORD_KINDS and child.is_definition()
        ):
            self.type_names.append(child.spelling)

    def field_of(self, child: ci.Cursor, via_anonymous: bool) -> Field:
        is_bitfield = child.is_bitfield()
        offset: int | None = None
        if not is_bitfield:
            # Offsets of fields reached through an anonymous member are relative to that
            # member; asking the outer record by name gives the offset within it.
            bits = (
                self.record_type.get_offset(child.spelling)
                if via_anonymous
                else child.get_field_offsetof()
            )
            offset = bits // 8 if bits >= 0 else None
        return Field(
            name=child.spelling,
            type_=self.ctx.types.make(child.type),
            access=functions.access_of(child),
            offset=offset,
            is_bitfield=is_bitfield,
        )


def make_struct(
    ctx: Context,
    cursor: ci.Cursor,
    scope: str,
    name: str | None = None,
    qual_name: str | None = None,
    tag: str | None = None,
    dependent: bool = False,
) -> Struct:
    """A record definition; ``name``/``qual_name``/``tag`` override for templates, whose bodies
    are ``dependent``."""
    name = record_name(cursor) if name is None else name
    qual_name = f"{scope}{name}" if qual_name is None else qual_name
    record_type = cursor.type
    members = _Members(ctx, record_type, qual_name, dependent)
    members.visit(cursor)
    file, line = ctx.position(cursor)
    return Struct(
        name=name,
        qual_name=qual_name,
        sizeof_=_layout(record_type.get_size()),
        alignof_=_layout(record_type.get_align()),
        fields=tuple(members.fields),
        methods=tuple(members.methods),
        templated_methods=tuple(members.templated_methods),
        nested_records=tuple(members.nested),
        bases=tuple(members.bases),
        tag=tag or RECORD_KINDS.get(cursor.kind, "struct"),
        is_abstract=cursor.is_abstract_record(),
        file=file,
        line=line,
        nested_class_templates=tuple(members.nested_templates),
        non_public_methods=tuple(members.non_public_methods),
        parse_entry_point=ctx.entry_point,
        member_type_names=tuple(dict.fromkeys(members.type_names)),
    )


def _instance_fields(members: _Members, record_type: ci.Type, via_anonymous: bool) -> None:
    for child in record_type.get_fields():
        if child.is_anonymous():
            # An anonymous struct/union member: its fields are the record's.
            _instance_fields(members, child.type, via_anonymous=True)
        else:
            members.fields.append(members.field_of(child, via_anonymous))


def make_instance_struct(ctx: Context, cursor: ci.Cursor, qual_name: str) -> Struct:
    """An implicit instantiation of a class template, as far as clang instantiated it.

    libclang does not visit the members of implicit instantiations, but the record type lists
    its fields, methods and bases. Member templates and nested records of an instance are not
    reachable that way (the class template has them). Members clang declared implicitly (a
    copy constructor it needed) sit at the class's own location and are left out, as they are
    for written records.
    """
    record_type = cursor.type
    members = _Members(ctx, record_type, qual_name, dependent=False)
    _instance_fields(members, record_type, via_anonymous=False)
    own_location = cursor.location.offset
    for child in record_type.get_methods():
        if child.location.offset == own_location:
            continue
        method = functions.make_method(ctx, child, qual_name)
        if method.access is Access.PUBLIC:
            members.methods.append(method)
        else:
            members.non_public_methods.append(method)
    bases = [base_class(ctx, base) for base in record_type.get_bases()]
    file, line = ctx.position(cursor)
    return Struct(
        name=cursor.spelling,
        qual_name=qual_name,
        sizeof_=_layout(record_type.get_size()),
        alignof_=_layout(record_type.get_align()),
        fields=tuple(members.fields),
        methods=tuple(members.methods),
        bases=tuple(bases),
        tag=RECORD_KINDS.get(cursor.kind, "struct"),
        is_abstract=cursor.is_abstract_record(),
        file=file,
        line=line,
        non_public_methods=tuple(members.non_public_methods),
        parse_entry_point=ctx.entry_point,
    )


def make_class_template(ctx: Context, cursor: ci.Cursor, scope: str) -> ClassTemplate:
    params = templates.template_params(ctx, cursor)
    tag = RECORD_KINDS.get(templates.record_kind_of_template(cursor), "struct")
    record = make_struct(ctx, cursor, scope, name=cursor.spelling, tag=tag, dependent=True)
    return ClassTemplate(
        params,
        record,
        templates.min_required_args(params),
        enclosing_namespace=defaults.enclosing_namespace(cursor),
    )


def make_partial_specialization(
    ctx: Context, cursor: ci.Cursor, scope: str
) -> ClassTemplatePartialSpecialization:
    params = templates.template_params(ctx, cursor)
    # "ns::Vec<T, 1>", every name in the pattern qualified.
    spelling = ctx.types.make(cursor.type).fully_qualified_name or f"{scope}{cursor.displayname}"
    record = make_struct(
        ctx, cursor, scope, name=cursor.spelling, qual_name=spelling, dependent=True
    )
    primary = templates.primary_template(cursor)
    return ClassTemplatePartialSpecialization(
        template_parameters=params,
        record=record,
        template_qual_name=templates.qualified_name(primary) if primary is not None else "",
        template_arguments=split_template_arguments(spelling),
        num_min_required_args=templates.min_required_args(params),
        enclosing_namespace=defaults.enclosing_namespace(cursor),
    )

"""Struct, class and union definitions -> ``model.Struct`` (also the body of class templates)."""

from __future__ import annotations

import logging

from clang import cindex as ci

from ast_canopy import functions, templates
from ast_canopy.context import Context
from ast_canopy.model import BaseClass, Field, Method, Struct

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


class _Members:
    """Collects a record body's members, flattening anonymous struct/union members."""

    def __init__(self, ctx: Context, record_type: ci.Type, qual_name: str) -> None:
        self.ctx = ctx
        self.record_type = record_type
        self.qual_name = qual_name
        self.fields: list[Field] = []
        self.methods: list[Method] = []
        self.templated_methods: list = []
        self.nested: list[Struct] = []
        self.bases: list[BaseClass] = []

    def visit(self, cursor: ci.Cursor, via_anonymous: bool = False) -> None:
        ctx = self.ctx
        for child in cursor.get_children():
            kind = child.kind
            if kind == _CK.FIELD_DECL:
                self.fields.append(self._field(child, via_anonymous))
            elif kind in METHOD_KINDS:
                self.methods.append(functions.make_method(ctx, child, self.qual_name))
            elif kind == _CK.FUNCTION_TEMPLATE:
                self.templated_methods.append(
                    templates.make_function_template(
                        ctx, child, f"{self.qual_name}::", parent_qual_name=self.qual_name
                    )
                )
            elif kind in RECORD_KINDS and child.is_definition():
                if child.is_anonymous_record_decl():
                    # Members of `union { float f; int i; };` are members of the parent.
                    self.visit(child, via_anonymous=True)
                else:
                    self.nested.append(make_struct(ctx, child, f"{self.qual_name}::"))
            elif kind == _CK.CXX_BASE_SPECIFIER:
                self.bases.append(
                    BaseClass(
                        qual_name=child.type.get_canonical().spelling,
                        access=functions.access_of(child),
                        is_virtual=child.is_virtual_base(),
                    )
                )

    def _field(self, child: ci.Cursor, via_anonymous: bool) -> Field:
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
) -> Struct:
    """A record definition; ``name``/``qual_name``/``tag`` override for templates."""
    name = record_name(cursor) if name is None else name
    qual_name = f"{scope}{name}" if qual_name is None else qual_name
    record_type = cursor.type
    members = _Members(ctx, record_type, qual_name)
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
    )

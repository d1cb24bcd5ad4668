"""The walk: a translation unit's retained top-level declarations -> ``model.Declarations``.

Walking cursors from Python costs more than clang's parse, so the walk never enters a
declaration (namespaces included) whose file is not retained, and never descends into function
bodies or expressions.
"""

from __future__ import annotations

import logging

from clang import cindex as ci

from ast_canopy import functions, records, templates, values
from ast_canopy.context import Context
from ast_canopy.model import (
    ClassTemplate,
    ClassTemplateSpecialization,
    Declarations,
    Enum_,
    Typedef,
)
from ast_canopy.spelling import split_template_arguments

logger = logging.getLogger(__name__)

_CK = ci.CursorKind
# extern "C" blocks are LINKAGE_SPEC; UNEXPOSED_DECL (variable templates and the like) is not a
# scope we could name, so it is not entered.
_SCOPES = {_CK.NAMESPACE, _CK.LINKAGE_SPEC}


class Extractor:
    """Fills one Declarations from one translation unit."""

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx
        self.decls = Declarations()
        # A function declared in the .h and defined in the .hpp is one function: keep its first
        # declaration (the one with the default arguments and the documented parameter names).
        self._seen_usrs: set[str] = set()
        self._handlers = {
            _CK.FUNCTION_DECL: self._function,
            _CK.FUNCTION_TEMPLATE: self._function_template,
            _CK.STRUCT_DECL: self._record,
            _CK.CLASS_DECL: self._record,
            _CK.UNION_DECL: self._record,
            _CK.CLASS_TEMPLATE: self._class_template,
            _CK.ENUM_DECL: self._enum,
            _CK.TYPEDEF_DECL: self._typedef,
            _CK.TYPE_ALIAS_DECL: self._typedef,
            _CK.VAR_DECL: self._variable,
        }

    def run(self) -> Declarations:
        self._walk(self.ctx.tu.cursor, "")
        return self.decls

    def _walk(self, parent: ci.Cursor, scope: str) -> None:
        is_retained = self.ctx.is_retained
        handlers = self._handlers
        for cursor in parent.get_children():
            if not is_retained(cursor):
                continue
            kind = cursor.kind
            if kind in _SCOPES:
                name = cursor.spelling if kind == _CK.NAMESPACE else ""
                # An anonymous namespace adds nothing a caller in the same file could spell.
                self._walk(cursor, f"{scope}{name}::" if name else scope)
                continue
            handler = handlers.get(kind)
            if handler is not None:
                handler(cursor, scope)
            elif kind == _CK.CLASS_TEMPLATE_PARTIAL_SPECIALIZATION:
                logger.debug("skipping partial specialization %s%s", scope, cursor.displayname)

    def _first_declaration(self, cursor: ci.Cursor) -> bool:
        usr = cursor.get_usr()
        if usr in self._seen_usrs:
            return False
        self._seen_usrs.add(usr)
        return True

    def _function(self, cursor: ci.Cursor, scope: str) -> None:
        if self._first_declaration(cursor):
            self.decls.functions.append(functions.make_function(self.ctx, cursor, scope))

    def _function_template(self, cursor: ci.Cursor, scope: str) -> None:
        if self._first_declaration(cursor):
            self.decls.function_templates.append(
                templates.make_function_template(self.ctx, cursor, scope)
            )

    def _record(self, cursor: ci.Cursor, scope: str) -> None:
        if not cursor.is_definition():
            return
        primary = cursor.specialized_template
        if primary is not None and primary.kind == _CK.CLASS_TEMPLATE:
            self._specialization(cursor, primary, scope)
            return
        name = records.record_name(cursor)
        if not name:
            logger.debug("skipping an unnamed record in %s at line %d", scope, cursor.location.line)
            return
        self.decls.structs.append(records.make_struct(self.ctx, cursor, scope, name=name))

    def _specialization(self, cursor: ci.Cursor, primary: ci.Cursor, scope: str) -> None:
        display = cursor.displayname  # "Vec<float, 3>"
        record = records.make_struct(
            self.ctx, cursor, scope, name=cursor.spelling, qual_name=f"{scope}{display}"
        )
        self.decls.class_template_specializations.append(
            ClassTemplateSpecialization(
                record=record,
                template_qual_name=qualified_name(primary),
                template_arguments=split_template_arguments(display),
            )
        )

    def _class_template(self, cursor: ci.Cursor, scope: str) -> None:
        if not cursor.is_definition():
            return
        params = templates.template_params(self.ctx, cursor)
        tag = records.RECORD_KINDS.get(templates.record_kind_of_template(cursor), "struct")
        record = records.make_struct(self.ctx, cursor, scope, name=cursor.spelling, tag=tag)
        self.decls.class_templates.append(
            ClassTemplate(params, record, templates.min_required_args(params))
        )

    def _enum(self, cursor: ci.Cursor, scope: str) -> None:
        if not cursor.is_definition():
            return
        name = records.record_name(cursor)
        if not name:
            logger.debug("skipping an unnamed enum in %s at line %d", scope, cursor.location.line)
            return
        names: list[str] = []
        numbers: list[int] = []
        for child in cursor.get_children():
            if child.kind == _CK.ENUM_CONSTANT_DECL:
                names.append(child.spelling)
                numbers.append(child.enum_value)
        file, line = self.ctx.position(cursor)
        self.decls.enums.append(
            Enum_(
                name=name,
                qual_name=f"{scope}{name}",
                underlying_type=self.ctx.types.make(cursor.enum_type),
                enumerators=tuple(names),
                enumerator_values=tuple(numbers),
                is_scoped=cursor.is_scoped_enum(),
                file=file,
                line=line,
            )
        )

    def _typedef(self, cursor: ci.Cursor, scope: str) -> None:
        name = cursor.spelling
        underlying = cursor.underlying_typedef_type
        qual_name = f"{scope}{name}"
        # `typedef struct {...} name;` already gave the struct this name; the typedef would
        # only alias it to itself.
        if underlying.get_canonical().spelling == qual_name:
            return
        file, line = self.ctx.position(cursor)
        self.decls.typedefs.append(
            Typedef(
                name=name,
                qual_name=qual_name,
                underlying_type=self.ctx.types.make(underlying),
                file=file,
                line=line,
            )
        )

    def _variable(self, cursor: ci.Cursor, scope: str) -> None:
        if not values.is_constexpr_var(self.ctx, cursor):
            return
        var = values.make_constexpr_var(self.ctx, cursor, scope)
        if var is not None:
            self.decls.constexpr_vars.append(var)


def qualified_name(cursor: ci.Cursor) -> str:
    """Namespaces and classes around a declaration, from its semantic parents (slow path)."""
    parts = [cursor.spelling]
    parent = cursor.semantic_parent
    while parent is not None and parent.kind != _CK.TRANSLATION_UNIT:
        if parent.spelling and parent.kind != _CK.LINKAGE_SPEC:
            parts.append(parent.spelling)
        parent = parent.semantic_parent
    return "::".join(reversed(parts))


def extract(ctx: Context) -> Declarations:
    return Extractor(ctx).run()

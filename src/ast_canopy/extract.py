"""The walk: a translation unit's retained top-level declarations -> ``model.Declarations``.

Walking cursors from Python costs more than clang's parse, so the walk never enters a
declaration (namespaces included) whose file is not retained, and never descends into function
bodies or expressions.
"""

from __future__ import annotations

import logging

from clang import cindex as ci

from ast_canopy import _libclang, functions, instances, macros, records, templates, values
from ast_canopy.context import Context
from ast_canopy.model import Declarations, Enum_, Typedef

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
        # Class templates declared but never defined (``template <...> struct Array;``): only
        # reported when specializations written here define them (run()).
        self._declared_only: list[tuple[ci.Cursor, str]] = []
        self._macros = macros.MacroCollector(ctx)
        self._handlers = {
            _CK.FUNCTION_DECL: self._function,
            _CK.FUNCTION_TEMPLATE: self._function_template,
            _CK.STRUCT_DECL: self._record,
            _CK.CLASS_DECL: self._record,
            _CK.UNION_DECL: self._record,
            _CK.CLASS_TEMPLATE: self._class_template,
            _CK.CLASS_TEMPLATE_PARTIAL_SPECIALIZATION: self._partial_specialization,
            _CK.TYPE_ALIAS_TEMPLATE_DECL: self._alias_template,
            _CK.ENUM_DECL: self._enum,
            _CK.TYPEDEF_DECL: self._typedef,
            _CK.TYPE_ALIAS_DECL: self._typedef,
            _CK.VAR_DECL: self._variable,
        }

    def run(self) -> Declarations:
        self._walk(self.ctx.tu.cursor, "")
        self._add_templates_defined_by_specializations()
        self.decls.class_template_specializations += instances.named_instances(self.ctx, self.decls)
        self.decls.structs += instances.named_tag_records(self.ctx, self.decls)
        self.decls.macro_constants = self._macros.constants()
        return self.decls

    def _walk(self, parent: ci.Cursor, scope: str) -> None:
        is_retained = self.ctx.is_retained
        handlers = self._handlers
        # With the detailed preprocessing record (kept only when a retained file defines a
        # macro that may be a literal), every directive and expansion is a top-level cursor.
        for cursor in _libclang.children(parent, _libclang.DIRECTIVES_AND_EXPANSIONS):
            if not is_retained(cursor):
                continue
            kind = cursor.kind
            if kind == _CK.MACRO_DEFINITION:
                self._macros.visit(cursor)
                continue
            if kind in _SCOPES:
                name = cursor.spelling if kind == _CK.NAMESPACE else ""
                if name and _libclang.is_inline_namespace(cursor):
                    # Spelled as clang spells types: without inline namespaces (``cub::X``,
                    # not ``cub::_V_300500_SM_900::X``), which C++ finds all the same.
                    name = ""
                # An anonymous namespace adds nothing a caller in the same file could spell.
                self._walk(cursor, f"{scope}{name}::" if name else scope)
                continue
            handler = handlers.get(kind)
            if handler is not None:
                handler(cursor, scope)

    def _first_declaration(self, cursor: ci.Cursor) -> bool:
        usr = cursor.get_usr()
        if usr in self._seen_usrs:
            return False
        self._seen_usrs.add(usr)
        return True

    def _function(self, cursor: ci.Cursor, scope: str) -> None:
        if cursor.specialized_template is not None and not instances.is_explicit_specialization(
            cursor
        ):
            # An implicit instance of a function template (clang lists those a consteval
            # call instantiated, libcu++'s __make_numeric_limits_type<float>, at the top level
            # of the unit): the template is reported, not its instances.
            return
        template = cursor.specialized_template
        if template is not None and not templates.deducible_from_call(self.ctx, template):
            # ``template <> complex<float> from_real<complex<float>>(double)``: a call names the
            # template arguments, so the specialization is reached through its template, which
            # is reported too where its header is not retained (CUTLASS's real.h):
            # ``from_real[Complex](x)`` instantiates the specialization.
            if self._first_declaration(template):
                self.decls.function_templates.append(
                    templates.make_function_template(self.ctx, template, scope)
                )
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
        if cursor.specialized_template is not None:
            written = not instances.is_explicit_instantiation(cursor)
            self.decls.class_template_specializations.append(
                instances.make_specialization(self.ctx, cursor, written=written)
            )
            return
        name = records.record_name(cursor)
        if not name:
            logger.debug("skipping an unnamed record in %s at line %d", scope, cursor.location.line)
            return
        self.decls.structs.append(records.make_struct(self.ctx, cursor, scope, name=name))

    def _class_template(self, cursor: ci.Cursor, scope: str) -> None:
        if cursor.is_definition():
            self.decls.class_templates.append(records.make_class_template(self.ctx, cursor, scope))
        elif cursor.get_definition() is None and self._first_declaration(cursor):
            self._declared_only.append((cursor, scope))

    def _add_templates_defined_by_specializations(self) -> None:
        """A primary template that is only declared, whose partial or explicit
        specializations are defined (CUTLASS's ``Array<T, N, bool RegisterSized = ...>`` is
        ``Array<T, N, true>`` and ``Array<T, N, false>``): reported, without members, so that
        its specializations are reachable through it."""
        if not self._declared_only:
            return
        specialized = {
            p.template_qual_name for p in self.decls.class_template_partial_specializations
        }
        specialized |= {s.template_qual_name for s in self.decls.class_template_specializations}
        for cursor, scope in self._declared_only:
            if f"{scope}{cursor.spelling}" in specialized:
                template = records.make_class_template(self.ctx, cursor, scope)
                self.decls.class_templates.append(template)

    def _partial_specialization(self, cursor: ci.Cursor, scope: str) -> None:
        if cursor.is_definition():
            self.decls.class_template_partial_specializations.append(
                records.make_partial_specialization(self.ctx, cursor, scope)
            )

    def _alias_template(self, cursor: ci.Cursor, scope: str) -> None:
        alias = templates.make_alias_template(self.ctx, cursor, scope)
        if alias is not None:
            self.decls.alias_templates.append(alias)

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
                enumerator_values=tuple(str(n) for n in numbers),
                enumerator_ints=tuple(numbers),
                is_scoped=cursor.is_scoped_enum(),
                file=file,
                line=line,
            )
        )

    def _typedef(self, cursor: ci.Cursor, scope: str) -> None:
        # `typedef struct {...} name;` is reported twice, as NVIDIA does: as the struct `name`
        # (the name C++ gives it for linkage) and as a typedef of `name` to itself.
        file, line = self.ctx.position(cursor)
        self.decls.typedefs.append(
            Typedef(
                name=cursor.spelling,
                qual_name=f"{scope}{cursor.spelling}",
                underlying_type=self.ctx.types.make(cursor.underlying_typedef_type),
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


def extract(ctx: Context) -> Declarations:
    return Extractor(ctx).run()

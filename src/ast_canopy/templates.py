"""Template parameters, function templates, alias templates, and what names a class template."""

from __future__ import annotations

from clang import cindex as ci

from ast_canopy import _libclang, functions
from ast_canopy.context import Context
from ast_canopy.model import AliasTemplate, FunctionTemplate, TemplateParam, TemplateParamKind

_CK = ci.CursorKind

TEMPLATE_PARAM_KINDS = {
    _CK.TEMPLATE_TYPE_PARAMETER: TemplateParamKind.TYPE,
    _CK.TEMPLATE_NON_TYPE_PARAMETER: TemplateParamKind.NON_TYPE,
    _CK.TEMPLATE_TEMPLATE_PARAMETER: TemplateParamKind.TEMPLATE,
}
_OPENERS = {"(": 1, "[": 1, "{": 1, "<": 1}
_CLOSERS = {")": 1, "]": 1, "}": 1, ">": 1, ">>": 2}


def _split_default(ctx: Context, tokens: list[ci.Token]) -> tuple[list[str], str | None]:
    """Spellings before the top-level ``=`` and the default's text after it (None if none).

    libclang exposes neither a template parameter's default nor whether it is a pack, but both
    are plain in its tokens. Angle brackets count as nesting so that the ``=`` inside a template
    template parameter's own parameter list (``template <class U = int> class TT``) is skipped.
    """
    spellings = [t.spelling for t in tokens]
    depth = 0
    for i, tok in enumerate(spellings):
        if tok in _OPENERS:
            depth += 1
        elif tok in _CLOSERS:
            depth -= _CLOSERS[tok]
        elif tok == "=" and depth <= 0:
            rest = tokens[i + 1 :]
            return spellings[:i], (ctx.tokens_text(rest) if rest else None)
    return spellings, None


def template_param(ctx: Context, cursor: ci.Cursor) -> TemplateParam:
    kind = TEMPLATE_PARAM_KINDS[cursor.kind]
    head, default = _split_default(ctx, list(cursor.get_tokens()))
    return TemplateParam(
        name=cursor.spelling,
        kind=kind,
        type_=None if kind is TemplateParamKind.TEMPLATE else ctx.types.make(cursor.type),
        default=default,
        is_pack="..." in head,
    )


def template_params(ctx: Context, cursor: ci.Cursor) -> tuple[TemplateParam, ...]:
    return tuple(
        template_param(ctx, child)
        for child in cursor.get_children()
        if child.kind in TEMPLATE_PARAM_KINDS
    )


def min_required_args(params: tuple[TemplateParam, ...]) -> int:
    return sum(1 for p in params if p.default is None and not p.is_pack)


def make_function_template(
    ctx: Context, cursor: ci.Cursor, scope: str, parent_qual_name: str | None = None
) -> FunctionTemplate:
    """A free function template, or a member template when ``parent_qual_name`` is given."""
    params = template_params(ctx, cursor)
    if parent_qual_name is None:
        function = functions.make_function(ctx, cursor, scope)
    else:
        function = functions.make_method(ctx, cursor, parent_qual_name)
    return FunctionTemplate(params, function, min_required_args(params))


def record_kind_of_template(cursor: ci.Cursor) -> ci.CursorKind:
    """STRUCT_DECL, CLASS_DECL or UNION_DECL for a class template cursor."""
    return ci.CursorKind.from_id(ci.conf.lib.clang_getTemplateCursorKind(cursor))


def primary_template(cursor: ci.Cursor) -> ci.Cursor | None:
    """The primary class template a specialization (or partial specialization) specializes."""
    template = cursor.specialized_template
    # An instance of a partial specialization names the partial specialization first.
    while template is not None and template.kind == _CK.CLASS_TEMPLATE_PARTIAL_SPECIALIZATION:
        template = template.specialized_template
    return template


def qualified_name(cursor: ci.Cursor) -> str:
    """Namespaces and classes around a declaration, from its semantic parents (slow path)."""
    parts = [cursor.spelling]
    parent = cursor.semantic_parent
    while parent is not None and parent.kind != _CK.TRANSLATION_UNIT:
        inline = parent.kind == _CK.NAMESPACE and _libclang.is_inline_namespace(parent)
        if parent.spelling and parent.kind != _CK.LINKAGE_SPEC and not inline:
            parts.append(parent.spelling)
        parent = parent.semantic_parent
    return "::".join(reversed(parts))


def make_alias_template(ctx: Context, cursor: ci.Cursor, scope: str) -> AliasTemplate | None:
    alias = next((c for c in cursor.get_children() if c.kind == _CK.TYPE_ALIAS_DECL), None)
    if alias is None:
        return None
    params = template_params(ctx, cursor)
    file, line = ctx.position(cursor)
    return AliasTemplate(
        name=cursor.spelling,
        qual_name=f"{scope}{cursor.spelling}",
        template_parameters=params,
        underlying_type=ctx.types.make(alias.underlying_typedef_type),
        num_min_required_args=min_required_args(params),
        file=file,
        line=line,
    )

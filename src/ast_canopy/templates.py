"""Template parameters, function templates, alias templates, and what names a class template."""

from __future__ import annotations

import re

from clang import cindex as ci

from ast_canopy import _libclang, defaults, functions
from ast_canopy.context import Context
from ast_canopy.model import AliasTemplate, FunctionTemplate, TemplateParam, TemplateParamKind
from ast_canopy.spelling import split_template_arguments

_CK = ci.CursorKind

TEMPLATE_PARAM_KINDS = {
    _CK.TEMPLATE_TYPE_PARAMETER: TemplateParamKind.TYPE,
    _CK.TEMPLATE_NON_TYPE_PARAMETER: TemplateParamKind.NON_TYPE,
    _CK.TEMPLATE_TEMPLATE_PARAMETER: TemplateParamKind.TEMPLATE,
}
_PACK = re.compile(r"\.\.\.")


def template_param(ctx: Context, cursor: ci.Cursor) -> TemplateParam:
    kind = TEMPLATE_PARAM_KINDS[cursor.kind]
    printed = cursor.pretty_printed(ctx.policy)
    default, qualified = defaults.default_texts(ctx, cursor, printed)
    return TemplateParam(
        name=cursor.spelling,
        kind=kind,
        type_=None if kind is TemplateParamKind.TEMPLATE else ctx.types.make(cursor.type),
        default=default,
        is_pack=_is_pack(cursor, printed),
        default_qualified=qualified,
    )


def _is_pack(cursor: ci.Cursor, printed: str) -> bool:
    """``typename... Ts``: libclang does not say; the printed declaration has the ellipsis
    before the name (a pack has no default, so no ``...`` of a default is seen)."""
    if cursor.kind == _CK.TEMPLATE_TEMPLATE_PARAMETER:
        printed = printed[printed.rfind(">") + 1 :]
    return bool(_PACK.search(printed.split(" = ", 1)[0]))


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
    return FunctionTemplate(
        params,
        function,
        min_required_args(params),
        enclosing_namespace=defaults.enclosing_namespace(cursor),
    )


def deducible_from_call(ctx: Context, cursor: ci.Cursor) -> bool:
    """Whether a call can deduce every template parameter of function template ``cursor``
    without a default: each is named in a function parameter's type."""
    written = " ".join(
        child.type.spelling for child in cursor.get_children() if child.kind == _CK.PARM_DECL
    )
    names = set(re.findall(r"[A-Za-z_]\w*", written))
    return all(
        param.default is not None or param.is_pack or param.name in names
        for param in template_params(ctx, cursor)
    )


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
        enclosing_namespace=defaults.enclosing_namespace(cursor),
    )


def record_spelling(record_type: ci.Type) -> str:
    """A record type's canonical spelling, fully qualified (``ns::Vec<float, 3>``), with its
    value arguments spelled so that they mean the same anywhere (see ``_portable_values``)."""
    spelling = record_type.get_canonical().spelling
    if "<" not in spelling:
        return spelling
    declaration = record_type.get_canonical().get_declaration()
    return _portable_values(spelling, declaration, primary_template(declaration))


_NAME_CHAIN = re.compile(r"^(?:::)?[A-Za-z_]\w*(?:::[A-Za-z_]\w*)*$")


def _portable_values(spelling: str, specialization: ci.Cursor, primary: ci.Cursor | None) -> str:
    """``spelling`` with its value arguments written so that they name the same anywhere:
    clang prints an argument as the specialization wrote it, in the scope it was written in,
    which names nothing outside: an enumerator of an enum parameter
    (``cuda::std::__numeric_limits_impl<float, __numeric_limits_type::__floating_point>``) is
    qualified with the enum's scope, and a named constant of an integer parameter
    (cooperative groups' ``tile_reduce_dispatch<details::coalesced_group_id>``) becomes its
    value, as clang writes literals (``1U``). A specialization's name is spelled by shims."""
    if primary is None:
        return spelling
    parameters = [c for c in primary.get_children() if c.kind in TEMPLATE_PARAM_KINDS]
    arguments = list(split_template_arguments(spelling))
    if len(arguments) > len(parameters):  # a pack: positions do not line up
        return spelling
    rewritten: dict[int, str] = {}
    for index, (parameter, argument) in enumerate(zip(parameters, arguments)):  # noqa: B905
        if parameter.kind == ci.CursorKind.TEMPLATE_TYPE_PARAMETER:
            qualified = _qualified_type_argument(specialization, index, argument)
            if qualified is not None and qualified != argument:
                rewritten[index] = qualified
            continue
        if parameter.kind != ci.CursorKind.TEMPLATE_NON_TYPE_PARAMETER:
            continue
        if not _NAME_CHAIN.match(argument) or argument in ("true", "false", "nullptr"):
            continue
        value_type = parameter.type.get_canonical()
        enum = value_type.get_declaration()
        if enum.kind == ci.CursorKind.ENUM_DECL:
            name = qualified_name(enum)  # the enum's: "cuda::std::E"
            scope = name if enum.is_scoped_enum() else name.rpartition("::")[0]
            enumerator = argument.rpartition("::")[2]
            rewritten[index] = f"{scope}::{enumerator}" if scope else enumerator
        elif specialization.get_template_argument_kind(index) == ci.TemplateArgumentKind.INTEGRAL:
            rewritten[index] = _integer_literal(specialization, index, value_type)
    if not rewritten or any(_written_as_pack(p) for p in parameters[: max(rewritten)]):
        return spelling  # nothing to rewrite, or a pack before: positions do not line up
    for index, argument in rewritten.items():
        arguments[index] = argument
    return f"{spelling[: spelling.index('<')]}<{', '.join(arguments)}>"


def _qualified_type_argument(specialization: ci.Cursor, index: int, written: str) -> str | None:
    """Type argument ``index`` of ``specialization``, written ``written``, spelled fully
    qualified when it names a class by its own name: an explicit specialization's spelling keeps
    its arguments as written in its namespace (``cuda::std::__is_identity<__identity>`` in CCCL
    3.0), which names nothing elsewhere. A typedef stays as written: clang and NVRTC may read it
    as different types (``int64_t``: long and long long). None: keep it as written."""
    argument = specialization.type.get_template_argument_type(index)
    if argument.kind == ci.TypeKind.INVALID:  # a pack
        return None
    canonical = argument.get_canonical()
    if canonical.kind not in (ci.TypeKind.RECORD, ci.TypeKind.ENUM):
        return None
    head = written.split("<")[0].strip()
    declaration = canonical.get_declaration()
    if head != declaration.spelling:  # qualified already, or a typedef, or cv-qualified
        return None
    if canonical.kind == ci.TypeKind.ENUM:
        return canonical.spelling
    return record_spelling(canonical)  # its own arguments too


_UNSIGNED = {
    ci.TypeKind.UINT: "U",
    ci.TypeKind.ULONG: "UL",
    ci.TypeKind.ULONGLONG: "ULL",
    ci.TypeKind.USHORT: "",
    ci.TypeKind.UCHAR: "",
}
_LONG = {ci.TypeKind.LONG: "L", ci.TypeKind.LONGLONG: "LL"}


def _integer_literal(specialization: ci.Cursor, index: int, value_type: ci.Type) -> str:
    """The integer argument ``index`` of ``specialization`` as clang writes a literal of its
    parameter's type (``4U`` for unsigned int, ``-3`` for int)."""
    if value_type.kind == ci.TypeKind.BOOL:
        return "true" if specialization.get_template_argument_value(index) else "false"
    if value_type.kind in _UNSIGNED:
        value = specialization.get_template_argument_unsigned_value(index)
        return f"{value}{_UNSIGNED[value_type.kind]}"
    value = specialization.get_template_argument_value(index)
    return f"{value}{_LONG.get(value_type.kind, '')}"


def _written_as_pack(parameter: ci.Cursor) -> bool:
    return any(token.spelling == "..." for token in parameter.get_tokens())

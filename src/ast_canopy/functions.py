"""Function and method cursors -> ``model.Function`` / ``model.Method``.

Never call ``mangled_name`` on anything but a function or variable declaration: on an unnamed
parameter cursor libclang segfaults.
"""

from __future__ import annotations

import re
from typing import Any

from clang import cindex as ci

from ast_canopy.context import Context
from ast_canopy.model import Access, ExecutionSpace, Function, Method, MethodKind, ParamVar

_CK = ci.CursorKind
_ESK = ci.ExceptionSpecificationKind

_ACCESS = {
    ci.AccessSpecifier.PUBLIC: Access.PUBLIC,
    ci.AccessSpecifier.PROTECTED: Access.PROTECTED,
    ci.AccessSpecifier.PRIVATE: Access.PRIVATE,
}
# noexcept(expr) is reported as "computed" whatever expr says; noexcept(false) is rare enough in
# device headers that counting it as noexcept is the better mistake.
_NOEXCEPT = {_ESK.BASIC_NOEXCEPT, _ESK.COMPUTED_NOEXCEPT, _ESK.DYNAMIC_NONE}
# __attribute__((name...)) and [[name...]] in clang's pretty-printed declaration.
_GNU_ATTR_RE = re.compile(r"__attribute__\(\((\w+)")
_STD_ATTR_RE = re.compile(r"\[\[(?:\w+::)?(\w+)")
_ATTR_BLOCK_RE = re.compile(r"__attribute__\(\(.*?\)\)\s*|\[\[.*?\]\]\s*|__declspec\(.*?\)\s*")
_ATTR_RENAME = {"always_inline": "forceinline"}
_OPERATOR_PREFIX = "operator"
_ARRAYS = {
    ci.TypeKind.CONSTANTARRAY,
    ci.TypeKind.INCOMPLETEARRAY,
    ci.TypeKind.DEPENDENTSIZEDARRAY,
    ci.TypeKind.VARIABLEARRAY,
}


def operator_of(name: str) -> str | None:
    """``"operator+"`` -> ``"+"``, ``"operator()"`` -> ``"()"``; None for other names."""
    if not name.startswith(_OPERATOR_PREFIX) or len(name) == len(_OPERATOR_PREFIX):
        return None
    rest = name[len(_OPERATOR_PREFIX) :]
    if rest[0].isalnum() or rest[0] == "_":  # an identifier such as operator_count
        return None
    return rest.strip()


def exec_space_of(host: bool, device: bool, is_global: bool) -> ExecutionSpace:
    if is_global:
        return ExecutionSpace.GLOBAL
    if device:
        return ExecutionSpace.HOST_DEVICE if host else ExecutionSpace.DEVICE
    # No attribute at all means __host__ in CUDA.
    return ExecutionSpace.HOST


def default_value_of(ctx: Context, param: ci.Cursor) -> str | None:
    """The source text of a parameter's default argument, or None.

    libclang has no accessor for it. The default is the parameter's last expression child; an
    array extent is an expression child too, so the tokens confirm a top-level ``=``.
    """
    expr = None
    for child in param.get_children():
        if child.kind.is_expression():
            expr = child
    if expr is None:
        return None
    tokens = list(param.get_tokens())
    depth = 0
    for i, token in enumerate(tokens):
        spelling = token.spelling
        if spelling in ("(", "[", "{"):
            depth += 1
        elif spelling in (")", "]", "}"):
            depth -= 1
        elif spelling == "=" and depth == 0:
            rest = tokens[i + 1 :]
            return ctx.tokens_text(rest) if rest else None
    if not tokens:
        # The declaration starts inside a macro expansion, where libclang yields no tokens; the
        # expression's own tokens (the macro name, if it is one) are the best text there is.
        expr_tokens = list(expr.get_tokens())
        return ctx.tokens_text(expr_tokens) if expr_tokens else None
    return None


def effective_kind(cursor: ci.Cursor) -> ci.CursorKind:
    """The declaration kind, seeing through a function template to what it templates."""
    kind = cursor.kind
    if kind == _CK.FUNCTION_TEMPLATE:
        return ci.CursorKind.from_id(ci.conf.lib.clang_getTemplateCursorKind(cursor))
    return kind


def _param(ctx: Context, cursor: ci.Cursor) -> ParamVar:
    param_type = cursor.type
    if param_type.get_canonical().kind in _ARRAYS:
        # An `int a[3]` parameter is an `int *` (the ABI and the mangled name say so).
        model_type = ctx.types.decayed_array(param_type)
    else:
        model_type = ctx.types.make(param_type)
    return ParamVar(cursor.spelling, model_type, default_value_of(ctx, cursor))


def _pretty_head(ctx: Context, cursor: ci.Cursor) -> tuple[str, tuple[str, ...], str]:
    """(specifiers before the name, attribute names, pretty text) from clang's printer."""
    text = cursor.pretty_printed(ctx.policy)
    attrs = tuple(
        _ATTR_RENAME.get(a, a)
        for a in _GNU_ATTR_RE.findall(text) + _STD_ATTR_RE.findall(text)
        if a not in ("host", "device", "global")
    )
    head = _ATTR_BLOCK_RE.sub("", text).split("(", 1)[0]
    return head, attrs, text


def function_fields(ctx: Context, cursor: ci.Cursor, scope: str) -> dict[str, Any]:
    """Keyword arguments shared by Function and Method."""
    host = device = is_global = False
    param_cursors: list[ci.Cursor] = []
    for child in cursor.get_children():
        child_kind = child.kind
        if child_kind == _CK.PARM_DECL:
            param_cursors.append(child)
        elif child_kind == _CK.CUDADEVICE_ATTR:
            device = True
        elif child_kind == _CK.CUDAHOST_ATTR:
            host = True
        elif child_kind == _CK.CUDAGLOBAL_ATTR:
            is_global = True
    function_type = cursor.type
    if function_type.kind == ci.TypeKind.FUNCTIONPROTO:
        # Parameters of a function type written in the return type (`int (*f())(int)`) are
        # PARM_DECL children too, visited before the function's own, which come last.
        count = len(function_type.argument_types())
        param_cursors = param_cursors[len(param_cursors) - count :] if count else []
    params = tuple(_param(ctx, child) for child in param_cursors)
    head, pretty_attrs, text = _pretty_head(ctx, cursor)
    cuda_attrs = tuple(
        name
        for name, present in (("global", is_global), ("host", host), ("device", device))
        if present
    )
    name = cursor.spelling
    file, line = ctx.position(cursor)
    is_template = cursor.kind == _CK.FUNCTION_TEMPLATE
    kind = effective_kind(cursor) if is_template else cursor.kind
    return {
        "name": name,
        "qual_name": f"{scope}{name}",
        "return_type": ctx.types.make(cursor.result_type),
        "params": params,
        "exec_space": exec_space_of(host, device, is_global),
        # A template has no symbol until instantiated.
        "mangled_name": "" if is_template else cursor.mangled_name,
        "is_constexpr": bool(re.search(r"\b(constexpr|consteval)\b", head)),
        "is_noexcept": cursor.exception_specification_kind in _NOEXCEPT,
        "is_inline": cursor.is_function_inlined() or bool(re.search(r"\binline\b", head)),
        "is_deleted": text.rstrip().endswith("= delete"),
        "is_variadic": function_type.kind == ci.TypeKind.FUNCTIONPROTO
        and function_type.is_function_variadic(),
        "operator": None if kind == _CK.CONVERSION_FUNCTION else operator_of(name),
        "attributes": cuda_attrs + pretty_attrs,
        "file": file,
        "line": line,
    }


def make_function(ctx: Context, cursor: ci.Cursor, scope: str) -> Function:
    return Function(**function_fields(ctx, cursor, scope))


def _min_required(params: tuple[ParamVar, ...]) -> int:
    return sum(1 for p in params if p.default_value is None)


def _constructor_kind(cursor: ci.Cursor, params: tuple[ParamVar, ...]) -> MethodKind:
    if cursor.is_default_constructor():
        return MethodKind.DEFAULT_CONSTRUCTOR
    if cursor.is_copy_constructor():
        return MethodKind.COPY_CONSTRUCTOR
    if cursor.is_move_constructor():
        return MethodKind.MOVE_CONSTRUCTOR
    # Callable with exactly one argument, explicit or not (is_explicit tells them apart);
    # libclang's own isConvertingConstructor leaves explicit ones out.
    if params and _min_required(params) <= 1:
        return MethodKind.CONVERTING_CONSTRUCTOR
    return MethodKind.OTHER_CONSTRUCTOR


def method_kind(cursor: ci.Cursor, fields: dict[str, Any]) -> MethodKind:
    kind = effective_kind(cursor)
    if kind == _CK.CONSTRUCTOR:
        return _constructor_kind(cursor, fields["params"])
    if kind == _CK.DESTRUCTOR:
        return MethodKind.DESTRUCTOR
    if kind == _CK.CONVERSION_FUNCTION:
        return MethodKind.CONVERSION_FUNCTION
    if fields["operator"] is not None:
        return MethodKind.MEMBER_OPERATOR
    if cursor.is_static_method():
        return MethodKind.STATIC_METHOD
    return MethodKind.METHOD


def access_of(cursor: ci.Cursor) -> Access:
    return _ACCESS.get(cursor.access_specifier, Access.PUBLIC)


def make_method(ctx: Context, cursor: ci.Cursor, parent_qual_name: str) -> Method:
    fields = function_fields(ctx, cursor, f"{parent_qual_name}::")
    if effective_kind(cursor) in (_CK.CONSTRUCTOR, _CK.DESTRUCTOR) and "<" in fields["name"]:
        # Inside a class template clang spells them after the template-id ("Vec<T, N>");
        # C++ names them after the class.
        fields["name"] = fields["name"].split("<", 1)[0].rstrip()
        fields["qual_name"] = f"{parent_qual_name}::{fields['name']}"
    is_deleted = fields.pop("is_deleted") or cursor.is_deleted_method()
    return Method(
        **fields,
        is_deleted=is_deleted,
        kind=method_kind(cursor, fields),
        access=access_of(cursor),
        is_const=cursor.is_const_method(),
        is_explicit=effective_kind(cursor) in (_CK.CONSTRUCTOR, _CK.CONVERSION_FUNCTION)
        and cursor.is_explicit_method(),
        is_defaulted=cursor.is_default_method(),
        is_virtual=cursor.is_virtual_method(),
        parent_qual_name=parent_qual_name,
    )

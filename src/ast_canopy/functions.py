"""Function and method cursors -> ``model.Function`` / ``model.Method``.

Never call ``mangled_name`` on anything but a function or variable declaration: on an unnamed
parameter cursor libclang segfaults.
"""

from __future__ import annotations

import hashlib
import re
from typing import Any

from clang import cindex as ci

from ast_canopy import _libclang
from ast_canopy.context import Context
from ast_canopy.model import Access, ExecutionSpace, Function, Method, MethodKind, ParamVar
from ast_canopy.operators import operator_spelling

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
# An attribute's name where its cursor points: "noinline", "gnu::cold", "__noinline__".
_ATTR_NAME_RE = re.compile(rb"(?:[A-Za-z_]\w*::)?([A-Za-z_]\w*)")
_CUDA_ATTRS = {
    _CK.CUDADEVICE_ATTR: "device",
    _CK.CUDAHOST_ATTR: "host",
    _CK.CUDAGLOBAL_ATTR: "global",
}
_ATTR_BLOCK_RE = re.compile(r"__attribute__\(\(.*?\)\)\s*|\[\[.*?\]\]\s*|__declspec\(.*?\)\s*")
_NON_IDENTIFIER = re.compile(r"\W")
_TEMPLATE_PARAMETERS = {
    _CK.TEMPLATE_TYPE_PARAMETER,
    _CK.TEMPLATE_NON_TYPE_PARAMETER,
    _CK.TEMPLATE_TEMPLATE_PARAMETER,
}
_ARRAYS = {
    ci.TypeKind.CONSTANTARRAY,
    ci.TypeKind.INCOMPLETEARRAY,
    ci.TypeKind.DEPENDENTSIZEDARRAY,
    ci.TypeKind.VARIABLEARRAY,
}


def exec_space_of(
    host: bool, device: bool, is_global: bool, default_device: bool = False
) -> ExecutionSpace:
    """``default_device``: no attribute at all means __device__ (NVRTC's -default-device)."""
    if is_global:
        return ExecutionSpace.GLOBAL
    if device:
        return ExecutionSpace.HOST_DEVICE if host else ExecutionSpace.DEVICE
    # No attribute at all is host code in CUDA; NVIDIA's model calls it "undefined".
    if host:
        return ExecutionSpace.HOST
    return ExecutionSpace.DEVICE if default_device else ExecutionSpace.UNDEFINED


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


def _pretty_head(ctx: Context, cursor: ci.Cursor) -> tuple[str, str]:
    """(specifiers before the name, pretty text) from clang's printer."""
    text = cursor.pretty_printed(ctx.policy)
    return _ATTR_BLOCK_RE.sub("", text).split("(", 1)[0], text


def attribute_name(ctx: Context, function: ci.Cursor, attr: ci.Cursor) -> str | None:
    """The name an attribute is written with, read where clang says it is spelled (inside a
    macro's definition for ``__forceinline__``), without scope or keyword underscores:
    ``[[gnu::cold]]`` -> "cold", ``__noinline__`` -> "noinline".

    libclang names only a few attribute kinds; the rest are UNEXPOSED_ATTR, and clang's
    printer leaves them out of function templates, so the source is the one reliable witness.
    An implicit attribute has no spelling of its own (None).
    """
    kind_name = _CUDA_ATTRS.get(attr.kind)
    if kind_name is not None:
        return kind_name
    if attr.location == function.location:
        return None
    where = _libclang.spelling_location(attr.location)
    if where is None:
        return None
    match = _ATTR_NAME_RE.match(ctx.source(where[0]), where[1])
    if match is None:
        return None
    name = match.group(1).decode()
    if name.startswith("__") and name.endswith("__") and len(name) > 4:
        name = name[2:-2]
    return name


def dependent_mangled_name(cursor: ci.Cursor, qual_name: str) -> str:
    """A deterministic stand-in for the symbol of a declaration whose signature is dependent.

    Such a declaration has no symbol until instantiated (and clang's mangler must not be asked
    for one). The stand-in is an identifier: the qualified name, a marker, and a digest of the
    template parameter kinds and the function type, so that overloads differ.
    """
    parameters = ",".join(
        child.kind.name + ("" if child.kind == _CK.TEMPLATE_TYPE_PARAMETER else child.type.spelling)
        for child in cursor.get_children()
        if child.kind in _TEMPLATE_PARAMETERS
    )
    signature = f"{qual_name}|{parameters}|{cursor.type.spelling}"
    digest = hashlib.sha256(signature.encode()).hexdigest()[:16]
    return f"{_NON_IDENTIFIER.sub('_', qual_name)}__dependent_signature__{digest}"


def function_fields(
    ctx: Context, cursor: ci.Cursor, scope: str, dependent: bool = False
) -> dict[str, Any]:
    """Keyword arguments shared by Function and Method; ``dependent`` for members of templates."""
    param_cursors: list[ci.Cursor] = []
    attributes: set[str] = set()
    for child in cursor.get_children():
        child_kind = child.kind
        if child_kind == _CK.PARM_DECL:
            param_cursors.append(child)
        elif child_kind.is_attribute():
            name = attribute_name(ctx, cursor, child)
            if name is not None:
                attributes.add(name)
    host, device, is_global = ("host" in attributes, "device" in attributes, "global" in attributes)
    function_type = cursor.type
    if function_type.kind == ci.TypeKind.FUNCTIONPROTO:
        # Parameters of a function type written in the return type (`int (*f())(int)`) are
        # PARM_DECL children too, visited before the function's own, which come last.
        count = _libclang.argument_count(function_type)
        param_cursors = param_cursors[len(param_cursors) - count :] if count else []
    params = tuple(_param(ctx, child) for child in param_cursors)
    head, text = _pretty_head(ctx, cursor)
    name = cursor.spelling
    qual_name = f"{scope}{name}"
    file, line = ctx.position(cursor)
    is_template = cursor.kind == _CK.FUNCTION_TEMPLATE
    kind = effective_kind(cursor) if is_template else cursor.kind
    return {
        "name": name,
        "qual_name": qual_name,
        "return_type": ctx.types.make(cursor.result_type),
        "params": params,
        "exec_space": exec_space_of(host, device, is_global, ctx.default_device),
        "mangled_name": dependent_mangled_name(cursor, qual_name)
        if is_template or dependent
        else cursor.mangled_name,
        "is_constexpr": bool(re.search(r"\b(constexpr|consteval)\b", head)),
        "is_noexcept": cursor.exception_specification_kind in _NOEXCEPT,
        "is_inline": cursor.is_function_inlined() or bool(re.search(r"\binline\b", head)),
        "is_deleted": text.rstrip().endswith("= delete"),
        "is_variadic": function_type.kind == ci.TypeKind.FUNCTIONPROTO
        and function_type.is_function_variadic(),
        "operator": None if kind == _CK.CONVERSION_FUNCTION else operator_spelling(name),
        "attributes": frozenset(attributes),
        "parse_entry_point": ctx.entry_point,
        "file": file,
        "line": line,
    }


def make_function(ctx: Context, cursor: ci.Cursor, scope: str) -> Function:
    fields = function_fields(ctx, cursor, scope)
    # ``template <> int pick<plus>(int, int)``: reached through its template (extract.py keeps
    # only those written as such, not implicit instances).
    fields["specializes"] = fields["qual_name"] if cursor.specialized_template is not None else None
    return Function(**fields)


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


def make_method(
    ctx: Context, cursor: ci.Cursor, parent_qual_name: str, dependent: bool = False
) -> Method:
    """A member function; ``dependent`` when the class is a template (or inside one)."""
    fields = function_fields(ctx, cursor, f"{parent_qual_name}::", dependent)
    if effective_kind(cursor) in (_CK.CONSTRUCTOR, _CK.DESTRUCTOR) and "<" in fields["name"]:
        # Inside a class template clang spells them after the template-id ("Vec<T, N>");
        # C++ names them after the class.
        fields["name"] = fields["name"].split("<", 1)[0].rstrip()
        fields["qual_name"] = f"{parent_qual_name}::{fields['name']}"
    is_deleted = fields.pop("is_deleted") or cursor.is_deleted_method()
    is_defaulted = cursor.is_default_method()
    if dependent and is_defaulted and not fields["attributes"] & {"host", "device"}:
        # CUDA infers the execution space of a member defaulted on its first declaration
        # (``Vec() = default;``) from what it calls: __host__ __device__ for the members of any
        # class a kernel can use. clang attaches that implicit attribute when it instantiates
        # the class; a template's own member has none yet.
        fields["exec_space"] = ExecutionSpace.HOST_DEVICE
    return Method(
        **fields,
        is_deleted=is_deleted,
        kind=method_kind(cursor, fields),
        access=access_of(cursor),
        is_const=cursor.is_const_method(),
        is_explicit=effective_kind(cursor) in (_CK.CONSTRUCTOR, _CK.CONVERSION_FUNCTION)
        and cursor.is_explicit_method(),
        is_defaulted=is_defaulted,
        is_virtual=cursor.is_virtual_method(),
        parent_qual_name=parent_qual_name,
    )

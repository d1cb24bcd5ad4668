"""A template parameter's default argument as text: as written, and fully qualified.

libclang has no accessor for a template parameter's default. Two sources hold it:

- the source text after the parameter's top-level ``=``, up to the end of the parameter's
  extent (clang's own range: ``less<less<T>>>`` ends where the argument ends, not where the
  ``>>>`` token does). This is the text as written, macros unexpanded, and it is only there
  when the parameter is written in place: a parameter that a macro produces (libcu++'s
  ``_CCCL_TEMPLATE(...) _CCCL_REQUIRES(...)`` writes ``bool __cccl_true_ = true`` and an
  unnamed ``enable_if_t<...> = 0``) has an extent covering the macro invocation instead;
- clang's pretty printer, which prints the parameter with its default after macro expansion
  (``typename ::ns::enable_if<(sizeof(T) == 4) && tru_, int>::type = 0``).

A default is written inside its template's scope (``BlockReduceAlgorithm A =
BLOCK_REDUCE_WARP_REDUCTIONS`` inside ``namespace cub``) and means nothing at global scope. The
qualified text spells every name that begins a name (not after ``::``, ``.`` or ``->``) the
way it is declared, from the global namespace: the names come from the references clang
resolved inside the default (a namespace, a type, a template, a variable, an enumerator).
Template parameters, keywords and names clang left unresolved (dependent ones) stay as written.
"""

from __future__ import annotations

import re

from clang import cindex as ci

from ast_canopy import _libclang
from ast_canopy.context import Context

_CK = ci.CursorKind

_REFERENCES = {
    _CK.TYPE_REF,
    _CK.TEMPLATE_REF,
    _CK.NAMESPACE_REF,
    _CK.DECL_REF_EXPR,
    _CK.MEMBER_REF_EXPR,
    _CK.OVERLOADED_DECL_REF,
}
_TEMPLATE_PARAMETERS = {
    _CK.TEMPLATE_TYPE_PARAMETER,
    _CK.TEMPLATE_NON_TYPE_PARAMETER,
    _CK.TEMPLATE_TEMPLATE_PARAMETER,
}
# Declarations whose members a qualified name can reach without template arguments.
_SCOPES = {
    _CK.NAMESPACE,
    _CK.STRUCT_DECL,
    _CK.CLASS_DECL,
    _CK.UNION_DECL,
    _CK.ENUM_DECL,
}
_OPENERS = {"(": 1, "[": 1, "{": 1, "<": 1}
_CLOSERS = {")": 1, "]": 1, "}": 1, ">": 1, ">>": 2, ">>>": 3}
# C++ tokens good enough for finding names: string and character literals (skipped whole),
# identifiers, `::`, member access, and any other single character.
_TOKEN = re.compile(
    r"""(?P<literal>"(?:\\.|[^"\\])*"|'(?:\\.|[^'\\])*')"""
    r"|(?P<name>[A-Za-z_]\w*)|(?P<scope>::)|(?P<member>->|\.)|(?P<space>\s+)|(?P<other>.)",
    re.DOTALL,
)


def _in_place(cursor: ci.Cursor) -> bool:
    """True when the parameter is written where clang locates it, not produced by a macro
    (whose expansion clang locates at the invocation)."""
    for location in (cursor.extent.start, cursor.location):
        file = location.file
        spelled = _libclang.spelling_location(location)
        if file is None or spelled is None or spelled != (file.name, location.offset):
            return False
    return True


def _source_default(ctx: Context, cursor: ci.Cursor) -> tuple[bool, str | None]:
    """(found, text): the default as written after the top-level ``=``; found is False when
    the tokens cannot tell (then the pretty printer decides)."""
    tokens = list(cursor.get_tokens())
    if not tokens:
        return False, None
    end = cursor.extent.end.offset
    depth = 0
    for token in tokens:
        spelling = token.spelling
        if spelling in _OPENERS:
            depth += 1
        elif spelling in _CLOSERS:
            depth -= _CLOSERS[spelling]
        elif spelling == "=" and depth <= 0:
            # Angle brackets count as nesting so that the `=` inside a template template
            # parameter's own list (`template <class U = int> class TT`) is skipped.
            start = token.extent.end.offset
            text = ctx.source(cursor.extent.start.file.name)[start:end]
            return True, text.decode("utf-8", errors="replace").strip() or None
    return True, None


def _printed_default(cursor: ci.Cursor, printed: str) -> str | None:
    """The default from clang's printer (macros expanded): the text after the printed
    declaration's top-level `` = ``."""
    depth = 0
    angle = 0
    i = 0
    if cursor.kind == _CK.TEMPLATE_TEMPLATE_PARAMETER:
        # Skip the parameter's own `template <...>` head, whose parameters may have defaults.
        i = printed.find("<")
        angle = 1 if i >= 0 else 0
        i += 1
    while i < len(printed):
        ch = printed[i]
        if angle:
            angle += {"<": 1, ">": -1}.get(ch, 0)
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif (
            ch == "=" and depth == 0 and printed[i - 1 : i] == " " and printed[i + 1 : i + 2] == " "
        ):
            return printed[i + 2 :].strip() or None
        i += 1
    return None


def default_texts(
    ctx: Context, cursor: ci.Cursor, printed_declaration: str
) -> tuple[str | None, str | None]:
    """(as written, fully qualified) default of a template parameter; (None, None) without
    one. ``printed_declaration`` is the parameter as clang's printer prints it. "As written"
    is the source text when the parameter is written in place, else the macro-expanded text
    from the printer; the qualified text is the printer's (macros expanded, so the names
    inside them are resolved too) with every name qualified."""
    printed = _printed_default(cursor, printed_declaration)
    if printed is None:
        return None, None
    written: str | None = printed
    if _in_place(cursor):
        found, text = _source_default(ctx, cursor)
        if found and text is not None:
            written = text
    return written, qualify(printed, resolved_names(cursor))


def _spelled_scope(cursor: ci.Cursor) -> str | None:
    """``ns::inner::Name`` for a declaration reachable by a qualified name (inline namespaces
    and unscoped enums left out, as C++ lets them be); None for one inside a function or a
    template (whose members need arguments), or a template parameter."""
    if cursor.kind in _TEMPLATE_PARAMETERS:
        return None
    parts = [cursor.spelling]
    parent = cursor.semantic_parent
    while parent is not None and parent.kind != _CK.TRANSLATION_UNIT:
        kind = parent.kind
        if kind == _CK.LINKAGE_SPEC:
            pass
        elif kind not in _SCOPES or parent.specialized_template is not None:
            return None  # a function's local, or a member of a template or specialization
        elif kind == _CK.NAMESPACE and _libclang.is_inline_namespace(parent):
            pass
        elif kind == _CK.ENUM_DECL and not parent.is_scoped_enum():
            pass
        elif not parent.spelling:
            return None  # an anonymous namespace or record: no qualified name reaches it
        else:
            parts.append(parent.spelling)
        parent = parent.semantic_parent
    return "::".join(reversed(parts))


def _targets(reference: ci.Cursor) -> list[ci.Cursor]:
    """The declarations a reference names: every candidate of an overloaded (or dependent)
    name such as a function template or a variable template used with arguments."""
    if reference.kind != _CK.OVERLOADED_DECL_REF:
        target = reference.referenced
        if target is None or target.kind != _CK.OVERLOADED_DECL_REF:
            return [] if target is None else [target]
        reference = target  # a DECL_REF_EXPR of an overloaded name refers to the overload set
    lib = ci.conf.lib
    return [
        ci.Cursor.from_cursor_result(lib.clang_getOverloadedDecl(reference, i), reference)
        for i in range(lib.clang_getNumOverloadedDecls(reference))
    ]


def resolved_names(cursor: ci.Cursor) -> dict[str, str]:
    """Name as written -> qualified name, for every declaration the default refers to. A name
    that refers to declarations in two different scopes is left out (it stays as written)."""
    names: dict[str, str] = {}
    ambiguous: set[str] = set()
    for child in cursor.walk_preorder():
        if child.kind not in _REFERENCES:
            continue
        for target in _targets(child):
            name = target.spelling
            if not name:
                continue
            qualified = _spelled_scope(target)
            if qualified is None:
                ambiguous.add(name)
            elif names.setdefault(name, qualified) != qualified:
                ambiguous.add(name)
    for name in ambiguous:
        names.pop(name, None)
    return names


def qualify(text: str, names: dict[str, str]) -> str:
    """``text`` with each name that begins a name chain replaced by its qualified spelling."""
    if not names:
        return text
    out: list[str] = []
    previous = ""  # the last token that was not white space
    for match in _TOKEN.finditer(text):
        token = match.group()
        kind = match.lastgroup
        if kind == "name" and previous not in ("::", ".", "->"):
            token = names.get(token, token)
        out.append(token)
        if kind != "space":
            previous = match.group()
    return "".join(out)


def enclosing_namespace(cursor: ci.Cursor) -> str:
    """The namespace a declaration is written in (``cub``, ``cuda::std``; "" for the global
    one), inline namespaces left out: where its template's defaults are looked up."""
    parts: list[str] = []
    parent = cursor.semantic_parent
    while parent is not None and parent.kind != _CK.TRANSLATION_UNIT:
        if (
            parent.kind == _CK.NAMESPACE
            and parent.spelling
            and not _libclang.is_inline_namespace(parent)
        ):
            parts.append(parent.spelling)
        parent = parent.semantic_parent
    return "::".join(reversed(parts))

"""A header cut into items, each with the names it declares and the names it mentions.

An item is one top-level declaration or definition of the mapped header: a function with its
body, a struct (its shell: fields, member declarations, constructors, destructors, operators),
each member function defined in a struct, an enum, a typedef or alias, a variable, a
``#define``. Namespaces and ``extern "C"`` blocks are transparent: their items are items, named
with the scope they are in. ``numbast_import.shim_keys`` follows names from a shim to the items
it depends on.

What an item declares decides which shims depend on it, so where unsure it declares more: a
statement whose declarator cannot be told declares every name it mentions; operators and
conversion functions declare the types they take (C++ finds them through their operands, not
by name); constructors and destructors stay in their struct's shell (they run without being
named). Items that declare nothing (``#include``, conditionals, ``#pragma``, ``using
namespace``, ``static_assert``) are global: every shim depends on them. :func:`header_items`
returns None for a header it cannot follow (braces that do not balance): then every shim
depends on all of it.
"""

from __future__ import annotations

import functools
import hashlib
import re
from dataclasses import dataclass
from typing import NamedTuple

_TOKEN = re.compile(
    r"""(?P<directive>^[ \t]*\#(?:\\\n|[^\n])*)
    |(?P<space>\s+|\\\n)
    |(?P<comment>//[^\n]*|/\*.*?\*/)
    |(?P<string>(?:u8|[uUL])?R"(?P<delimiter>[^()\\ \n]{0,16})\(.*?\)(?P=delimiter)"
       |(?:u8|[uUL])?"(?:\\.|[^"\\\n])*"|(?:u8|[uUL])?'(?:\\.|[^'\\\n])*')
    |(?P<name>[A-Za-z_$][\w$]*)
    |(?P<number>\.?\d(?:[eEpP][+-]|[\w.'])*)
    |(?P<punct>::|->|\.\.\.|&&|.)""",
    re.S | re.X | re.M,
)

# Names no declaration of a header can declare (only a #define could, and those are items
# that declare exactly their macro): never a link between items.
KEYWORDS = frozenset(
    """alignas alignof asm auto bool break case catch char char16_t char32_t char8_t class const
    consteval constexpr constinit const_cast continue decltype default delete do double
    dynamic_cast else enum explicit export extern false final float for friend goto if inline
    int long mutable namespace new noexcept nullptr operator override private protected public
    register reinterpret_cast requires return short signed sizeof static static_assert
    static_cast struct switch template this thread_local throw true try typedef typeid typename
    union unsigned using virtual void volatile wchar_t while __device__ __host__ __global__
    __forceinline__ __noinline__ __inline__ __constant__ __shared__ __managed__ __restrict__
    __restrict __attribute__ __declspec __align__ __launch_bounds__ __grid_constant__""".split()
)
# Words before a parenthesis that are not a function's name.
_NOT_DECLARATORS = frozenset(
    "__attribute__ __declspec alignas decltype __launch_bounds__ noexcept throw sizeof alignof "
    "requires __align__ static_assert operator".split()
)
_CLASS_KEYS = frozenset(("struct", "class", "union", "enum"))
_TRAILING = frozenset(("const", "volatile", "noexcept", "override", "final", "&", "&&", "mutable"))


class Token(NamedTuple):
    kind: str  # name, number, string, punct, directive
    text: str
    line: int


@dataclass(frozen=True)
class Item:
    """``declares``: empty for a global item (every shim depends on it). ``may_define``:
    whether the item may define a symbol of its own, or state (a variable, a function that is
    not inline or a template), or is not understood; an inline function, a type, a member
    defined in its class, a prototype-free ``#define`` never do."""

    declares: frozenset[str]
    mentions: frozenset[str]
    digest: str
    line: int
    may_define: bool = True


def tokenize(text: str) -> list[Token]:
    """The tokens of C++ ``text`` that carry meaning (no spaces, no comments); a preprocessor
    line is one token."""
    tokens: list[Token] = []
    line, counted = 1, 0
    for match in _TOKEN.finditer(text):
        kind = match.lastgroup
        if kind == "space" or kind == "comment":
            continue
        start = match.start()
        line += text.count("\n", counted, start)
        counted = start
        if kind == "directive":
            tokens.append(Token(kind, match.group().strip(), line))
        else:
            tokens.append(Token(kind or "punct", match.group(), line))
    return tokens


@functools.lru_cache(maxsize=4)
def header_items(text: str) -> tuple[Item, ...] | None:
    """The items of the header ``text`` in order, or None where its braces do not balance.
    Remembered for the last few headers: a build asks twice (the shims' keys, and whether the
    header defines symbols), and cutting a 3000-function header takes ~0.4 s."""
    found = _header_items(text)
    return None if found is None else tuple(found)


def _header_items(text: str) -> list[Item] | None:
    tokens = tokenize(text)
    items: list[Item] = []
    scopes: list[str] = []
    index = 0
    while index < len(tokens):
        token = tokens[index]
        if token.kind == "directive":
            items.append(_directive_item(token, scopes))
            index += 1
        elif token.text == "}":
            if not scopes:
                return None
            scopes.pop()
            index += 1
        elif token.text == ";":
            index += 1
        else:
            end = _statement(tokens, index, items, scopes)
            if end is None:
                return None
            index = end
    return items if not scopes else None


def _statement(tokens: list[Token], start: int, items: list[Item], scopes: list[str]) -> int | None:
    """Add the items of the statement at ``start`` (or open its namespace); returns where the
    next statement starts, None when its braces do not balance."""
    index, depth = start, 0
    while index < len(tokens):
        text = tokens[index].text
        if text in ("(", "["):
            depth += 1
        elif text in (")", "]"):
            depth -= 1
        elif depth == 0 and text == ";":
            whole = tokens[start : index + 1]
            items.append(_item(whole, scopes, _declares(whole, whole), _may_define(whole)))
            return index + 1
        elif depth == 0 and text == "{":
            head = tokens[start:index]
            if _is_scope(head):
                scopes.append(" ".join(t.text for t in head))
                return index + 1
            close = _matching_brace(tokens, index)
            if close is None:
                return None
            if _is_function_body(head):
                whole = tokens[start : close + 1]
                defines = not _inline(head)
                items.append(_item(whole, scopes, _declares(head, whole), defines))
                return close + 1
            if _class_name(head) is not None:
                return _class(tokens, start, index, close, items, scopes)
            index = close  # an initializer or an enum's body: part of the statement
        elif text == "}" and depth == 0:
            return None
        index += 1
    items.append(_item(tokens[start:], scopes, declares=frozenset()))  # unterminated: global
    return index


def _class(
    tokens: list[Token], start: int, open_: int, close: int, items: list[Item], scopes: list[str]
) -> int | None:
    """A struct, class, union or enum: its member functions' bodies are items of their own; the
    rest (the shell) declares its name and its members' names."""
    name = _class_name(tokens[start:open_])
    shell = list(tokens[start : open_ + 1])
    members: list[Item] = []
    declared: set[str] = {name} if name else set()
    enum = any(t.text == "enum" for t in tokens[start:open_])
    index = open_ + 1
    while index < close:
        token = tokens[index]
        if enum or token.kind == "directive":
            shell.append(token)
            if enum and token.kind == "name":
                declared.add(token.text)
            index += 1
            continue
        if token.text in ("public", "private", "protected") and tokens[index + 1].text == ":":
            shell += tokens[index : index + 2]
            index += 2
            continue
        end = _member(tokens, index, close)
        if end is None:
            return None
        member = tokens[index:end]
        body = _member_body(member)
        signature = member[:body] if body is not None else member
        names = _declares(signature, member)
        if _runs_unnamed(signature, name):
            shell += member  # found through the class: its shell holds them
        elif body is not None:
            scope = [*scopes, f"class {name}"]
            members.append(_item(member, scope, names, may_define=False))
            shell += signature + [Token("punct", ";", member[body].line)]
            declared |= names
        else:
            shell += member
            declared |= names
        index = end
    tail_end = index
    while tail_end < len(tokens) and tokens[tail_end].text != ";":
        tail_end += 1
    tail = tokens[close : tail_end + 1]
    variables = {t.text for t in tail if t.kind == "name"} - KEYWORDS  # struct S {...} s;
    declared |= variables
    items.append(_item(shell + tail, scopes, frozenset(declared - KEYWORDS), bool(variables)))
    items += members
    return tail_end + 1


def _member(tokens: list[Token], start: int, close: int) -> int | None:
    """Where the member declaration at ``start`` (inside a class body ending at ``close``)
    ends: after its ``;`` or after its body."""
    index, depth = start, 0
    while index < close:
        text = tokens[index].text
        if text in ("(", "["):
            depth += 1
        elif text in (")", "]"):
            depth -= 1
        elif depth == 0 and text == ";":
            return index + 1
        elif depth == 0 and text == "{":
            end = _matching_brace(tokens, index)
            if end is None or end > close:
                return None
            if _is_function_body(tokens[start:index]):
                return end + 1
            index = end
        index += 1
    return close


def _member_body(member: list[Token]) -> int | None:
    """The index of a member function's body's ``{`` in ``member``, if it has one."""
    depth = 0
    for index, token in enumerate(member):
        if token.text in ("(", "["):
            depth += 1
        elif token.text in (")", "]"):
            depth -= 1
        elif depth == 0 and token.text == "{" and _is_function_body(member[:index]):
            return index
    return None


def _runs_unnamed(signature: list[Token], class_name: str | None) -> bool:
    """Constructors, destructors, operators and conversions run without being named."""
    if any(t.text in ("operator", "~") for t in signature):
        return True
    return class_name is not None and _declarator(signature) == class_name


def _is_scope(head: list[Token]) -> bool:
    """``namespace N``, ``inline namespace N``, ``namespace``, ``extern "C"``."""
    words = [t.text for t in head]
    if words[:1] == ["inline"]:
        words = words[1:]
    if words[:1] == ["namespace"]:
        return all(t.kind == "name" or t.text == "::" for t in head[1:]) or len(words) == 1
    return len(head) == 2 and head[0].text == "extern" and head[1].kind == "string"


def _is_function_body(head: list[Token]) -> bool:
    """Whether the ``{`` after ``head`` opens a function's body."""
    parens, angle, equals = 0, 0, False
    body_paren_seen = False
    for token in _without_template_prefix(head):
        text = token.text
        if text == "(":
            parens += 1
        elif text == ")":
            parens -= 1
            if parens == 0:
                body_paren_seen = True
        elif parens == 0 and text == "<":
            angle += 1
        elif parens == 0 and text == ">":
            angle = max(0, angle - 1)
        elif parens == 0 and angle == 0 and text == "=" and not body_paren_seen:
            equals = True
    if equals or not body_paren_seen or not head:
        return False
    last = head[-1].text
    if last == ")" or last in _TRAILING:
        return True
    words = [t.text for t in head]
    if "->" in words:  # a trailing return type
        return True
    if ":" in words:  # a constructor's initializers: the body follows one of them
        return last in (")", "}")
    return False


def _without_template_prefix(head: list[Token]) -> list[Token]:
    """``head`` without its ``template <...>`` prefixes."""
    index = 0
    while index + 1 < len(head) and head[index].text == "template" and head[index + 1].text == "<":
        angle, index = 0, index + 1
        while index < len(head):
            if head[index].text == "<":
                angle += 1
            elif head[index].text == ">":
                angle -= 1
                if angle == 0:
                    break
            index += 1
        index += 1
    return head[index:]


def _class_name(head: list[Token]) -> str | None:
    """The name of the struct, class, union or enum that ``head`` starts (``""`` when it has
    none); None when ``head`` starts none."""
    body = _without_template_prefix(head)
    outer = _at_depth_zero(body, "(")
    if any(t.text in ("=", "operator") for t in outer):
        return None
    for index, token in enumerate(outer):
        if token.text in _CLASS_KEYS:
            names = [t for t in outer[index + 1 :] if t.kind == "name" and t.text not in KEYWORDS]
            return names[0].text if names else ""
    return None


def _matching_brace(tokens: list[Token], open_: int) -> int | None:
    depth = 0
    for index in range(open_, len(tokens)):
        if tokens[index].text == "{":
            depth += 1
        elif tokens[index].text == "}":
            depth -= 1
            if depth == 0:
                return index
    return None


def _declarator(signature: list[Token]) -> str | None:
    """The name before the first parameter list of a function's signature (None: none)."""
    body = _without_template_prefix(signature)
    depth = 0
    for index, token in enumerate(body):
        text = token.text
        if depth == 0 and text == "=":
            return None
        if text == "(":
            if depth == 0 and index > 0:
                before = body[index - 1]
                if before.text not in _NOT_DECLARATORS:
                    named = before.kind == "name" and before.text not in KEYWORDS
                    return before.text if named else None
            depth += 1
        elif text == ")":
            depth -= 1
    return None


def _declared_names(statement: list[Token]) -> set[str] | None:
    """The names the declaration ``statement`` (without a body) declares; None when they
    cannot be told."""
    body = _without_template_prefix(statement)
    words = [t.text for t in body]
    if not words:
        return set()
    if words[0] == "using":
        if len(words) > 1 and words[1] == "namespace":
            return set()
        if "=" in words:
            return {words[words.index("=") - 1]}
        return {words[-2]} if len(words) >= 2 and body[-2].kind == "name" else None
    if words[0] == "static_assert":
        return set()
    if words[0] == "typedef":
        last = [t for t in body if t.text != ";"][-1:]
        return {last[0].text} if last and last[0].kind == "name" else None
    if words[0] == "friend" or "," in [t.text for t in _at_depth_zero(body, "([{<")]:
        return None
    if "operator" in words or "~" in words:
        return None  # found through its operands' types: declares every name it mentions
    name = _declarator(body)
    if name is not None:
        return {name}
    for stop in ("=", "[", ";", "{", ":"):
        if stop in words:
            end = words.index(stop)
            if end > 0 and body[end - 1].kind == "name":
                return {body[end - 1].text}
            break
    return None


def _declares(signature: list[Token], whole: list[Token]) -> frozenset[str]:
    """What a statement declares: the names of its ``signature`` (the part before a body),
    else every name of its signature (operators: the types they take) or, failing that, of
    the whole statement."""
    names = _declared_names(signature)
    if names is None:
        names = _mentioned(signature) or _mentioned(whole)
    return frozenset(names - KEYWORDS)


def _at_depth_zero(tokens: list[Token], brackets: str) -> list[Token]:
    """The tokens of ``tokens`` outside the pairs of ``brackets`` (opening ones: ``([{<``)."""
    closing = {"(": ")", "[": "]", "{": "}", "<": ">"}
    opens, closes = set(brackets), {closing[b] for b in brackets}
    found, depth = [], 0
    for token in tokens:
        if token.text in opens:
            depth += 1
        elif token.text in closes:
            depth = max(0, depth - 1)
        elif depth == 0:
            found.append(token)
    return found


def _mentioned(tokens: list[Token]) -> set[str]:
    names: set[str] = set()
    for token in tokens:
        if token.kind == "name":
            names.add(token.text)
        elif token.kind == "directive":
            names.update(re.findall(r"[A-Za-z_]\w*", token.text))
    return names - KEYWORDS


def _item(
    tokens: list[Token], scopes: list[str], declares: frozenset[str], may_define: bool = True
) -> Item:
    mentions = frozenset(_mentioned(tokens))
    text = "\n".join(scopes) + "\0" + " ".join(t.text for t in tokens)
    digest = hashlib.sha256(text.encode()).hexdigest()
    return Item(declares, mentions, digest, tokens[0].line if tokens else 0, may_define)


def _directive_item(token: Token, scopes: list[str]) -> Item:
    match = re.match(r"#\s*(define|undef)\s+([A-Za-z_]\w*)", token.text)
    declares = frozenset([match.group(2)]) if match else frozenset()
    return _item([token], scopes, declares, may_define=match is None)


_INLINE = frozenset(("inline", "__forceinline__", "__inline__", "constexpr", "consteval"))
_NEVER_DEFINE = frozenset(("typedef", "using", "static_assert", "friend", "enum"))


def _inline(signature: list[Token]) -> bool:
    """Whether a function with this signature is inline (or a template, not a specialization):
    emitted only where used, and merged across units."""
    words = {t.text for t in signature}
    template = len(signature) > 2 and signature[0].text == "template"
    specialization = template and signature[1].text == "<" and signature[2].text == ">"
    return bool(words & _INLINE) or (template and not specialization)


def _may_define(statement: list[Token]) -> bool:
    """Whether a statement without a body may define a symbol (a variable; a prototype is
    taken for one too: telling them apart needs the types)."""
    first = statement[0].text if statement else ""
    if first in _NEVER_DEFINE or _inline(statement):
        return False
    return not (first == "extern" and "=" not in {t.text for t in statement})

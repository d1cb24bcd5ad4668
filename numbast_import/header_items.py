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

from numbast_import import header_names
from numbast_import.header_tokens import KEYWORDS, Token, matching_brace, tokenize


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
    constant: bool = False  # a constexpr or const variable (``numbast.core.ptx_symbols``)


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
            names = header_names.declares(whole, whole)
            constant = header_names.is_constant(whole)
            items.append(_item(whole, scopes, names, header_names.may_define(whole), constant))
            return index + 1
        elif depth == 0 and text == "{":
            head = tokens[start:index]
            if _is_scope(head):
                scopes.append(" ".join(t.text for t in head))
                return index + 1
            close = matching_brace(tokens, index)
            if close is None:
                return None
            if header_names.is_function_body(head):
                whole = tokens[start : close + 1]
                defines = not header_names.is_inline(head)
                items.append(_item(whole, scopes, header_names.declares(head, whole), defines))
                return close + 1
            if header_names.class_name(head) is not None:
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
    name = header_names.class_name(tokens[start:open_])
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
        names = header_names.declares(signature, member)
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
            end = matching_brace(tokens, index)
            if end is None or end > close:
                return None
            if header_names.is_function_body(tokens[start:index]):
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
        elif depth == 0 and token.text == "{" and header_names.is_function_body(member[:index]):
            return index
    return None


def _runs_unnamed(signature: list[Token], class_name: str | None) -> bool:
    """Constructors, destructors, operators and conversions run without being named."""
    if any(t.text in ("operator", "~") for t in signature):
        return True
    return class_name is not None and header_names.declarator(signature) == class_name


def _is_scope(head: list[Token]) -> bool:
    """``namespace N``, ``inline namespace N``, ``namespace``, ``extern "C"``."""
    words = [t.text for t in head]
    if words[:1] == ["inline"]:
        words = words[1:]
    if words[:1] == ["namespace"]:
        return all(t.kind == "name" or t.text == "::" for t in head[1:]) or len(words) == 1
    return len(head) == 2 and head[0].text == "extern" and head[1].kind == "string"


def _item(
    tokens: list[Token],
    scopes: list[str],
    declares: frozenset[str],
    may_define: bool = True,
    constant: bool = False,
) -> Item:
    mentions = frozenset(header_names.mentioned(tokens))
    text = "\n".join(scopes) + "\0" + " ".join(t.text for t in tokens)
    digest = hashlib.sha256(text.encode()).hexdigest()
    line = tokens[0].line if tokens else 0
    return Item(declares, mentions, digest, line, may_define, constant)


def constant_names(items: tuple[Item, ...]) -> frozenset[str]:
    """The names the header declares constant variables with, and nothing else that may hold
    state (``numbast.core.ptx_symbols``)."""
    constant = {name for item in items if item.constant for name in item.declares}
    other = {
        name for item in items if item.may_define and not item.constant for name in item.declares
    }
    return frozenset(constant - other)


def _directive_item(token: Token, scopes: list[str]) -> Item:
    match = re.match(r"#\s*(define|undef)\s+([A-Za-z_]\w*)", token.text)
    declares = frozenset([match.group(2)]) if match else frozenset()
    return _item([token], scopes, declares, may_define=match is None)

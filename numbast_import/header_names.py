"""What a run of C++ tokens declares and mentions, for ``numbast_import.header_items``.

What an item declares decides which shims depend on it, so where unsure it declares more: a
statement whose declarator cannot be told declares every name it mentions; operators and
conversion functions declare the types they take (C++ finds them through their operands, not
by name). Whether a statement may define a symbol of its own (a variable, a function that is
not inline or a template) is told here too.
"""

from __future__ import annotations

import re

from numbast_import.header_tokens import KEYWORDS, Token, at_depth_zero, without_template_prefix

# Words before a parenthesis that are not a function's name.
_NOT_DECLARATORS = frozenset(
    "__attribute__ __declspec alignas decltype __launch_bounds__ noexcept throw sizeof alignof "
    "requires __align__ static_assert operator".split()
)
_CLASS_KEYS = frozenset(("struct", "class", "union", "enum"))
_TRAILING = frozenset(("const", "volatile", "noexcept", "override", "final", "&", "&&", "mutable"))
_INLINE = frozenset(("inline", "__forceinline__", "__inline__", "constexpr", "consteval"))
_NEVER_DEFINE = frozenset(("typedef", "using", "static_assert", "friend", "enum"))


def is_function_body(head: list[Token]) -> bool:
    """Whether the ``{`` after ``head`` opens a function's body."""
    parens, angle, equals = 0, 0, False
    body_paren_seen = False
    for token in without_template_prefix(head):
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


def class_name(head: list[Token]) -> str | None:
    """The name of the struct, class, union or enum that ``head`` starts (``""`` when it has
    none); None when ``head`` starts none."""
    body = without_template_prefix(head)
    outer = at_depth_zero(body, "(")
    if any(t.text in ("=", "operator") for t in outer):
        return None
    for index, token in enumerate(outer):
        if token.text in _CLASS_KEYS:
            names = [t for t in outer[index + 1 :] if t.kind == "name" and t.text not in KEYWORDS]
            return names[0].text if names else ""
    return None


def declarator(signature: list[Token]) -> str | None:
    """The name before the first parameter list of a function's signature (None: none)."""
    body = without_template_prefix(signature)
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
    body = without_template_prefix(statement)
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
    if words[0] == "friend" or "," in [t.text for t in at_depth_zero(body, "([{<")]:
        return None
    if "operator" in words or "~" in words:
        return None  # found through its operands' types: declares every name it mentions
    name = declarator(body)
    if name is not None:
        return {name}
    for stop in ("=", "[", ";", "{", ":"):
        if stop in words:
            end = words.index(stop)
            if end > 0 and body[end - 1].kind == "name":
                return {body[end - 1].text}
            break
    return None


def declares(signature: list[Token], whole: list[Token]) -> frozenset[str]:
    """What a statement declares: the names of its ``signature`` (the part before a body),
    else every name of its signature (operators: the types they take) or, failing that, of
    the whole statement."""
    names = _declared_names(signature)
    if names is None:
        names = mentioned(signature) or mentioned(whole)
    return frozenset(names - KEYWORDS)


def mentioned(tokens: list[Token]) -> set[str]:
    names: set[str] = set()
    for token in tokens:
        if token.kind == "name":
            names.add(token.text)
        elif token.kind == "directive":
            names.update(re.findall(r"[A-Za-z_]\w*", token.text))
    return names - KEYWORDS


def is_inline(signature: list[Token]) -> bool:
    """Whether a function with this signature is inline (or a template, not a specialization):
    emitted only where used, and merged across units."""
    words = {t.text for t in signature}
    template = len(signature) > 2 and signature[0].text == "template"
    specialization = template and signature[1].text == "<" and signature[2].text == ">"
    return bool(words & _INLINE) or (template and not specialization)


def may_define(statement: list[Token]) -> bool:
    """Whether a statement without a body may define a symbol (a variable; a prototype is
    taken for one too: telling them apart needs the types)."""
    first = statement[0].text if statement else ""
    if first in _NEVER_DEFINE or is_inline(statement):
        return False
    return not (first == "extern" and "=" not in {t.text for t in statement})


def is_constant(statement: list[Token]) -> bool:
    """Whether a statement without a body declares only constant variables (``constexpr``, or
    ``const`` objects: not pointers to const), which every unit may have a copy of."""
    body = at_depth_zero(without_template_prefix(statement), "([{<")
    words = [t.text for t in body]
    if not words or words[0] in _NEVER_DEFINE or words[0] in ("extern", "template"):
        return False
    if "mutable" in words or "volatile" in words:
        return False
    head = words[: words.index("=")] if "=" in words else words
    if "constexpr" in head:
        return True
    if "," in head or "const" not in head:
        return False
    pointers = [i for i, word in enumerate(head) if word in ("*", "&", "&&")]
    return not pointers or "const" in head[pointers[-1] + 1 :]

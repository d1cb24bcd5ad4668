"""C++ header text as tokens: the tokenizer of ``numbast_import.header_items`` and the walks over
token runs that the cutter and the name rules share (matching braces, what lies outside
brackets, a declaration without its ``template <...>`` prefixes)."""

from __future__ import annotations

import re
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


class Token(NamedTuple):
    kind: str  # name, number, string, punct, directive
    text: str
    line: int


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


def matching_brace(tokens: list[Token], open_: int) -> int | None:
    depth = 0
    for index in range(open_, len(tokens)):
        if tokens[index].text == "{":
            depth += 1
        elif tokens[index].text == "}":
            depth -= 1
            if depth == 0:
                return index
    return None


def at_depth_zero(tokens: list[Token], brackets: str) -> list[Token]:
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


def without_template_prefix(head: list[Token]) -> list[Token]:
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

"""Texture references to texture objects, on source text.

CUDA 12 removed texture references (``texture<T, dim, mode> name;`` at file scope, read with
``tex2D(name, x, y)``). Each such declaration becomes a ``__constant__ cudaTextureObject_t``
that the runtime fills before a launch (``textures``), and each read of the four kinds PyCUDA
programs use (``tex1Dfetch``, ``tex1D``, ``tex2D``, ``tex3D``) becomes the object form with
the type the reference returned. Anything else that names a texture reference (layered or
cubemap textures, other fetch functions, passing the reference around, surfaces) cannot be
rewritten faithfully and raises TextureRewriteError naming the line and the texture-object
way to write it. Line numbers do not change, so compiler messages still match the source.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

FETCHES = ("tex1Dfetch", "tex1D", "tex2D", "tex3D")
_DIMS = {"1": 1, "2": 2, "3": 3, "cudaTextureType1D": 1, "cudaTextureType2D": 2,
         "cudaTextureType3D": 3}  # fmt: skip
_MODES = ("cudaReadModeElementType", "cudaReadModeNormalizedFloat")
_DECLARATION = re.compile(
    r"(?P<static>\bstatic\s+)?\btexture\s*<\s*(?P<args>[^;{}]*?)\s*>\s*"
    r"(?P<names>[A-Za-z_]\w*(?:\s*,\s*[A-Za-z_]\w*)*)\s*;"
)
_TEXTURE_TYPE = re.compile(r"\b(texture|surface)\s*<")
_OBJECT_SUFFIX = "_numbast_texobj"
HOW_TO = (
    "use a texture object instead: a cudaTextureObject_t kernel parameter read with "
    "tex2D<float>(obj, x, y) (see docs/rtc.md, 'Textures')"
)


class TextureRewriteError(ValueError):
    """A texture-reference construct that has no faithful texture-object rewrite."""


@dataclass(frozen=True)
class TextureDeclaration:
    """A rewritten ``texture<element_type, dim, read_mode> name;``."""

    name: str
    element_type: str
    dim: int
    read_mode: str
    line: int

    @property
    def object_name(self) -> str:
        """The ``__constant__ cudaTextureObject_t`` that replaces the reference."""
        return self.name + _OBJECT_SUFFIX

    @property
    def fetch_type(self) -> str:
        """What a fetch returns: the element type, or float of its width when normalized."""
        if self.read_mode == "cudaReadModeElementType":
            return self.element_type
        width = re.search(r"([1-4])$", self.element_type)
        return f"float{width.group(1)}" if width else "float"


def rewrite_texture_references(source: str) -> tuple[str, tuple[TextureDeclaration, ...]]:
    """``source`` with texture references turned into texture objects, and what was declared.
    A source without texture references comes back unchanged."""
    if "texture" not in source and "surface" not in source:
        return source, ()
    code = code_only(source)
    declarations: list[TextureDeclaration] = []
    edits: list[tuple[int, int, str]] = []
    for match in _DECLARATION.finditer(code):
        line = code.count("\n", 0, match.start()) + 1
        element_type, dim, mode = _parse_arguments(match.group("args"), line, source)
        names = [n.strip() for n in match.group("names").split(",")]
        for name in names:
            declarations.append(TextureDeclaration(name, element_type, dim, mode, line))
        replacement = " ".join(
            f"__constant__ cudaTextureObject_t {n}{_OBJECT_SUFFIX};" for n in names
        )
        edits.append((match.start(), match.end(), replacement))
    leftover = _TEXTURE_TYPE.search(_blank(code, edits))
    if leftover is not None:
        _fail(source, code, leftover.start(), f"{leftover.group(1)}<...> used here")
    for declaration in declarations:
        edits += _rewrite_fetches(code, declaration)
    remaining = _blank(code, edits)
    for declaration in declarations:
        use = re.search(rf"\b{re.escape(declaration.name)}\b", remaining)
        if use is not None:
            _fail(
                source, code, use.start(),
                f"texture reference {declaration.name!r} is used other than as the first "
                f"argument of {', '.join(FETCHES)}",
            )  # fmt: skip
    out = source
    for start, end, text in sorted(edits, reverse=True):
        newlines = source.count("\n", start, end)
        out = out[:start] + text + "\n" * newlines + out[end:]
    return out, tuple(declarations)


def _parse_arguments(args: str, line: int, source: str) -> tuple[str, int, str]:
    parts = [p.strip() for p in _split_top_level(args)]
    if not parts or not parts[0] or len(parts) > 3:
        raise TextureRewriteError(f"line {line}: cannot read texture<{args}>; {HOW_TO}")
    element_type = " ".join(parts[0].split())
    dim_text = parts[1] if len(parts) > 1 else "1"
    mode = parts[2] if len(parts) > 2 else "cudaReadModeElementType"
    if dim_text not in _DIMS:
        raise TextureRewriteError(
            f"line {line}: texture<{args}>: only 1D, 2D and 3D texture references are "
            f"rewritten, not {dim_text} (layered and cubemap textures); {HOW_TO}"
        )
    if mode not in _MODES:
        raise TextureRewriteError(f"line {line}: texture<{args}>: unknown read mode {mode}")
    return element_type, _DIMS[dim_text], mode


def _rewrite_fetches(code: str, declaration: TextureDeclaration) -> list[tuple[int, int, str]]:
    pattern = re.compile(rf"\b({'|'.join(FETCHES)})\s*\(\s*{re.escape(declaration.name)}\s*,")
    return [
        (m.start(), m.end(), f"{m.group(1)}<{declaration.fetch_type}>({declaration.object_name},")
        for m in pattern.finditer(code)
    ]


def _split_top_level(text: str) -> list[str]:
    parts, depth, current = [], 0, ""
    for char in text:
        if char == "<":
            depth += 1
        elif char == ">":
            depth -= 1
        if char == "," and depth == 0:
            parts.append(current)
            current = ""
        else:
            current += char
    parts.append(current)
    return parts


def _blank(code: str, edits: list[tuple[int, int, str]]) -> str:
    """``code`` with the edited spans blanked, to search for what is left."""
    chars = list(code)
    for start, end, _text in edits:
        chars[start:end] = " " * (end - start)
    return "".join(chars)


def _fail(source: str, code: str, position: int, what: str) -> None:
    line = code.count("\n", 0, position) + 1
    text = source.splitlines()[line - 1].strip()
    raise TextureRewriteError(
        f"line {line}: {what}: `{text}`. Texture references were removed in CUDA 12 and this "
        f"construct has no automatic rewrite; {HOW_TO}"
    )


def code_only(source: str) -> str:
    """``source`` with comments and string/character literals blanked to spaces (newlines
    kept), so that positions and line numbers match the source."""
    out = list(source)
    i, n = 0, len(source)
    while i < n:
        two = source[i : i + 2]
        if two == "//":
            end = source.find("\n", i)
            end = n if end == -1 else end
        elif two == "/*":
            end = source.find("*/", i + 2)
            end = n if end == -1 else end + 2
        elif source[i] in "\"'":
            quote, end = source[i], i + 1
            while end < n and source[end] != quote and source[end] != "\n":
                end += 2 if source[end] == "\\" else 1
            end = min(end + 1, n)
        else:
            i += 1
            continue
        for j in range(i, end):
            if out[j] != "\n":
                out[j] = " "
        i = end
    return "".join(out)

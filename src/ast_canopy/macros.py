"""Object-like macros that expand to a literal -> ``model.MacroConstant``.

A macro is preprocessor state that a normal parse does not keep: libclang reports definitions
only when asked for its detailed preprocessing record, and then every directive and macro
expansion of the translation unit is a cursor the walk has to step over (CUB: 30,000 of them,
about 0.2 s). So the retained files are first scanned as text for a ``#define NAME`` whose
replacement looks like a literal; only when one is found does the parse keep the record. clang
then says which definitions the preprocessor really read (not those in an inactive ``#if``
branch) and their tokens; ``ast_canopy.literals`` reads the value and type.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from clang import cindex as ci

from ast_canopy import _libclang, literals
from ast_canopy.constant_values import float_text
from ast_canopy.context import Context
from ast_canopy.model import MacroConstant, Type, TypeKind

# `#define NAME` then a replacement starting like a literal: digits, a quote, `true`/`false`,
# possibly behind parentheses and a sign. A function-like macro has `(` right after its name.
_LITERAL_DEFINE = re.compile(
    rb"^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)[ \t]+[-+( \t]*(?:[0-9'\"]|\.[0-9]|true\b|false\b)",
    re.MULTILINE,
)
_IDENTIFIER = re.compile(r"[A-Za-z_]\w*")
_SIZES = {
    "bool": 1,
    "char": 1,
    "int": 4,
    "unsigned int": 4,
    "long": 8,
    "unsigned long": 8,
    "long long": 8,
    "unsigned long long": 8,
    "float": 4,
    "double": 8,
}


def defines_literals(paths: Iterable[str]) -> bool:
    """Whether any of the files (realpaths) has a ``#define`` that may expand to a literal."""
    for path in paths:
        try:
            with open(path, "rb") as handle:
                text = handle.read()
        except OSError:
            continue  # a directory or a file that is gone: clang will say so if it matters
        for match in _LITERAL_DEFINE.finditer(text):
            if not is_reserved(match[1].decode()):
                return True
    return False


def is_reserved(name: str) -> bool:
    """A reserved identifier (``_CCCL_PP_NOT_0``, ``__CUDA_API_VERSION``): the implementation's
    own, not a library's interface. libcu++ alone defines hundreds of such literal macros."""
    return (name.startswith("_") and name[1:2].isupper()) or "__" in name


def _builtin(name: str) -> Type:
    size = _SIZES[name]
    return Type(
        name=name,
        canonical_name=name,
        unqualified_non_ref_type_name=name,
        kind=TypeKind.BUILTIN,
        sizeof_=size,
        alignof_=size,
        fully_qualified_name=name,
    )


def _literal_type(cxx_type: str) -> Type:
    if cxx_type in _SIZES:
        return _builtin(cxx_type)
    length = int(cxx_type[cxx_type.index("[") + 1 : -1])  # "const char[N]"
    element = Type(
        name="const char",
        canonical_name="const char",
        unqualified_non_ref_type_name="char",
        kind=TypeKind.BUILTIN,
        is_const=True,
        sizeof_=1,
        alignof_=1,
        fully_qualified_name="const char",
    )
    return Type(
        name=cxx_type,
        canonical_name=cxx_type,
        unqualified_non_ref_type_name=f"char[{length}]",
        kind=TypeKind.ARRAY,
        pointee=element,
        array_extents=(length,),
        sizeof_=length,
        alignof_=1,
        fully_qualified_name=cxx_type,
    )


def _serialized(found: literals.Literal) -> str:
    value = found.value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return float_text(value, single=found.cxx_type == "float")
    if isinstance(value, str):
        return found.text
    return str(value)


class MacroCollector:
    """The object-like macros of one parse's retained files, in definition order."""

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx
        self.found: dict[str, MacroConstant] = {}
        self.aliases: dict[str, tuple[str, str, int]] = {}  # name -> (target, file, line)
        self.order: dict[str, None] = {}  # every name defined, in definition order

    def visit(self, cursor: ci.Cursor) -> None:
        """A MACRO_DEFINITION cursor in a retained file."""
        if is_reserved(cursor.spelling) or _libclang.is_function_like_macro(cursor):
            return
        tokens = list(cursor.get_tokens())
        name, body = cursor.spelling, [t.spelling for t in tokens[1:]]
        file, line = self.ctx.position(cursor)
        # A later definition (after an #undef) is the one the header leaves in force.
        self.found.pop(name, None)
        self.aliases.pop(name, None)
        self.order.pop(name, None)
        self.order[name] = None
        if len(body) == 1 and _IDENTIFIER.fullmatch(body[0]) and body[0] not in ("true", "false"):
            self.aliases[name] = (body[0], file, line)
            return
        found = literals.read_literal(body)
        if found is None:
            return
        self.found[name] = MacroConstant(
            name=name,
            type_=_literal_type(found.cxx_type),
            value_serialized=_serialized(found),
            value=found.value,
            expansion=self.ctx.tokens_text(tokens[1:]),
            file=file,
            line=line,
        )

    def constants(self) -> list[MacroConstant]:
        """Every literal macro and every macro naming one (through other such names), in
        definition order."""
        result = dict(self.found)
        for name, (target, file, line) in self.aliases.items():
            seen = {name}
            while target in self.aliases and target not in seen:
                seen.add(target)
                target = self.aliases[target][0]
            constant = self.found.get(target)
            if constant is not None:
                result[name] = MacroConstant(
                    name=name,
                    type_=constant.type_,
                    value_serialized=constant.value_serialized,
                    value=constant.value,
                    expansion=self.aliases[name][0],
                    file=file,
                    line=line,
                )
        return [result[name] for name in self.order if name in result]

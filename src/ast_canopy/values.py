"""constexpr variables -> ``model.ConstExprVar``, with clang's constant evaluator."""

from __future__ import annotations

import json
import logging
import math
import re

from clang import cindex as ci

from ast_canopy import _libclang
from ast_canopy.context import Context
from ast_canopy.model import ConstExprVar

logger = logging.getLogger(__name__)

_CONSTEXPR_RE = re.compile(r"\bconstexpr\b")
_ATTR_RE = re.compile(r"__attribute__\(\(.*?\)\)")


def is_constexpr_var(ctx: Context, cursor: ci.Cursor) -> bool:
    # libclang has no isConstexpr; clang's printer writes the keyword, even when the
    # declaration spells it through a macro. Only the part before the initializer counts.
    head = _ATTR_RE.sub("", cursor.pretty_printed(ctx.policy)).split("=", 1)[0]
    return bool(_CONSTEXPR_RE.search(head))


def _float_text(value: float) -> str:
    if math.isinf(value):
        return "INFINITY" if value > 0 else "-INFINITY"
    if math.isnan(value):
        return "NAN"
    return repr(value)


def literal_text(cursor: ci.Cursor) -> str | None:
    """The initializer's value as C++ literal text, or None when clang cannot fold it."""
    evaluated = _libclang.evaluate(cursor)
    if evaluated is None:
        return None
    if evaluated.kind == "int":
        if cursor.type.get_canonical().kind == ci.TypeKind.BOOL:
            return "true" if evaluated.value else "false"
        return str(evaluated.value)
    if evaluated.kind == "float":
        return _float_text(float(evaluated.value))
    # A C string literal; JSON string escapes are valid C++ escapes for what matters here.
    return json.dumps(evaluated.value)


def make_constexpr_var(ctx: Context, cursor: ci.Cursor, scope: str) -> ConstExprVar | None:
    value = literal_text(cursor)
    if value is None:
        logger.debug(
            "constexpr %s%s has a value clang cannot fold to a literal (a struct, a pointer, "
            "an array); skipped",
            scope,
            cursor.spelling,
        )
        return None
    file, line = ctx.position(cursor)
    return ConstExprVar(
        name=cursor.spelling,
        qual_name=f"{scope}{cursor.spelling}",
        type_=ctx.types.make(cursor.type),
        value=value,
        file=file,
        line=line,
    )

"""constexpr variables -> ``model.ConstExprVar``, with clang's constant evaluator."""

from __future__ import annotations

import logging
import re

from clang import cindex as ci

from ast_canopy.constant_values import evaluated_value
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


def make_constexpr_var(ctx: Context, cursor: ci.Cursor, scope: str) -> ConstExprVar | None:
    evaluated = evaluated_value(cursor)
    if evaluated is None:
        logger.debug(
            "constexpr %s%s has a value clang cannot fold to a literal (a struct, a pointer, "
            "an array); skipped",
            scope,
            cursor.spelling,
        )
        return None
    text, value = evaluated
    file, line = ctx.position(cursor)
    return ConstExprVar(
        name=cursor.spelling,
        qual_name=f"{scope}{cursor.spelling}",
        type_=ctx.types.make(cursor.type),
        value_serialized=text,
        value=value,
        file=file,
        line=line,
    )

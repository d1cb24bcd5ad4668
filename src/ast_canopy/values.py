"""constexpr variables -> ``model.ConstExprVar``, with clang's constant evaluator."""

from __future__ import annotations

import json
import logging
import math
import re
import struct

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


def float_text(value: float, single: bool) -> str:
    """The shortest text that reads back as ``value``: as a float32 for ``single``, else as a
    double. clang evaluates `constexpr float x = 3.14` to 3.140000104904175; "3.14" is what the
    source means and what converts back to the same float."""
    if math.isinf(value):
        return "INFINITY" if value > 0 else "-INFINITY"
    if math.isnan(value):
        return "NAN"
    if single:
        as_float32 = struct.unpack("f", struct.pack("f", value))[0]
        for digits in range(1, 10):
            text = f"{value:.{digits}g}"
            if struct.unpack("f", struct.pack("f", float(text)))[0] == as_float32:
                return _with_point(text)
    return repr(value)


def _with_point(text: str) -> str:
    """``"3"`` -> ``"3.0"``: a floating literal, as repr() writes them."""
    return text if any(c in text for c in ".eEn") else f"{text}.0"


_SINGLE_PRECISION = {ci.TypeKind.FLOAT, ci.TypeKind.HALF, ci.TypeKind.FLOAT16}


def evaluated_value(cursor: ci.Cursor) -> tuple[str, bool | int | float | str] | None:
    """The initializer's value as (C++ literal text, Python value); None when clang cannot
    fold it."""
    evaluated = _libclang.evaluate(cursor)
    if evaluated is None:
        return None
    canonical_kind = cursor.type.get_canonical().kind
    if evaluated.kind == "int":
        if canonical_kind == ci.TypeKind.BOOL:
            return ("true", True) if evaluated.value else ("false", False)
        return str(evaluated.value), int(evaluated.value)
    if evaluated.kind == "float":
        value = float(evaluated.value)
        text = float_text(value, canonical_kind in _SINGLE_PRECISION)
        return text, float(text) if math.isfinite(value) else value
    # A C string literal; JSON string escapes are valid C++ escapes for what matters here.
    return json.dumps(evaluated.value), str(evaluated.value)


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

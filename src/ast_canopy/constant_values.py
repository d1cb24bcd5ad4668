"""clang's constant evaluator, as literals: an initializer's value as (C++ literal text,
Python value). Model-free (``values`` makes ``ConstExprVar`` of it, ``constexpr_folding``
answers ``evaluate_constexpr_value``)."""

from __future__ import annotations

import json
import math
import struct

from clang import cindex as ci

from ast_canopy import _libclang


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

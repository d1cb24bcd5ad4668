"""clang folding a constexpr variable of a C++ snippet to its value: what
``FunctionInstantiation.evaluate_constexpr_value`` asks (``instantiations``). It parses as the
parser does (``translation_units``, the same flags) but reads one variable's value, with no
declaration model: the model's instantiation API sits below the parser, which builds models.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from clang import cindex as ci

from ast_canopy import flags, toolchain
from ast_canopy.constant_values import evaluated_value
from ast_canopy.errors import ParseError
from ast_canopy.translation_units import (
    errors_of,
    format_diagnostic,
    parse_translation_unit,
    unsupported_arch,
)


def fold_constexpr(
    source: str, variable: str, compute_capability: str | int, cxx_standard: str = "gnu++17"
) -> bool | int | float | str | None:
    """The value of the namespace-scope constexpr ``variable`` that the C++ text ``source``
    declares, as clang folds it; None when it declares no such variable or clang cannot fold
    it to a literal. Raises ParseError if the source does not parse."""
    arch = flags.normalize_arch(compute_capability)
    args = flags.clang_args(
        arch, toolchain.clang_toolkit(), flags.check_cxx_standard(cxx_standard), [], []
    )
    with tempfile.TemporaryDirectory(prefix="ast_canopy-constexpr-") as scratch:
        path = Path(scratch) / "source.cuh"
        path.write_text(source)
        real = os.path.realpath(path)
        tu, _prelude_files = parse_translation_unit(str(path), args, frozenset({real}))
        errors = errors_of(tu)
        if errors:
            raise unsupported_arch(errors, arch) or ParseError(
                str(path), [format_diagnostic(d) for d in errors]
            )
        for cursor in tu.cursor.get_children():
            if (
                cursor.kind == ci.CursorKind.VAR_DECL
                and cursor.spelling == variable
                and cursor.location.file is not None
                and os.path.realpath(cursor.location.file.name) == real
            ):
                evaluated = evaluated_value(cursor)
                return None if evaluated is None else evaluated[1]
    return None

"""clang translation units as the parser makes them: parsed with the precompiled prelude when
there is one (``prelude``), and clang's diagnostics as compilers print them. Model-free: the
parser (``parser``) walks these units into declarations, ``constexpr_folding`` evaluates in
them.
"""

from __future__ import annotations

import os

from clang import cindex as ci

from ast_canopy import _libclang, prelude
from ast_canopy.errors import ParseError

PARSE_OPTIONS = ci.TranslationUnit.PARSE_SKIP_FUNCTION_BODIES | _libclang.VISIT_IMPLICIT_ATTRIBUTES
_SEVERITY = {
    ci.Diagnostic.Ignored: "ignored",
    ci.Diagnostic.Note: "note",
    ci.Diagnostic.Warning: "warning",
    ci.Diagnostic.Error: "error",
    ci.Diagnostic.Fatal: "fatal error",
}


def format_diagnostic(diagnostic: ci.Diagnostic) -> str:
    """``file:line:col: severity: message``, the way compilers print it."""
    location = diagnostic.location
    where = f"{location.file.name}:{location.line}:{location.column}" if location.file else ""
    severity = _SEVERITY.get(diagnostic.severity, "error")
    text = f"{severity}: {diagnostic.spelling}"
    return f"{where}: {text}" if where else text


def errors_of(tu: ci.TranslationUnit) -> list[ci.Diagnostic]:
    return [d for d in tu.diagnostics if d.severity >= ci.Diagnostic.Error]


def unsupported_arch(errors: list[ci.Diagnostic], arch: str) -> ValueError | None:
    for diagnostic in errors:
        if "unsupported CUDA gpu architecture" in diagnostic.spelling or (
            "GPU arch" in diagnostic.spelling and arch in diagnostic.spelling
        ):
            return ValueError(
                f"clang cannot target the GPU arch {arch!r} with this CUDA toolkit "
                f"({diagnostic.spelling}); use one both support, such as 'sm_80', 'sm_90' or "
                "'sm_100'"
            )
    return None


def parse_translation_unit(
    source: str,
    args: list[str],
    retained: frozenset[str],
    use_prelude: bool = True,
    options: int = PARSE_OPTIONS,
) -> tuple[ci.TranslationUnit, list[str]]:
    """Parse, with the precompiled prelude when possible; returns the TU and the files the
    prelude read (which the TU itself does not list)."""
    index = _libclang.index()
    pre = prelude.prelude_for(args) if use_prelude else None
    in_prelude = set(pre.included_files) if pre is not None else set()
    if os.path.realpath(source) in in_prelude or not retained.isdisjoint(in_prelude):
        # The header (or a retained one) is part of the prelude, e.g. vector_types.h: its
        # declarations would be hidden inside the PCH, which the walk does not enter.
        pre = None
    if pre is not None:
        try:
            tu = index.parse(source, args=[*args, "-include-pch", pre.pch_path], options=options)
        except ci.TranslationUnitLoadError:
            tu = None  # clang refused the PCH outright (a header in it changed)
        if tu is not None and not errors_of(tu):
            return tu, list(pre.included_files)
        if tu is None or any(
            pre.pch_path in d.spelling or "precompiled" in d.spelling for d in errors_of(tu)
        ):
            prelude.discard(pre)
        # Otherwise the header itself has errors: parse again without the prelude so that the
        # diagnostics are exactly those of a plain parse.
    try:
        tu = index.parse(source, args=args, options=options)
    except ci.TranslationUnitLoadError as exc:
        raise ParseError(
            source, [f"libclang could not parse {source} at all ({exc}); args: {args}"]
        ) from exc
    return tu, []

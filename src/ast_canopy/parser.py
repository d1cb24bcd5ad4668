"""The public entry points: parse a CUDA C++ header into ``model.Declarations``.

    decls = parse_declarations_from_source("my_lib.cuh", ["my_lib.cuh"], "sm_90")

One parse: validate the inputs, build the clang command line (``flags``, ``toolchain``), parse
with the precompiled prelude when there is one (``prelude``), report clang's errors, then walk
the retained declarations (``extract``).
"""

from __future__ import annotations

import logging
import os
import tempfile
import time
import warnings
from collections.abc import Sequence
from pathlib import Path

from clang import cindex as ci

from ast_canopy import flags, hidden_headers, macros, toolchain
from ast_canopy.context import Context
from ast_canopy.errors import ParseError
from ast_canopy.extract import extract
from ast_canopy.model import ConstExprVar, Declarations
from ast_canopy.translation_units import (
    PARSE_OPTIONS,
    errors_of,
    format_diagnostic,
    parse_translation_unit,
    unsupported_arch,
)

logger = logging.getLogger(__name__)


def _included_files(source: str, tu: ci.TranslationUnit, from_prelude: list[str]) -> list[str]:
    seen = dict.fromkeys([os.path.realpath(source)])
    for path in from_prelude:
        seen.setdefault(path)
    for inclusion in tu.get_includes():
        seen.setdefault(os.path.realpath(inclusion.include.name))
    return list(seen)


def _retained(files_to_retain: Sequence[str], source: str) -> frozenset[str]:
    if isinstance(files_to_retain, (str, os.PathLike)):
        raise TypeError(
            f"files_to_retain must be a list of paths, not the single path {files_to_retain!r}; "
            f"write [{str(files_to_retain)!r}]"
        )
    return frozenset(os.path.realpath(os.fspath(p)) for p in files_to_retain)


def _check_dirs(kind: str, dirs: Sequence[str] | None) -> list[str]:
    checked = []
    for directory in dirs or ():
        directory = os.fspath(directory)
        if directory.startswith("-I"):
            raise ValueError(f"{kind} entry {directory!r} must be a directory, without -I")
        if not os.path.isdir(directory):
            raise FileNotFoundError(f"{kind} directory not found: {directory}")
        checked.append(directory)
    return checked


def _warn_clang_binary(clang_binary: str | None) -> None:
    if clang_binary is not None:
        warnings.warn(
            f"clang_binary={clang_binary!r} is ignored: ast_canopy parses with the libclang of "
            "the libclang-ng wheel (no clang++ executable is run)",
            stacklevel=3,
        )


def parse_declarations_from_source(
    source_file_path: str | os.PathLike[str],
    files_to_retain: Sequence[str | os.PathLike[str]],
    compute_capability: str | int,
    cudatoolkit_include_dirs: Sequence[str] | None = None,
    cxx_standard: str = "gnu++17",
    additional_includes: Sequence[str] | None = None,
    defines: Sequence[str] | None = None,
    verbose: bool = False,
    bypass_parse_error: bool = False,
    cuda_header_mode: bool = False,
    clang_binary: str | None = None,
    *,
    cccl_root: str | None = None,
    default_device: bool = False,
) -> Declarations:
    """Parse a CUDA C++ header and return the declarations written in ``files_to_retain``.

    The positional parameters are NVIDIA ast_canopy's, in its order. ``compute_capability`` is
    an arch such as ``"sm_90"`` (``"90"`` and ``"9.0"`` work too). ``cudatoolkit_include_dirs``
    overrides where the CUDA headers are (the first directory holding ``cuda_runtime.h`` becomes
    the toolkit, the others are searched as system headers). ``defines`` are ``NAME`` or
    ``NAME=VALUE``. ``verbose`` logs the clang command line and every diagnostic at INFO level.
    ``cuda_header_mode`` parses a header of the CUDA toolkit itself (a vendored ``cuda.h``) as
    plain C++, without clang's CUDA wrapper, so its declarations are read from this copy and
    not from the toolkit's. ``clang_binary`` is accepted and ignored (with a warning): parsing
    needs no clang executable here. Keyword-only: ``cccl_root`` overrides the CCCL headers;
    ``default_device`` reads functions with no execution space as ``__device__`` ones, as NVRTC
    compiles them with ``-default-device`` (clang itself sees host functions).

    Raises FileNotFoundError for a missing header or include directory, ValueError for an
    unknown arch or C++ standard, and ParseError listing every clang error unless
    ``bypass_parse_error`` is set (then whatever clang could read is returned).
    """
    _warn_clang_binary(clang_binary)
    entry_point = os.fspath(source_file_path)
    source = entry_point
    if not os.path.isfile(source):
        raise FileNotFoundError(f"header not found: {source}")
    source = os.path.abspath(source)
    retained = _retained(files_to_retain, source)
    arch = flags.normalize_arch(compute_capability)
    cxx_standard = flags.check_cxx_standard(cxx_standard)
    includes = _check_dirs("additional_includes", additional_includes)
    toolkit_dirs = _check_dirs("cudatoolkit_include_dirs", cudatoolkit_include_dirs)
    tk = toolchain.clang_toolkit(toolkit_dirs or None, cccl_root)
    if cuda_header_mode:
        # The header's own directory first, so that its includes of sibling toolkit headers
        # resolve to the copies beside it.
        includes = [os.path.dirname(source), *includes]
    args = flags.clang_args(arch, tk, cxx_standard, includes, list(defines or ()))
    if cuda_header_mode:
        # -nocudainc also drops the toolkit directory that --cuda-path gives clang. The header's
        # own directory may lack crt/ (a CUDA 13 wheel without nvidia-cuda-crt, whose crt/ the
        # stand-in root borrows), so the toolkit as clang sees it is searched after it.
        args += ["-nocudainc", "-isystem", str(Path(tk.cuda_path) / "include")]
    log = logger.info if verbose else logger.debug
    log("parsing %s: clang %s", source, " ".join(args))

    started = time.perf_counter()
    options = PARSE_OPTIONS
    if macros.defines_literals(retained):
        # Macro definitions are kept only in the detailed preprocessing record.
        options |= ci.TranslationUnit.PARSE_DETAILED_PROCESSING_RECORD
    tu, prelude_files = parse_translation_unit(
        source, args, retained, not cuda_header_mode, options
    )
    parsed = time.perf_counter()
    for diagnostic in tu.diagnostics:
        log("%s", format_diagnostic(diagnostic))
    errors = errors_of(tu)
    if errors:
        arch_error = unsupported_arch(errors, arch)
        if arch_error is not None:
            raise arch_error
        if not bypass_parse_error:
            raise ParseError(source, [format_diagnostic(d) for d in errors])
        logger.warning(
            "%s: %d clang error(s) ignored (bypass_parse_error=True); declarations may be missing",
            source,
            len(errors),
        )

    decls = extract(Context(tu, retained, entry_point, default_device=default_device))
    decls.included_files = _included_files(source, tu, prelude_files)
    hidden = hidden_headers.hidden_headers(retained, tk.cudart_include)
    if hidden and not cuda_header_mode:

        def without_wrapper(header: str, kept: list[str]) -> Declarations:
            return parse_declarations_from_source(
                header,
                kept,
                arch,
                toolkit_dirs or None,
                cxx_standard,
                additional_includes,
                [*(defines or ()), "__CUDACC__"],  # what clang's wrapper would define
                verbose,
                bypass_parse_error,
                cuda_header_mode=True,
                cccl_root=cccl_root,
            )

        hidden_headers.add_hidden_declarations(decls, hidden, without_wrapper)
    log(
        "parsed %s in %.3f s, extracted in %.3f s",
        source,
        parsed - started,
        time.perf_counter() - parsed,
    )
    return decls


def value_from_constexpr_vardecl(
    source: str,
    vardecl_name: str,
    compute_capability: str | int,
    cxx_standard: str = "gnu++17",
    verbose: bool = False,
    clang_binary: str | None = None,
) -> ConstExprVar | None:
    """Evaluate the constexpr variable ``vardecl_name`` declared in the C++ text ``source``.

    ``vardecl_name`` may be qualified (``ns::kValue``). Returns None when no such constexpr
    variable exists or clang cannot fold its value to a literal. Raises ParseError if the
    source does not parse. ``clang_binary`` is accepted and ignored, as for
    parse_declarations_from_source.
    """
    _warn_clang_binary(clang_binary)
    with tempfile.TemporaryDirectory(prefix="ast_canopy-constexpr-") as scratch:
        path = Path(scratch) / "source.cuh"
        path.write_text(source)
        # Reuse the whole pipeline for flags and errors, then look the name up in the TU.
        decls = parse_declarations_from_source(
            str(path), [str(path)], compute_capability, cxx_standard=cxx_standard, verbose=verbose
        )
    for var in decls.constexpr_vars:
        if vardecl_name in (var.name, var.qual_name):
            return var
    return None

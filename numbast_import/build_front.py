"""The front half of building a cache entry: parse, plan and render the bindings, compile the
module's code, hash the files the parse read and plan the shims' units; everything a build does
before NVRTC (``numbast_import.build`` does the rest). It runs in the importer, or for a big
header in a child process of its own (``numbast_import.build_process``), so its answer is plain
data.
"""

from __future__ import annotations

import importlib
import logging
import pickle
import threading
import warnings
import zlib
from dataclasses import replace
from pathlib import Path
from typing import Any, NamedTuple

from numbast_import.cache.file_hashes import included_file_hashes
from numbast_import.cache.manifest import code_to_pyc
from numbast_import.errors import HeaderParseError, ToolkitMissingError
from numbast_import.mapping import HeaderMapping

logger = logging.getLogger(__name__)


class Later:
    """A value a build needs only after NVRTC's first compiles (the module's text and code, the
    decisions, the template probes). In the importer it is the value as it is; sent by the
    child that parsed a big header, it travels and stays, until ``get()``, a compressed pickle
    (a few MB where the objects are tens: they would be held through every NVRTC compile)."""

    __slots__ = ("_value", "_packed")

    def __init__(self, value: Any = None, packed: bytes | None = None) -> None:
        self._value = value
        self._packed = packed

    def get(self) -> Any:
        """The value (unpacked anew at each call: the caller lets it go when done)."""
        if self._packed is None:
            return self._value
        return pickle.loads(zlib.decompress(self._packed))

    def __reduce__(self):
        packed = self._packed
        if packed is None:
            packed = zlib.compress(pickle.dumps(self._value, pickle.HIGHEST_PROTOCOL), 1)
        return (Later, (None, packed))


class Front(NamedTuple):
    """What a build has before NVRTC."""

    source: Later  # the module's text (bytes)
    pyc: Later  # its code, marshalled (bytes)
    rendered: Any  # numbast.static.renderer.RenderedModule: its shims and preamble
    decisions: Later  # the rendered module's decisions
    probes: Later  # its template probes
    included: dict[str, str]  # path -> sha256 of each file the parse read (the parser's not)
    context: dict[str, str]  # the same by realpath (what units are compiled with)
    plan: Any  # numbast_import.shim_unit_plan.UnitPlan; None without shims or a preamble


def render_front(
    config,
    mapping: HeaderMapping,
    module_name: str,
    arch: str,
    filename: str,
    memo_dir: Path | None,
    progress,
) -> Front:
    """The front half of the build of ``module_name`` (see the module docstring); ``filename``
    is the module's file name in its entry, ``memo_dir`` the cache root's ``keys/`` (where the
    digests of files read are remembered; None: nowhere), ``progress`` is told each stage."""
    from ast_canopy.cache import inputs_among
    from numbast.static.module_code import compile_module
    from numbast_import.free_memory import release_free_memory
    from numbast_import.shim_unit_plan import plan_units

    rendered = _render(config, mapping, module_name, progress)
    _report_plan(rendered.decisions, progress)
    source = rendered.source.encode()
    code = compile_module(rendered.source, rendered.code, filename)  # the rows not parsed
    # Marshalled at once, and the rows as objects let go (several times their bytes, held
    # through NVRTC's compiles otherwise).
    pyc = code_to_pyc(code, source)
    del code
    decisions, probes = Later(rendered.decisions), Later(rendered.template_probes)
    rendered = replace(rendered, source="", code=None, decisions=(), template_probes=())
    release_free_memory()  # the parse's and planning's
    inputs = inputs_among((mapping.header, *rendered.included_files))  # path -> realpath
    included = included_file_hashes(list(inputs), memo_dir)
    context = {inputs[path]: sha for path, sha in included.items()}
    plan = None
    if rendered.shims and rendered.preamble is not None:  # else the importer plans them
        plan = plan_units(
            rendered.preamble,
            rendered.shims,
            arch,
            mapping.header,
            context,
            config.clang_include_paths,
            config.shim_nvrtc_options,
        )
    source, pyc = Later(source), Later(pyc)
    return Front(source, pyc, rendered, decisions, probes, included, context, plan)


def _report_plan(decisions, progress) -> None:
    from numbast.static.coverage import BOUND

    bound = sum(1 for decision in decisions if decision.outcome == BOUND)
    progress.stage(
        f"planned {len(decisions)} declarations: {bound} bound, {len(decisions) - bound} left out"
    )


def _render(config, mapping: HeaderMapping, module_name: str, progress):
    """render_bindings, with its list of declarations left out logged rather than warned (the
    first import shows one progress line; the list stays at the end of the cached module),
    and the parser's failures as ImportErrors naming the mapping."""
    import ast_canopy.parser  # noqa: F401  (what the parse runs: imported before the rest)
    from ast_canopy.errors import ParseError
    from ast_canopy.toolkit import ToolkitNotFoundError
    from numbast import BindingSkippedWarning
    from numbast.static.renderer import render_bindings

    beside = threading.Thread(
        target=_import_beside_the_parse, name="numbast-import: beside the parse", daemon=True
    )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        beside.start()
        try:
            # The installed runtime, not a copy: numbast is installed wherever entries run.
            rendered = render_bindings(
                config, embed_runtime=False, on_stage=progress.stage, with_code=True
            )
        except ParseError as exc:
            raise HeaderParseError(
                _parse_failure(exc, mapping, module_name), exc.diagnostics, name=module_name
            ) from None
        except ToolkitNotFoundError as exc:
            raise ToolkitMissingError(f"cannot import {module_name}: {exc}") from None
        finally:
            beside.join()
    for warning in caught:
        if issubclass(warning.category, BindingSkippedWarning):
            logger.info("%s", warning.message)
        else:
            warnings.warn_explicit(
                warning.message, warning.category, warning.filename, warning.lineno
            )
    return rendered


# What a build runs after the parse, imported in the background while clang parses (libclang
# holds no GIL): on two cores an edit's rebuild pays the parse and these imports (~30 ms) side by
# side rather than one after the other (benchmarks/NOTES.md, "Edit loop, session 5").
IMPORTED_BESIDE_THE_PARSE = (
    "numbast.static.arch_merge",
    "numbast.static.module_plan",
    "numbast.static.module_writer",
    "numbast.static.provenance",
    "numbast.static.template_probes",
    "numbast.static.module_code",
    "numbast.static.coverage",
    "ast_canopy.cache",
    "numbast_import.free_memory",
    "numbast_import.shim_compiler",
    "numbast_import.shim_units",
    "numbast_import.shim_unit_plan",
    "numbast_import.header_items",
    "numbast_import.nvrtc_conditions",
    "numbast_import.template_coverage",
)


def _import_beside_the_parse() -> None:
    """Import IMPORTED_BESIDE_THE_PARSE and load NVRTC, ahead of the build's own use."""
    try:
        for name in IMPORTED_BESIDE_THE_PARSE:
            importlib.import_module(name)
        _ = importlib.import_module("ast_canopy").__version__  # the provenance's (metadata)
        from numbast.core.nvrtc import nvrtc_version, stand_in_digest

        nvrtc_version()  # loads NVRTC
        stand_in_digest()
    except Exception as exc:  # only ahead of time: the build's own use raises it, and reports it
        logger.debug("importing ahead of the build: %s: %s", type(exc).__name__, exc)


def _parse_failure(exc, mapping: HeaderMapping, module_name: str) -> str:
    listing = "\n".join(f"  {d}" for d in exc.diagnostics)
    count = len(exc.diagnostics)
    return (
        f"cannot import {module_name}: clang could not parse {exc.header} ({count} "
        f"error{'s' if count != 1 else ''}):\n{listing}\nFix the header, or give the include-dirs "
        f"or defines it needs in {mapping.source}; to bind what clang could read anyway, set "
        "bypass-parse-error = true there"
    )

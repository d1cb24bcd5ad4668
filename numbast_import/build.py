"""Building a cache entry: render the bindings (the static generator: parse, plan, write),
compile their shims to LTO-IR, and compile the module's source to a code object, so that every
import (this one too) runs it without compiling. Nothing here runs the module: its shims and
their preamble are data of the rendered module. The loader runs it (``numbast_import.loader``).
"""

from __future__ import annotations

import importlib
import json
import logging
import os
import shlex
import sys
import threading
import time
import warnings
from dataclasses import replace
from functools import partial
from pathlib import Path

from numbast_import.cache.file_hashes import included_file_hashes
from numbast_import.cache.key import included_file_stamps
from numbast_import.cache.manifest import (
    BINDINGS,
    BINDINGS_CODE,
    SHIM_LTOIR,
    SHIM_SOURCE,
    code_to_pyc,
)
from numbast_import.cache.root import KEYS_DIR
from numbast_import.cache.store import BuildOutput
from numbast_import.entry_key import bindings_filename
from numbast_import.errors import (
    HeaderParseError,
    ImportConfigError,
    ShimCompileImportError,
    ToolkitMissingError,
)
from numbast_import.mapping import HeaderMapping
from numbast_import.progress import BuildProgress, NoProgress

logger = logging.getLogger(__name__)


def regenerate_command(mapping: HeaderMapping, module_name: str, arch: str, root: Path) -> str:
    """The shell command that rebuilds this entry, as printed at the top of its module."""
    if mapping.registered is not None:
        arguments = dict(mapping.registered)
        header = os.path.join(mapping.base_dir, arguments.pop("header"))
        call = [_literal(mapping.module), _literal(header)]
        call += [f"{key}={_literal(value)}" for key, value in arguments.items()]
        code = (
            f"import os, numbast_import; os.chdir({_literal(mapping.base_dir)}); "
            f"numbast_import.register({', '.join(call)}); "
            f"numbast_import.warm([{_literal(module_name)}], [{_literal(arch)}], "
            f"into={_literal(str(root))})"
        )
        return shlex.join([sys.executable, "-c", code])
    command = ["numbast-cache"]
    if mapping.pyproject is not None:
        command += ["--config", mapping.pyproject]
    return shlex.join([*command, "warm", module_name, "--arch", arch, "--into", str(root)])


def _literal(value: object) -> str:
    """Python source for plain data, with double-quoted strings: the command stays readable
    inside the shell's single quotes."""
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_literal(item) for item in value) + "]"
    if isinstance(value, dict):
        items = (f"{_literal(k)}: {_literal(v)}" for k, v in value.items())
        return "{" + ", ".join(items) + "}"
    return repr(value)  # bool, int, float, None


def generate(
    module_name: str,
    mapping: HeaderMapping,
    arch: str,
    entry_dir: Path | None,
    regenerate: str,
    progress: BuildProgress | None = None,
) -> BuildOutput:
    """Render the bindings of ``mapping`` for ``arch`` as ``module_name`` and compile their
    shims. ``entry_dir`` is where the entry will be (None: in memory only); ``progress`` is
    told each stage (numbast_import.progress)."""
    progress = progress if progress is not None else NoProgress()
    started = time.time()
    # The mappings that satisfied the schema are remembered in the root's keys/.
    checked_in = entry_dir.parent.parent / KEYS_DIR if entry_dir is not None else None
    config = mapping.static_config(arch, regenerate_command=regenerate, checked_in=checked_in)
    if mapping.uses:
        from numbast_import.uses import external_types

        config = replace(config, external_types=external_types(mapping.uses))
    while True:
        rendered = _render(config, mapping, module_name, progress)
        # Imported beside the parse (IMPORTED_BESIDE_THE_PARSE).
        from ast_canopy.cache import inputs_among
        from numbast.static.module_code import compile_module
        from numbast_import.free_memory import release_free_memory
        from numbast_import.shim_compiler import ShimCompileError
        from numbast_import.shim_units import ShimStore, compile_module_shims

        _report_plan(rendered.decisions, progress)
        source = rendered.source.encode()
        filename = bindings_filename(entry_dir, module_name)
        code = compile_module(rendered.source, rendered.code, filename)  # the rows not parsed
        # Marshalled at once, and the rows as objects let go (several times their bytes, held
        # through NVRTC's compiles otherwise).
        pyc = code_to_pyc(code, source)
        del code
        rendered = replace(rendered, source="", code=None)
        release_free_memory()  # the parse's and planning's: NVRTC's peak comes next
        preamble = rendered.preamble
        if preamble is None:
            preamble = _evaluated_preamble(config, mapping, module_name, filename)
        inputs = inputs_among((mapping.header, *rendered.included_files))  # path -> realpath
        read = list(inputs)
        included = included_file_hashes(read, checked_in)
        try:
            compiled = compile_module_shims(
                preamble,
                rendered.shims,
                f"{module_name}_shims.cu",
                arch,
                mapping.header,
                {inputs[path]: sha for path, sha in included.items()},
                # Units of shims are kept in the root the entry is built into (else in memory).
                ShimStore(entry_dir.parent.parent if entry_dir is not None else None),
                config.clang_include_paths,
                config.shim_nvrtc_options,
                module=module_name,
                on_round=partial(_report_shims, progress),
                on_unit=partial(_report_units, progress, len(rendered.shims)),
            )
        except ShimCompileError as exc:
            if exc.wants_default_device and mapping.default_device is None:
                if not config.default_device:
                    config = _with_default_device(config, module_name)
                    continue
            raise ShimCompileImportError(
                f"cannot import {module_name}: {exc}\n{_fix(exc, mapping)}"
                f"(mapped in {mapping.source})"
            ) from None
        break
    from numbast.static.coverage import summarize
    from numbast_import.nvrtc_conditions import hidden_reasons
    from numbast_import.template_coverage import compile_template_probes

    hidden = hidden_reasons(
        {d.shim: d.location for d in rendered.decisions if d.shim in compiled.errors},
        preamble,
        module_name,
        arch,
        config.clang_include_paths,
        config.shim_nvrtc_options,
    )
    if rendered.template_probes:
        candidates = sum(len(probe.candidates) for probe in rendered.template_probes)
        progress.stage(
            f"checking {len(rendered.template_probes)} templates for an instance that compiles "
            f"({candidates} candidates)"
        )
    probes = compile_template_probes(
        rendered.template_probes,
        preamble,
        f"{module_name}_template_probes.cu",
        arch,
        config.clang_include_paths,
        config.shim_nvrtc_options,
    )

    artifacts = {BINDINGS: source, BINDINGS_CODE: pyc}
    units: dict = {}
    if compiled.units is None:
        artifacts.update({SHIM_SOURCE: compiled.source.encode(), SHIM_LTOIR: compiled.ltoir})
    else:
        units = {"shim_units": [[digest, names] for digest, names in compiled.units]}
    return BuildOutput(
        artifacts=artifacts,
        included_files=included,
        notes={
            **units,
            "included_stamps": included_file_stamps(read, started),
            "shims_left_out": list(compiled.left_out),
            "shims_rejected": dict(compiled.errors),
            "nvrtc_options": list(config.shim_nvrtc_options),
            "coverage": summarize(rendered.decisions, compiled.errors, probes, hidden),
            "project": mapping.pyproject or mapping.source,
            "regenerate": regenerate,
        },
    )


def _report_plan(decisions, progress) -> None:
    from numbast.static.coverage import BOUND

    bound = sum(1 for decision in decisions if decision.outcome == BOUND)
    progress.stage(
        f"planned {len(decisions)} declarations: {bound} bound, {len(decisions) - bound} left out"
    )


def _report_units(progress, shims: int, done: int, of: int) -> None:
    progress.stage(f"compiling {shims} shims with NVRTC: {done} of {of} units done")


def _report_shims(progress, compiling: int, of: int) -> None:
    if of == 0:
        progress.stage("compiling the header with NVRTC (no shims)")
    elif compiling == of:
        progress.stage(f"compiling {of} shims with NVRTC")
    else:
        rejected = of - compiling
        progress.stage(f"compiling {compiling} of {of} shims with NVRTC ({rejected} rejected)")


def _with_default_device(config, module_name: str):
    """``config`` with -default-device: NVRTC asks for it (functions without an execution
    space), so the header is parsed again reading them as device functions, as NVRTC will."""
    logger.info(
        "%s: NVRTC rejects functions without an execution space; binding the header with "
        "-default-device (default-device = true in its mapping skips this first attempt)",
        module_name,
    )
    return replace(config, default_device=True)


def _fix(exc, mapping: HeaderMapping) -> str:
    """How to make NVRTC compile the header, for the import error."""
    if exc.wants_default_device and mapping.default_device is False:
        return (
            "NVRTC asks for -default-device: remove default-device = false from the mapping "
            "(or set it true)\n"
        )
    return (
        "Check the mapping's defines, include-dirs and nvrtc-options (NVRTC finds stand-ins for "
        "the C and C++ standard headers, docs/nvrtc.md)\n"
    )


def _evaluated_preamble(config, mapping: HeaderMapping, module_name: str, filename: str) -> str:
    """The preamble of a module whose shim-include-override is an expression: evaluated as the
    module will evaluate it (after its additional-imports, with its ``__file__``), but alone."""
    from numbast.core.shim_text import shim_preamble

    namespace = {"__name__": module_name, "__file__": filename}
    expression = config.shim_include_override
    try:
        for statement in config.additional_imports:
            exec(statement, namespace)
        include = eval(expression, namespace)
    except Exception as exc:  # the user's expression: any failure is theirs to fix
        raise ImportConfigError(
            f"cannot import {module_name}: its shim-include-override {expression!r} raised "
            f"{type(exc).__name__}: {exc}; fix it in {mapping.source}"
        ) from None
    return shim_preamble(str(include), config.predefined_macros)


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

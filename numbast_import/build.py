"""Building a cache entry: render the bindings (the static generator: parse, plan, write) and
compile the module's source to a code object (``numbast_import.build_front``, in this process
or, for a big header, in a child: ``numbast_import.build_process``), then compile their shims to
LTO-IR, so that every import (this one too) runs it without compiling. Nothing here runs the
module: its shims and their preamble are data of the rendered module. The loader runs it
(``numbast_import.loader``).
"""

from __future__ import annotations

import json
import logging
import os
import shlex
import sys
import time
from dataclasses import replace
from functools import partial
from pathlib import Path

from numbast_import.cache.key import included_file_stamps
from numbast_import.cache.manifest import (
    BINDINGS,
    BINDINGS_CODE,
    SHIM_LTOIR,
    SHIM_SOURCE,
)
from numbast_import.cache.root import KEYS_DIR
from numbast_import.cache.store import BuildOutput
from numbast_import.entry_key import bindings_filename
from numbast_import.errors import (
    ImportConfigError,
    ShimCompileImportError,
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
    from numbast_import.build_front import render_front
    from numbast_import.build_process import render_in_child, wants_child

    progress = progress if progress is not None else NoProgress()
    started = time.time()
    # The mappings that satisfied the schema are remembered in the root's keys/.
    checked_in = entry_dir.parent.parent / KEYS_DIR if entry_dir is not None else None
    config = mapping.static_config(arch, regenerate_command=regenerate, checked_in=checked_in)
    if mapping.uses:
        from numbast_import.uses import external_types

        config = replace(config, external_types=external_types(mapping.uses))
    while True:
        filename = bindings_filename(entry_dir, module_name)
        # A big header's front half runs in a child (numbast_import.build_process).
        front = render_in_child if wants_child(config) else render_front
        source, pyc, rendered, decisions, probes, included, context, plan = front(
            config, mapping, module_name, arch, filename, checked_in, progress
        )
        # Imported beside the parse (build_front.IMPORTED_BESIDE_THE_PARSE).
        from numbast_import.shim_compiler import ShimCompileError
        from numbast_import.shim_store import ShimStore
        from numbast_import.shim_units import compile_module_shims

        preamble = rendered.preamble
        if preamble is None:
            preamble = _evaluated_preamble(config, mapping, module_name, filename)
        try:
            compiled = compile_module_shims(
                preamble,
                rendered.shims,
                f"{module_name}_shims.cu",
                arch,
                mapping.header,
                context,
                # Units of shims are kept in the root the entry is built into (else in memory).
                ShimStore(entry_dir.parent.parent if entry_dir is not None else None),
                config.clang_include_paths,
                config.shim_nvrtc_options,
                module=module_name,
                on_round=partial(_report_shims, progress),
                on_unit=partial(_report_units, progress, len(rendered.shims)),
                plan=plan,
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

    # What NVRTC's next compiles do not need is let go, or held packed (build_front.Later).
    del rendered, plan
    rejected = {d.shim: d.location for d in decisions.get() if d.shim in compiled.errors}
    hidden = hidden_reasons(
        rejected, preamble, module_name, arch, config.clang_include_paths, config.shim_nvrtc_options
    )
    template_probes = probes.get()
    if template_probes:
        candidates = sum(len(probe.candidates) for probe in template_probes)
        progress.stage(
            f"checking {len(template_probes)} templates for an instance that compiles "
            f"({candidates} candidates)"
        )
    outcomes = compile_template_probes(
        template_probes,
        preamble,
        f"{module_name}_template_probes.cu",
        arch,
        config.clang_include_paths,
        config.shim_nvrtc_options,
    )
    template_probes = None

    artifacts = {BINDINGS: source.get(), BINDINGS_CODE: pyc.get()}
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
            "included_stamps": included_file_stamps(included, started),
            "shims_left_out": list(compiled.left_out),
            "shims_rejected": dict(compiled.errors),
            "nvrtc_options": list(config.shim_nvrtc_options),
            "coverage": summarize(decisions.get(), compiled.errors, outcomes, hidden),
            "project": mapping.pyproject or mapping.source,
            "regenerate": regenerate,
        },
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

"""``render_bindings_module(config) -> str``: the static generator, from config to module text.

Parse the entry point for each GPU arch (``ast_canopy``), merge the per-arch declarations
(``arch_merge``), plan every declaration into rows with dynamic binding's planning code
(``module_plan``), and write the module (``module_writer``). Nothing here imports Numba: the
rows describe Numba types as data, so generating bindings costs a parse and some string work.
"""

from __future__ import annotations

import logging
import os
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from numbast.static.config import StaticConfig
    from numbast.static.module_code import ModuleCode
    from numbast.static.module_plan import ModulePlan

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class RenderedModule:
    """A rendered bindings module and the files clang read to make it (realpaths, sorted):
    what a cache of generated modules must hash to know when to regenerate. ``shims`` (name,
    C++ text) and ``preamble`` are what the module's shim library holds, as plain data, so the
    shims compile without running the module (``preamble`` is None when a Shim Include
    Override expression is only evaluated as the module is imported)."""

    source: str
    included_files: tuple[str, ...]
    decisions: tuple = ()  # what became of each declaration (numbast.static.coverage.Decision)
    shims: tuple[tuple[str, str], ...] = ()
    preamble: str | None = None
    template_probes: tuple = ()  # candidate instances (numbast.static.template_probes)
    code: ModuleCode | None = None  # compiles it without parsing its rows (``with_code``)


def render_bindings_module(config: StaticConfig) -> str:
    """The source text of the standalone bindings module that ``config`` describes.

    Declarations that cannot be bound are left out, with one BindingSkippedWarning listing them.
    Raises ast_canopy.ParseError when clang cannot parse the entry point.
    """
    return render_bindings(config).source


def render_bindings(
    config: StaticConfig,
    *,
    embed_runtime: bool = True,
    on_stage: Callable[[str], None] | None = None,
    with_code: bool = False,
) -> RenderedModule:
    """:func:`render_bindings_module`, also returning the files the parse read.

    ``embed_runtime=False`` writes a module that imports the installed runtime instead of
    carrying a copy (the import system's cache entries: numbast is installed wherever they run).
    ``on_stage`` is told each stage as it starts (the import system's progress line); without
    it, stages are logged. ``with_code``: also what ``module_code.compile_module`` needs to
    compile the module without parsing its rows (a big header's rows cost ``compile()`` ~65
    bytes of memory per byte of source).
    """
    from ast_canopy import parse_declarations_from_source
    from ast_canopy.toolkit import cuda_version, cudart_include_dir

    stage = on_stage if on_stage is not None else logger.info
    header = os.path.basename(config.entry_point)
    per_arch = []
    for arch in config.gpu_arch:
        stage(f"parsing {config.entry_point} for {arch}")
        decls = parse_declarations_from_source(
            config.entry_point,
            list(config.file_list),
            arch,
            additional_includes=list(config.clang_include_paths),
            defines=list(config.predefined_macros),
            bypass_parse_error=config.bypass_parse_error,
            default_device=config.default_device,
        )
        per_arch.append((arch, decls))
    # What comes after the parse is imported after it: the import system imports it in the
    # background while clang parses (numbast_import.build, ``imported_meanwhile``).
    from numbast.static.arch_merge import merge_declarations
    from numbast.static.module_plan import plan_module
    from numbast.static.module_writer import write_module
    from numbast.static.provenance import Provenance
    from numbast.static.template_probes import template_probes

    merged = merge_declarations(per_arch, config.entry_point)
    stage(f"planning {_declaration_count(per_arch[0][1])} declarations of {header}")
    bindings = plan_module(merged, config)
    report_skipped(bindings, config)
    stage(f"writing the module of {header}")

    import ast_canopy
    import numbast

    provenance = Provenance(
        generator_version=numbast.__version__,
        cuda_version=cuda_version(),
        cuda_include_dir=cudart_include_dir(),
        parser_version=ast_canopy.__version__,
    )
    written = write_module(bindings, config, provenance, embed_runtime, code=with_code)
    included = {path for _arch, decls in per_arch for path in decls.included_files}
    return RenderedModule(
        written.source,
        tuple(sorted(included)),
        tuple(bindings.decisions),
        written.shims,
        bindings.preamble,
        template_probes(bindings),
        written.code,
    )


def _declaration_count(decls) -> int:
    kinds = ("functions", "structs", "enums", "typedefs", "function_templates",
             "class_templates", "alias_templates", "macro_constants")  # fmt: skip
    return sum(len(getattr(decls, kind, ())) for kind in kinds)


def report_skipped(bindings: ModulePlan, config: StaticConfig) -> None:
    """One warning listing every declaration left out (they are also listed at the end of the
    generated module)."""
    if not bindings.skipped:
        return
    from numbast.planning.diagnostics import BindingSkippedWarning

    header = os.path.basename(config.entry_point)
    listed = "\n".join(f"  {entry}" for entry in bindings.skipped)
    warnings.warn(
        f"numbast: {len(bindings.skipped)} declarations of {header} could not be bound and are "
        f"left out of the module (the rest is bound):\n{listed}",
        BindingSkippedWarning,
        stacklevel=2,
    )


def clear_base_renderer_cache() -> None:
    """NVIDIA Numbast's reset of its renderer's imports and caches between runs. Each run here
    renders with state of its own, so there is nothing to reset."""

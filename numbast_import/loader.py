"""The loader of mapped header modules: cache hit -> run the cached bindings and link the cached
LTO-IR; miss -> parse, render (the static generator, unchanged), compile the shims, store.

All work happens in ``exec_module`` (importlib's split: ``find_spec`` only resolves the
mapping), so ``importlib.util.find_spec('cuda_headers.x')`` stays cheap.
"""

from __future__ import annotations

import importlib.abc
import logging
import os
import sys
import types
import warnings
from pathlib import Path

from numbast_import.arch import resolve_arch
from numbast_import.cache.key import included_file_hashes, lookup_components, lookup_digest
from numbast_import.cache.root import cache_root
from numbast_import.cache.store import (
    BINDINGS,
    SHIM_LTOIR,
    SHIM_SOURCE,
    BuildOutput,
    CacheStore,
    Entry,
)
from numbast_import.config import HeaderMapping, ImportConfigError

logger = logging.getLogger(__name__)

QUIET_ENV = "NUMBAST_IMPORT_QUIET"


class HeaderModuleLoader(importlib.abc.Loader):
    def __init__(self, mapping: HeaderMapping) -> None:
        self.mapping = mapping

    def create_module(self, spec) -> None:
        return None  # the default module object

    def exec_module(self, module: types.ModuleType) -> None:
        mapping = self.mapping
        mapping.check_pin()
        arch, components, digest = entry_key(mapping, module.__name__)
        store = CacheStore(cache_root(mapping.cache_dir))
        entry = store.lookup(digest, components)
        if entry is not None:
            logger.debug("%s: cache hit %s", module.__name__, entry.path)
            run_entry(module, entry)
            return
        executed: list[bool] = []

        def build() -> BuildOutput:
            _progress(f"generating {module.__name__} from {mapping.header} for {arch}")
            output = generate(module, mapping, arch, store.entry_dir(digest))
            executed.append(True)
            return output

        entry = store.build(digest, components, build)
        if executed:  # this process built it and the module already ran during the build
            attach_ltoir(module, entry.read(SHIM_LTOIR))
        else:  # another process built it while this one waited for the lock
            run_entry(module, entry)


def entry_key(mapping: HeaderMapping, module_name: str) -> tuple[str, dict, str]:
    """The arch, the lookup components and the digest naming ``module_name``'s entry."""
    if not os.path.isfile(mapping.header):
        raise ImportConfigError(
            f"cannot import {module_name}: its header {mapping.header} does not exist; fix the "
            f"path in {mapping.source} (paths are relative to the pyproject.toml)"
        )
    arch = resolve_arch(mapping.arch, module_name, mapping.source)
    options = {k: v for k, v in mapping.static_mapping(arch).items() if k != "GPU Arch"}
    components = lookup_components(module_name, mapping.header, options, arch)
    return arch, components, lookup_digest(components)


def generate(
    module: types.ModuleType, mapping: HeaderMapping, arch: str, entry_dir: Path
) -> BuildOutput:
    """Render the bindings, run them as ``module`` (the shim text is only known to the running
    module: Shim Include Override is evaluated at import), and compile its shims."""
    from numbast_import.shim_compiler import compile_shims_to_ltoir

    config = mapping.static_config(arch)
    rendered = _render_logging_skipped(config)
    _execute(module, rendered.source, entry_dir / BINDINGS)
    library = module._numbast_shim_library
    compiled = compile_shims_to_ltoir(
        library.preamble,
        library.all_shims,
        f"{module.__name__}_shims.cu",
        arch,
        config.clang_include_paths,
    )
    return BuildOutput(
        artifacts={
            BINDINGS: rendered.source.encode(),
            SHIM_SOURCE: compiled.source.encode(),
            SHIM_LTOIR: compiled.ltoir,
        },
        included_files=included_file_hashes([mapping.header, *rendered.included_files]),
        notes={"shims_left_out": list(compiled.left_out)},
    )


def _render_logging_skipped(config):
    """render_bindings, with its list of declarations left out logged rather than warned: the
    first import shows one progress line, and the list stays at the end of the cached module."""
    from numbast import BindingSkippedWarning
    from numbast.static.renderer import render_bindings

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        rendered = render_bindings(config, embed_runtime=False)
    for warning in caught:
        if issubclass(warning.category, BindingSkippedWarning):
            logger.info("%s", warning.message)
        else:
            warnings.warn_explicit(
                warning.message, warning.category, warning.filename, warning.lineno
            )
    return rendered


def run_entry(module: types.ModuleType, entry: Entry) -> None:
    """Run the cached bindings as ``module`` and make kernels link the cached LTO-IR."""
    _execute(module, entry.read(BINDINGS).decode(), entry.path / BINDINGS)
    attach_ltoir(module, entry.read(SHIM_LTOIR))


def attach_ltoir(module: types.ModuleType, ltoir: bytes) -> None:
    from numba.cuda.cudadrv.linkable_code import LTOIR

    library = module._numbast_shim_library
    current = library.link_object()
    # Keep the Module Callbacks the generated module attached to its source link object.
    library.use_link_object(
        LTOIR(
            ltoir,
            name=f"{module.__name__}_shims.ltoir",
            setup_callback=getattr(current, "setup_callback", None),
            teardown_callback=getattr(current, "teardown_callback", None),
        )
    )


def _execute(module: types.ModuleType, source: str, filename: Path) -> None:
    module.__file__ = str(filename)
    code = compile(source, str(filename), "exec")
    exec(code, module.__dict__)


def _progress(message: str) -> None:
    # The one line a user sees on a first import (it can take tens of seconds); the rest logs.
    logger.info(message)
    if os.environ.get(QUIET_ENV, "") not in ("", "0"):
        return
    print(f"numbast-import: {message} (first import; cached afterwards)", file=sys.stderr)

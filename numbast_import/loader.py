"""The loader of mapped header modules, in importlib's shape: ``create_module`` leaves the
module to importlib, and ``exec_module`` does the work: take the module's code and compiled
shims from its cache entry, or build the entry first (``numbast_import.build``: render, compile,
store; nothing runs there), then run the code once, in the module, with its entry
(``numbast_import.entry_context``).

``find_spec`` only resolves the mapping and ``create_module`` does nothing, so
``importlib.util.find_spec('cuda_headers.x')`` stays cheap and ``importlib.util.LazyLoader``
defers everything (numba included) until an attribute is used; ``importlib.reload`` runs the
same ``exec_module``.

Failures without the import system's frames. An import that fails raises an ImportError whose
message says everything (the pyproject, the key, the fix); the chain of 6-20 frames of this
package under it says nothing to the user. importlib drops its own frames (code named
``<frozen importlib._bootstrap...>``) from the traceback of an ImportError, so ``exec_module``
is a three-line trampoline whose code carries that name: it calls the work, which returns a
HeaderImportError instead of raising it, and raises it with no traceback of ours. The user sees
their import line and the message. Unexpected exceptions (bugs) are not caught and keep their
frames.
"""

from __future__ import annotations

import importlib.abc
import logging
import os
import sys
import types
from functools import partial
from pathlib import Path

from numbast_import.arch import remember_device_arch, resolve_arch, start_device_query
from numbast_import.cache.key import generator_fingerprint
from numbast_import.cache.manifest import binds_nothing
from numbast_import.cache.root import (
    KEYS_DIR,
    PARSER_DIR,
    cache_layers,
    cache_root,
    ensure_private_dir,
)
from numbast_import.cache.store import BuildOutput, CacheStore
from numbast_import.entry_context import run_entry
from numbast_import.entry_key import bindings_filename, entry_key
from numbast_import.errors import HeaderImportError, ImportConfigError
from numbast_import.mapping import HeaderMapping
from numbast_import.pickling import adopt
from numbast_import.uses import import_used_modules

logger = logging.getLogger(__name__)


def _exec_module(self, module):
    error = self.load(module)
    if error is not None:
        raise error


# Its code renamed as importlib's own code, so that importlib drops its frame from the
# traceback of the ImportError it raises (see the module docstring). Renamed, not compiled from
# text: compiling costs every import ~0.3 ms.
_exec_module.__code__ = _exec_module.__code__.replace(
    co_filename="<frozen importlib._bootstrap_external>"
)


class HeaderModuleLoader(importlib.abc.Loader):
    def __init__(self, mapping: HeaderMapping) -> None:
        self.mapping = mapping

    def create_module(self, spec) -> None:
        return None  # importlib's default module; the work is exec_module's

    exec_module = _exec_module

    def load(self, module: types.ModuleType) -> HeaderImportError | None:
        """Fill ``module``; returns the HeaderImportError that stops it (for exec_module to
        raise), or None."""
        try:
            load_into(module, self.mapping)
        except HeaderImportError as error:
            return without_traceback(error)
        return None


class FailedHeaderLoader(importlib.abc.Loader):
    """The loader of a name that cannot be imported (not mapped, or a bad mapping)."""

    def __init__(self, error: HeaderImportError) -> None:
        self.error = error

    def create_module(self, spec) -> None:
        return None

    exec_module = _exec_module

    def load(self, module: types.ModuleType) -> HeaderImportError:
        return without_traceback(self.error)


def without_traceback(error: HeaderImportError) -> HeaderImportError:
    """``error`` with no frame of ours and no exception it was raised while handling."""
    error.__context__ = None
    error.__suppress_context__ = True
    return error.with_traceback(None)


def load_into(module: types.ModuleType, mapping: HeaderMapping) -> None:
    """Fill ``module`` with the bindings of ``mapping``, from the cache or freshly built."""
    name = module.__name__
    mapping.check_pin()
    if not os.path.isfile(mapping.header):
        raise ImportConfigError(
            f"cannot import {name}: its header {mapping.header} does not exist; fix the path in "
            f"{mapping.source} (paths are relative to the pyproject.toml)"
        )
    start_device_query()  # overlaps the rest of the import (see numbast_import.arch)
    # Every path runs the runtime: importing it before the arch is known overlaps its import
    # with the device query.
    import numbast.runtime.apply  # noqa: F401

    root = cache_root(mapping.cache_dir)
    # The GPU's arch remembered in the root, where it exists (numbast_import.arch_memo).
    arch = resolve_arch(
        mapping.arch, name, mapping.source, root / KEYS_DIR if root.is_dir() else None
    )
    # Before any lock of this module's: a used module may have to be built too.
    import_used_modules(mapping)
    # The generator's fingerprint is remembered in the root, where it exists (a warm import
    # never creates the writable root: read-only layers may serve it).
    components, digest = entry_key(mapping, name, arch, root if root.is_dir() else None)
    store = CacheStore(root, cache_layers(root))
    entry = store.lookup(digest, components)
    if entry is not None:
        logger.debug("%s: cache hit %s", name, entry.path)
    else:
        build = partial(_build, name, mapping, arch, root)
        entry = store.build(digest, components, build, what=f"{name} ({digest[:12]})")
        if root.is_dir():  # now that it exists, remember the generator's fingerprint there
            generator_fingerprint(root / KEYS_DIR)
            remember_device_arch(root / KEYS_DIR)  # and the GPU's arch, if the driver told it
    module.__cuda_header__ = mapping.header
    module.__numbast_key__ = digest
    adopt(module, mapping, entry.manifest)  # it pickles as its mapping (numbast_import.pickling)
    static = mapping.static_mapping(arch)
    run_entry(
        module,
        entry,
        bindings_filename(entry.path, name),
        arch,
        static.get("Clang Include Paths") or [],
    )
    if binds_nothing(entry.manifest.get("coverage")):
        from numbast_import.retain_hints import warn_nothing_bound

        retained = [path for path in static["File List"] if path != mapping.header]
        included = entry.manifest.get("included_files", {})
        warn_nothing_bound(name, mapping.header, retained, included, mapping.source)


def _build(
    name: str, mapping: HeaderMapping, arch: str, root: Path, entry_dir: Path | None
) -> BuildOutput:
    # The build's modules are imported here: a warm import (a cache hit) needs none of them.
    from numbast_import.build import generate, regenerate_command
    from numbast_import.progress import BuildProgress

    _use_parser_dir((_parser_root or root) if entry_dir is not None else None)
    _progress(f"generating {name} from {mapping.header} for {arch}")
    command = regenerate_command(mapping, name, arch, root)
    with BuildProgress(name) as progress:
        return generate(name, mapping, arch, entry_dir, command, progress)


# Where builds keep the parser's preludes; None: under the root they build into.
_parser_root: Path | None = None


def keep_parser_preludes_in(root: Path | None) -> None:
    """Keep the parser's preludes of this process's builds under ``root``, not under the root
    entries are built into: ``numbast-cache warm --into LAYER`` keeps them out of the layer,
    where no reader uses them (~8 MB per arch)."""
    global _parser_root
    _parser_root = root


def _use_parser_dir(root: Path | None) -> None:
    """Keep the parser's preludes under the cache root (None: in a private temp dir)."""
    from ast_canopy import cache as parser_cache
    from ast_canopy import toolkit
    from numbast.core import nvrtc

    # NVRTC finds the toolkit as the parser does, with its lookups remembered in this root.
    nvrtc.use_header_finder(toolkit.header_dir)

    directory = None
    if root is not None:
        try:
            directory = ensure_private_dir(root / PARSER_DIR)
        except OSError:
            directory = None  # the root just proved writable; a race with clear --all
    parser_cache.use_directory(directory)


def _progress(message: str) -> None:
    # The one line a user sees on a first import (it can take tens of seconds); the rest logs.
    from numbast_import.progress import quiet

    logger.info(message)
    if quiet():
        return
    print(f"numbast-import: {message} (first import; cached afterwards)", file=sys.stderr)

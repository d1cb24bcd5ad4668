"""The loader of mapped header modules: cache hit -> run the cached code object and link the
cached LTO-IR; miss -> build the entry (``numbast_import.build``) and store it.

``find_spec`` only resolves the mapping, so ``importlib.util.find_spec('cuda_headers.x')``
stays cheap; the work happens when the module is loaded.

Failures without the import system's frames. An import that fails raises an ImportError whose
message says everything (the pyproject, the key, the fix); the chain of 6-20 frames of this
package under it says nothing to the user. Any frame of ours that an exception passes through
is in its traceback, so ours must not raise: the work runs in ``create_module``, which on
failure returns the exception itself as "the module", and sets this loader's ``exec_module``
to the ``throw`` of a finished generator, a C function that raises it. importlib then raises
it from its own frames, which it strips from ImportErrors, and the user sees their import
line and the message. Unexpected exceptions (bugs) are not caught and keep their frames.
``importlib.reload`` calls only ``exec_module``, which then does the work itself.
"""

from __future__ import annotations

import importlib.abc
import logging
import os
import sys
import types
from collections.abc import Generator
from pathlib import Path

from numbast_import.arch import resolve_arch
from numbast_import.build import entry_key, execute, generate, regenerate_command
from numbast_import.cache.instances import EntryInstances
from numbast_import.cache.key import generator_fingerprint
from numbast_import.cache.manifest import (
    BINDINGS,
    BINDINGS_CODE,
    SHIM_LTOIR,
    SHIM_SOURCE,
    code_from_pyc,
)
from numbast_import.cache.root import (
    KEYS_DIR,
    PARSER_DIR,
    cache_layers,
    cache_root,
    ensure_private_dir,
)
from numbast_import.cache.store import BuildOutput, CacheStore, Entry
from numbast_import.errors import HeaderImportError, ImportConfigError
from numbast_import.mapping import HeaderMapping
from numbast_import.uses import import_used_modules

logger = logging.getLogger(__name__)

QUIET_ENV = "NUMBAST_IMPORT_QUIET"


class HeaderModuleLoader(importlib.abc.Loader):
    def __init__(self, mapping: HeaderMapping) -> None:
        self.mapping = mapping
        self._loaded: types.ModuleType | None = None

    def create_module(self, spec) -> types.ModuleType | HeaderImportError:
        module = types.ModuleType(spec.name)
        # importlib sets these after create_module; the bindings may read them as they run.
        module.__spec__, module.__loader__, module.__package__ = spec, self, spec.parent
        try:
            load_into(module, self.mapping)
        except HeaderImportError as error:
            return fail_without_our_frames(self, error)
        self._loaded = module
        return module

    def exec_module(self, module: types.ModuleType) -> None:
        if module is self._loaded:
            return  # create_module did the work
        load_into(module, self.mapping)  # importlib.reload()


class FailedHeaderLoader(importlib.abc.Loader):
    """The loader of a name that cannot be imported (not mapped, or a bad mapping)."""

    def __init__(self, error: HeaderImportError) -> None:
        self.error = error

    def create_module(self, spec) -> HeaderImportError:
        return fail_without_our_frames(self, self.error)

    def exec_module(self, module: types.ModuleType) -> None:
        raise self.error  # importlib.reload() of a module whose mapping broke


def fail_without_our_frames(loader: importlib.abc.Loader, error: HeaderImportError):
    """Make importlib raise ``error`` with no frame of this package (see the module doc)."""
    error.with_traceback(None)
    error.__context__ = None
    error.__suppress_context__ = True
    loader.exec_module = _finished_generator().throw  # type: ignore[method-assign]
    return error


def _finished_generator() -> Generator[None, None, None]:
    def nothing() -> Generator[None, None, None]:
        yield

    generator = nothing()
    generator.close()  # finished: throw() now raises what it is given, adding no frame
    return generator


def load_into(module: types.ModuleType, mapping: HeaderMapping) -> None:
    """Fill ``module`` with the bindings of ``mapping``, from the cache or freshly built."""
    name = module.__name__
    mapping.check_pin()
    if not os.path.isfile(mapping.header):
        raise ImportConfigError(
            f"cannot import {name}: its header {mapping.header} does not exist; fix the path in "
            f"{mapping.source} (paths are relative to the pyproject.toml)"
        )
    # Every path runs the runtime: importing it before the arch is known overlaps its import
    # with the device query started by the finder.
    import numbast.runtime.apply  # noqa: F401

    arch = resolve_arch(mapping.arch, name, mapping.source)
    # Before any lock of this module's: a used module may have to be built too.
    import_used_modules(mapping)
    root = cache_root(mapping.cache_dir)
    # The generator's fingerprint is remembered in the root, where it exists (a warm import
    # never creates the writable root: read-only layers may serve it).
    components, digest = entry_key(mapping, name, arch, root if root.is_dir() else None)
    store = CacheStore(root, cache_layers(root))
    module.__cuda_header__ = mapping.header
    module.__numbast_key__ = digest
    entry = store.lookup(digest, components)
    if entry is not None:
        logger.debug("%s: cache hit %s", name, entry.path)
        run_entry(module, entry, arch)
        _attach_kernels(module, mapping, arch)
        return
    ran_here: list[bool] = []

    def build(entry_dir: Path | None) -> BuildOutput:
        _use_parser_dir(root if entry_dir is not None else None)
        _progress(f"generating {name} from {mapping.header} for {arch}")
        command = regenerate_command(mapping, name, arch, root)
        output = generate(module, mapping, arch, entry_dir, command)
        ran_here.append(True)
        return output

    entry = store.build(digest, components, build, what=f"{name} ({digest[:12]})")
    if root.is_dir():  # now that it exists, remember the generator's fingerprint there
        generator_fingerprint(root / KEYS_DIR)
    if ran_here:  # the module already ran during the build
        attach_ltoir(module, entry, arch)
    else:  # another process built it while this one waited for the lock
        run_entry(module, entry, arch)
    _attach_kernels(module, mapping, arch)


def run_entry(module: types.ModuleType, entry: Entry, arch: str) -> None:
    """Run the entry's code object as ``module`` (no compiling) and make kernels link the
    cached LTO-IR."""
    assert entry.path is not None
    filename = str(entry.path / BINDINGS)
    module.__numbast_instances__ = EntryInstances(entry.path, arch)
    execute(module, code_from_pyc(entry.read(BINDINGS_CODE), filename), filename)
    attach_ltoir(module, entry, arch)


def attach_ltoir(module: types.ModuleType, entry: Entry, arch: str) -> None:
    """Kernels link the entry's LTO-IR (with the shims of template instances, when they use
    any, compiled into one unit with it, kept beside the entry)."""
    instances = getattr(module, "__numbast_instances__", None)
    module._numbast_shim_library.use_precompiled(
        entry.read(SHIM_LTOIR),
        entry.read(SHIM_SOURCE).decode(),
        arch,
        instances.compile_unit if isinstance(instances, EntryInstances) else None,
    )


def _attach_kernels(module: types.ModuleType, mapping: HeaderMapping, arch: str) -> None:
    """The header's ``__global__`` functions, launched from the host (compiled when used)."""
    from numbast_import.header_kernels import attach_kernels

    include_dirs = mapping.static_mapping(arch).get("Clang Include Paths") or []
    attach_kernels(module, arch, include_dirs)


def _use_parser_dir(root: Path | None) -> None:
    """Keep the parser's preludes under the cache root (None: in a private temp dir)."""
    from ast_canopy import cache as parser_cache

    directory = None
    if root is not None:
        try:
            directory = ensure_private_dir(root / PARSER_DIR)
        except OSError:
            directory = None  # the root just proved writable; a race with clear --all
    parser_cache.use_directory(directory)


def _progress(message: str) -> None:
    # The one line a user sees on a first import (it can take tens of seconds); the rest logs.
    logger.info(message)
    if os.environ.get(QUIET_ENV, "") not in ("", "0"):
        return
    print(f"numbast-import: {message} (first import; cached afterwards)", file=sys.stderr)

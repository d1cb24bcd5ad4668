"""Running a header module's code with its cache entry.

The loader seeds the module with ``__numbast_entry__`` (an :class:`EntryContext`) and runs the
code once; as it runs, the module asks its entry for what the import system keeps: the shims
compiled to LTO-IR (linked instead of compiling them in every process), the store of template
instances beside the entry, and launchers for the header's ``__global__`` functions. Nothing
patches the module afterwards.
"""

from __future__ import annotations

import linecache
import os
import types
from collections.abc import Sequence
from typing import Any

from numbast_import.cache.instances import EntryInstances
from numbast_import.cache.manifest import (
    BINDINGS,
    BINDINGS_CODE,
    SHIM_LTOIR,
    SHIM_SOURCE,
    code_from_pyc,
)
from numbast_import.cache.store import Entry
from numbast_import.errors import BindingsExecutionError, HeaderImportError

_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep


class EntryContext:
    """What a header module's code finds as ``__numbast_entry__`` (see the module docstring)."""

    def __init__(self, entry: Entry, arch: str, include_dirs: Sequence[str]) -> None:
        self.arch = arch
        self.include_dirs = list(include_dirs)
        # None: in memory (an entry built in memory has no directory to keep them in).
        self.instances = (
            EntryInstances(entry.path, arch, entry.read_only) if entry.path is not None else None
        )
        # The shims' units (numbast_import.shim_units), or their one unit in the entry.
        units = entry.manifest.get("shim_units")
        if units is not None:
            # As tuples of strings, which the cyclic GC stops tracking (a 3000-function header
            # has ~200 units: their JSON lists would be traversed in each of a compile's full
            # collections); the manifest keeps them so, which serializes the same.
            units = entry.manifest["shim_units"] = tuple((d, tuple(n)) for d, n in units)
        self._units = units
        self._entry = entry
        # Shim -> NVRTC's message for those left out of the LTO-IR (kernels calling one are
        # refused with it).
        self._rejected = dict(entry.manifest.get("shims_rejected") or {})
        # The NVRTC options the shims were compiled with (-default-device when detected).
        self.nvrtc_options = list(entry.manifest.get("nvrtc_options") or [])

    def use_compiled_shims(self, library: Any) -> None:
        """Kernels link the entry's compiled shims: the units of the shims they call, read from
        the cache when first linked (a shim of a template instance compiled alone); or the
        entry's one unit (with the shims of template instances, when they use any, compiled
        into one unit with it). What is compiled with instances is kept beside the entry."""
        compile_unit = self.instances.compile_unit if self.instances is not None else None
        if self._units is not None:
            loader = _UnitLoaderOnFirstUse(self._entry, library, self.arch, compile_unit)
            library.use_units(self._units, loader.load, loader.compile_shim, loader.identity)
        else:
            library.use_precompiled(
                self._entry.read(SHIM_LTOIR),
                self._entry.read(SHIM_SOURCE).decode(),
                self.arch,
                compile_unit,
            )
        library.reject_shims(self._rejected)

    def kernels(self, module_name: str, rows: Sequence[Any], preamble: str) -> dict[str, Any]:
        """The header's ``__global__`` functions, launched from the host (compiled when used)."""
        from numbast_import.header_kernels import kernel_launchers

        return kernel_launchers(
            module_name, rows, preamble, self.arch, self.include_dirs, self.nvrtc_options
        )


class _UnitLoaderOnFirstUse:
    """``numbast_import.shim_unit_loader``'s functions for one library, made when a kernel first
    links a unit or a shim in none: a warm import links nothing, so it imports nothing of the
    unit store and works out no module identity."""

    def __init__(self, entry: Entry, library: Any, arch: str, compile_unit: Any) -> None:
        self._arguments = (entry, library, arch, compile_unit)
        self._made: tuple | None = None

    def _loader(self) -> tuple:
        if self._made is None:  # two threads may both make it: the same functions
            from numbast_import.shim_unit_loader import unit_loader

            self._made = unit_loader(*self._arguments)
        return self._made

    def load(self, digest: str, shims: list[tuple[str, str]]) -> bytes:
        return self._loader()[0](digest, shims)

    def compile_shim(self, source: str) -> bytes:
        return self._loader()[1](source)

    def identity(self) -> str:
        return self._loader()[2]()


def run_entry(
    module: types.ModuleType,
    entry: Entry,
    filename: str,
    arch: str,
    include_dirs: Sequence[str],
) -> None:
    """Run the entry's code object (no compiling) as ``module``, with its EntryContext."""
    if entry.path is None:  # tracebacks and inspect.getsource read the source from here
        source = entry.read(BINDINGS).decode()
        linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    module.__numbast_entry__ = EntryContext(entry, arch, include_dirs)
    execute(module, code_from_pyc(entry.read(BINDINGS_CODE), filename), filename)


def execute(module: types.ModuleType, code: types.CodeType, filename: str) -> None:
    """Run a bindings module's code in ``module``; what it raises becomes the cause of a
    BindingsExecutionError (its traceback starting in the bindings)."""
    module.__file__ = filename
    try:
        exec(code, module.__dict__)
    except HeaderImportError:
        raise  # a header module it imports failed: that error says everything
    except Exception as exc:
        raise BindingsExecutionError(
            f"cannot import {module.__name__}: its generated bindings {filename} raised "
            f"{type(exc).__name__}: {exc}. If the mapping's additional-imports or module "
            "callbacks are not the cause, this is a bug in numbast; please report it"
        ) from without_our_frames(exc)


def without_our_frames(exc: BaseException) -> BaseException:
    """``exc`` with the import system's frames dropped from the front of its traceback."""
    tb = exc.__traceback__
    while tb is not None and tb.tb_frame.f_code.co_filename.startswith(_PACKAGE_DIR):
        tb = tb.tb_next
    return exc.with_traceback(tb)

"""``@cuda.jit(cache=True)`` for kernels that link code: bindings and ``link=`` files.

numba-cuda refuses to cache a kernel whose code library links files (it will not serialize such
a library): its cache key covers the kernel's bytecode, not what was linked, so a cubin on disk
could hold code that has changed since. Here such a kernel is cached with a record of every
object it linked (``link_records``) and a digest of its content (``link_digests``), and a cached
kernel is used only when every record matches what this process would link now:

- bindings (a ShimLibrary's link object): a live library of this process with the same identity
  (a generated module's name, or a dynamic shim writer's preamble) and the same digest of the
  shims the kernel calls (an import-cache entry's LTO-IR; or the preamble, the headers it
  includes and the shim texts);
- a file given by path: digested again from disk;
- in-memory code given in ``link=``: an object of the kernel's current ``link=`` with the same
  kind and content; and ``link=`` holds nothing that was not recorded.

Anything else (code that another extension links while lowering, a computed ``#include``, a
shim only known once lowered, such as a template instance's) cannot be checked: that kernel is
compiled in every process, as numba-cuda would, with one warning. A mismatch is a miss: the
kernel compiles and its entry is overwritten. On a hit the live link objects go back into the
code library, so their Module Callbacks run when the cubin is loaded (and another device's
architecture can still be linked).

Entries live in numba-cuda's cache files under numba-cuda's own key (signature, compute
capability, CUDA runtime and numba-cuda versions, bytecode) plus a marker that numba-cuda never
computes, so a process without this module never reads them.

The intrusion into numba-cuda is this module (and, until it is imported, a wrapper of
``enable_caching`` that ``runtime.shim_library`` puts in place to import and install it when a
kernel first asks for ``cache=True``, then takes away): :func:`install` replaces
``CUDADispatcher.enable_caching`` (one line in numba-cuda) to make a ``LinkedKernelCache``, a
subclass of numba-cuda's ``CUDACache`` that overrides how one overload is saved and loaded. The
first kernel with ``cache=True`` made after a ShimLibrary installs it (the ShimLibraries made
until then wait in ``_WAITING``; or call :func:`install`); it is installed only on the
numba-cuda versions whose internals it was checked against (``KNOWN_VERSIONS``). On others it
warns once, when a kernel asks for ``cache=True``, and numba-cuda behaves as it does alone.
``NUMBAST_KERNEL_CACHE=0`` turns it off.

numba-cuda's cache files are unpickled only when safe, and healed when damaged
(``kernel_cache_files``). It imports numba-cuda and the standard library only (a standalone
generated module carries it).
"""

from __future__ import annotations

import logging
import os
import re
import warnings
from collections.abc import Sequence
from typing import Any

from .kernel_cache_files import REQUIRED, checked_cache_file_class
from .link_records import (
    Lasting,
    describe_links,
    library_identity,
    remember_library,
    restore_links,
    without_link_files,
)
from .state import LOCK, shared_table

logger = logging.getLogger(__name__)

DISABLE_ENV = "NUMBAST_KERNEL_CACHE"
# numba-cuda (major, minor) versions whose caching internals this module was checked against:
# CUDACache's _index_key/_load_overload/_save_overload/_cache_file/_impl/_enabled, _Kernel's
# library and codegen, the code library's _linking_files/_setup_functions/_teardown_functions/
# llvm_strs and its _reduce_states/_rebuild (with NRT_LIBRARY), and enable_caching.
KNOWN_VERSIONS = ((0, 18), (0, 30))
# What a saved entry holds: (FORMAT, (records, setup order, teardown order), numba's payload).
FORMAT = 1


class KernelCacheWarning(UserWarning):
    """A ``cache=True`` kernel that links code is compiled in every process (see the message)."""


# Shared by every copy of the runtime in a process (see state.py): whether install ran, and the
# warnings given.
_INSTALL: dict[str, Any] = shared_table("kernel_cache_install", dict)
_WARNED: set = shared_table("kernel_cache_warned", set)
# ShimLibraries made before install() ran, (weak reference, name): runtime.shim_library puts
# them here rather than import this module for every import of bindings.
_WAITING: list = shared_table("kernel_cache_waiting_libraries", list)


def track_library(library: Any, name: str | None) -> None:
    """Let cached kernels find ``library`` (a ShimLibrary) in this process; installs the kernel
    cache on the first call."""
    identity = library_identity(library, name)
    install()
    remember_library(identity, library)


def install() -> bool:
    """Make ``cache=True`` kernels that link code cacheable (see the module docstring).
    Returns True when this process uses the linked-kernel cache; cheap after the first call."""
    state = _INSTALL.get("state")
    if state is None:
        with LOCK:
            state = _INSTALL.get("state")
            if state is None:
                state = _INSTALL["state"] = _install_into_numba()
                waiting = _WAITING[:]
                _WAITING.clear()
                for reference, name in waiting:
                    library = reference()
                    if library is not None:
                        remember_library(library_identity(library, name), library)
    return state


def _install_into_numba() -> bool:
    if os.environ.get(DISABLE_ENV, "").strip() == "0":
        return False
    import numba_cuda
    from numba.cuda import codegen, dispatcher

    version = numba_cuda.__version__
    if not (_known(version) and _has_internals(dispatcher, codegen)):
        _warn_when_caching(dispatcher, version)
        return False
    cache_class = _linked_kernel_cache(dispatcher.CUDACache, codegen.NRT_LIBRARY, version)

    def enable_caching(self) -> None:
        self._cache = cache_class(self.py_func, self.targetoptions.get("link") or ())

    enable_caching.__wrapped__ = dispatcher.CUDADispatcher.enable_caching
    dispatcher.CUDADispatcher.enable_caching = enable_caching
    return True


def _known(version: str) -> bool:
    match = re.match(r"(\d+)\.(\d+)", version)
    return bool(match) and KNOWN_VERSIONS[0] <= tuple(map(int, match.groups())) <= KNOWN_VERSIONS[1]


def _has_internals(dispatcher: Any, codegen: Any) -> bool:
    from numba.cuda.core import caching

    cache = getattr(dispatcher, "CUDACache", None)
    library = getattr(codegen, "CUDACodeLibrary", None)
    files = getattr(caching, "IndexDataCacheFile", None)
    return (
        all(hasattr(cache, n) for n in ("_index_key", "_load_overload", "_save_overload"))
        and all(hasattr(files, n) for n in REQUIRED)
        and all(hasattr(library, n) for n in ("_reduce_states", "_rebuild", "llvm_strs"))
        and hasattr(codegen, "NRT_LIBRARY")
        and hasattr(getattr(dispatcher, "CUDADispatcher", None), "enable_caching")
    )


def _warn_when_caching(dispatcher: Any, version: str) -> None:
    """On an unknown numba-cuda: warn once when a kernel asks for cache=True, then do as
    numba-cuda does."""
    kernel_class = getattr(dispatcher, "CUDADispatcher", None)
    original = getattr(kernel_class, "enable_caching", None)
    if original is None:
        return

    def enable_caching(self) -> None:
        _warn_once(
            "numba-cuda version",
            f"numbast's kernel cache is off: numba-cuda {version} is not a version it was "
            f"checked with ({KNOWN_VERSIONS[0]} to {KNOWN_VERSIONS[1]}); numba-cuda refuses "
            "cache=True for kernels that call bindings or have link= files. Use a checked "
            "numba-cuda, or drop cache=True from such kernels.",
        )
        original(self)

    enable_caching.__wrapped__ = original
    kernel_class.enable_caching = enable_caching


def _warn_once(key: Any, message: str) -> None:
    with LOCK:
        if key in _WARNED:
            return
        _WARNED.add(key)
    warnings.warn(message, KernelCacheWarning, stacklevel=4)


def _linked_kernel_cache(base: type, nrt: Any, version: str) -> type:
    """numba-cuda's CUDACache, saving and loading kernels that link code (module docstring)."""
    marker = ("numbast linked kernel", FORMAT, version)
    checked_files: dict[type, type] = {}

    class LinkedKernelCache(base):
        def __init__(self, py_func: Any, link_option: Sequence) -> None:
            super().__init__(py_func)
            self._link_option = link_option  # the dispatcher's link= (a live view of it)
            files = type(self._cache_file)  # linked or not, every kernel's files are checked
            if files not in checked_files:
                checked_files[files] = checked_cache_file_class(files, _warn_once)
            self._cache_file.__class__ = checked_files[files]

        def _save_overload(self, sig: Any, data: Any) -> None:
            library = data.library
            if all(item is nrt for item in library._linking_files):
                return super()._save_overload(sig, data)
            if not self._enabled:
                return None
            links = describe_links(library, self._link_option, nrt)
            if isinstance(links, str):
                self._not_cached(links)
                return None
            self._impl.locator.ensure_cache_path()
            key = (*self._index_key(sig, data.codegen), marker)
            payload = self._impl.reduce(data)
            payload["codelibrary"] = without_link_files(library, nrt)
            self._cache_file.save(key, (FORMAT, links, payload))
            return None

        def _load_overload(self, sig: Any, target_context: Any) -> Any:
            if not self._enabled:
                return None
            key = (*self._index_key(sig, target_context.codegen()), marker)
            saved = self._cache_file.load(key)
            if saved is None:
                return super()._load_overload(sig, target_context)
            if not (isinstance(saved, tuple) and len(saved) == 3 and saved[0] == FORMAT):
                logger.warning("%s: ignoring a cache entry of another format", self._name)
                return None
            _format, links, payload = saved
            problem = restore_links(payload["codelibrary"], links, self._link_option, nrt)
            if isinstance(problem, Lasting):
                self._not_cached(problem)
            if problem is not None:
                logger.info("%s: not using the cached kernel: %s", self._name, problem)
                return None
            kernel = self._impl.rebuild(target_context, payload)
            if kernel.library._setup_functions:
                # numba-cuda runs a module's setup callbacks in _Kernel.bind, which it calls for
                # a kernel it compiles but not for one it loads (launching does not): bind here,
                # so that Module Callbacks run as they would for the compiled kernel.
                kernel.bind()
            return kernel

        def _not_cached(self, reason: str) -> None:
            function = self._py_func
            name = f"{function.__module__}.{getattr(function, '__qualname__', function.__name__)}"
            _warn_once(("kernel", name), f"kernel {name} is compiled in every process: {reason}")

    return LinkedKernelCache

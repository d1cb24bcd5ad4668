"""The link objects a ShimLibrary hands kernels, and the runtime's ways to NVRTC.

``_LiveShimSource`` (the shims used so far, compiled by numba-cuda), ``_LiveShimUnit`` (the same,
compiled here to LTO-IR with the header's own NVRTC options) and ``_PrecompiledUnit`` (the
import system's LTO-IR of every shim) are read when Numba links, after lowering. Their Module
Callbacks run once per loaded module (``_OncePerModule``). ``runtime_part`` finds numbast's
modules from a copy of the runtime; ``add_nvrtc_include_dirs`` extends numba-cuda's NVRTC
search path.
"""

from __future__ import annotations

import functools
import hashlib
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from numba.cuda.cudadrv.linkable_code import LTOIR, CUSource

if TYPE_CHECKING:
    from .shim_library import ShimLibrary


class _LiveCallbacks:
    """Module Callbacks of a live link object, which may be set after it is made (a generated
    module sets them on its ``shim_obj``): they are run once per loaded module all the same."""

    _callbacks: _OncePerModule

    @property
    def setup_callback(self) -> Callable | None:
        return self._callbacks.setup if self._callbacks.active else None

    @setup_callback.setter
    def setup_callback(self, callback: Callable | None) -> None:
        self._callbacks.user_setup = callback

    @property
    def teardown_callback(self) -> Callable | None:
        return self._callbacks.teardown if self._callbacks.active else None

    @teardown_callback.setter
    def teardown_callback(self, callback: Callable | None) -> None:
        self._callbacks.user_teardown = callback


class _LiveShimSource(_LiveCallbacks, CUSource):
    """A CUDA source whose text is read when Numba links, so it holds every shim used so far;
    numba-cuda compiles it with its own NVRTC options."""

    def __init__(self, library: ShimLibrary, name: str, callbacks: _OncePerModule) -> None:
        self._callbacks = callbacks
        super().__init__(
            data="",
            name=name,
            setup_callback=callbacks.user_setup,
            teardown_callback=callbacks.user_teardown,
        )
        self._library = library

    @property
    def data(self) -> str:
        _let_numba_cuda_find_cccl()  # read when numba-cuda compiles it
        return self._library.source()


class _LiveShimUnit(_LiveCallbacks, LTOIR):
    """The same, for shims that need NVRTC options numba-cuda does not pass (a header compiled
    with ``-default-device``): LTO-IR compiled here, once per source, when Numba links."""

    def __init__(self, library: ShimLibrary, name: str, callbacks: _OncePerModule) -> None:
        self._callbacks = callbacks
        super().__init__(
            b"",
            name=name.removesuffix(".cu") + ".ltoir",
            setup_callback=callbacks.user_setup,
            teardown_callback=callbacks.user_teardown,
        )
        self._library = library
        self._units: dict[tuple[str, str], bytes] = {}

    @property
    def data(self) -> bytes:
        source, arch = self._library.source(), self._library.link_arch()
        unit = self._units.get((source, arch))
        if unit is None:
            options = self._library.unit_options(arch, lto=True)
            unit = self._units[source, arch] = compile_ltoir(source, options)
        return unit


class _OncePerModule:
    """Module Callbacks, run once per loaded CUDA module.

    numba-cuda records a link object's callbacks every time lowering adds the object to a code
    library, i.e. once per bound call in a kernel, and then calls each record. Setup runs once
    per module here, and teardown once for each module that was set up. Loaded modules are held
    until they are torn down, so an id is never mistaken for a later module's.
    """

    def __init__(self, setup: Callable | None, teardown: Callable | None) -> None:
        self.user_setup = setup
        self.user_teardown = teardown
        self._loaded: dict[int, Any] = {}
        self._lock = threading.Lock()

    @property
    def active(self) -> bool:
        """Whether there is a callback to run (then modules are tracked)."""
        return self.user_setup is not None or self.user_teardown is not None

    def setup(self, object_code) -> None:
        with self._lock:
            if id(object_code) in self._loaded:
                return
            self._loaded[id(object_code)] = object_code
        if self.user_setup is not None:
            self.user_setup(object_code)

    def teardown(self, object_code) -> None:
        with self._lock:
            if self._loaded.pop(id(object_code), None) is None:
                return
        if self.user_teardown is not None:
            self.user_teardown(object_code)


class _PrecompiledUnit(LTOIR):
    """LTO-IR of a library's shims, read when Numba links: the precompiled unit while kernels
    use only its shims, else that unit's source with the other shims used, compiled once."""

    def __init__(self, library, ltoir, source, compile_unit, name, setup, teardown) -> None:
        super().__init__(ltoir, name=name, setup_callback=setup, teardown_callback=teardown)
        self._library = library
        self._source = source
        self._compile_unit = compile_unit
        self._known = {name for name, _text in library.all_shims}
        self._units: dict[str, bytes] = {}

    @property
    def data(self) -> bytes:
        extra = self._library.extra_shims(self._known)
        if not extra:
            return self._data
        source = self._source + "\n" + "\n".join(text for _n, text in sorted(extra)) + "\n"
        unit = self._units.get(source)
        if unit is None:
            unit = self._units[source] = self._compile_unit(source)
        return unit


def compile_ltoir(source: str, options: Sequence[str]) -> bytes:
    """NVRTC's LTO-IR of a shim unit, compiled with ``options`` (``unit_options``)."""
    digest = hashlib.sha256(source.encode()).hexdigest()[:12]
    return (
        runtime_part("core.nvrtc").compile_unit(source, f"shims_{digest}.cu", options, "ltoir").code
    )


def runtime_part(name: str, required: bool = True) -> Any:
    """The module ``name`` (``core.nvrtc``, ``runtime.kernel_cache``) of this runtime. A copy of
    the runtime in a standalone module carries neither: it uses the installed numbast's, where
    numbast is installed (one kernel cache, one set of stand-in headers per process). None
    where there is none and it is not ``required``."""
    import importlib  # by name: a copy must import where numbast is not installed

    own_root = __package__.rpartition(".")[0]  # "numbast", or a copy's package
    for root in dict.fromkeys((own_root, "numbast")):
        module_name = f"{root}.{name}"
        try:
            return importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            if exc.name is None or not module_name.startswith(exc.name):
                raise  # the part itself failed to import something: a real error
    if required:
        raise ModuleNotFoundError(
            f"numbast's {name} is needed here; this standalone module carries no copy of it and "
            "numbast is not installed: pip install numbast-import",
            name=f"numbast.{name}",
        )
    return None


@functools.cache
def _let_numba_cuda_find_cccl() -> None:
    """Add the directory that holds CCCL as ``cccl/`` (``nvrtc.cccl_holder_dir``), then the
    stand-in headers, to numba-cuda's NVRTC search path, once, when numba-cuda first compiles
    shims: finding CCCL may start a process (cuda.pathfinder), and the stand-ins' directory is
    known only by importing numbast.core.nvrtc, which a warm import must not pay."""
    nvrtc = runtime_part("core.nvrtc", required=False)
    if nvrtc is not None:
        add_nvrtc_include_dirs(nvrtc.numba_cuda_search_dirs())


def add_nvrtc_include_dirs(directories: Sequence[str]) -> None:
    """Let NVRTC find the headers the bound header includes from ``directories``: add those that
    exist to numba-cuda's extra NVRTC search path (process-wide, as the
    ``NUMBA_CUDA_NVRTC_EXTRA_SEARCH_PATHS`` environment variable does; numba-cuda has no
    per-source include path)."""
    if not directories:
        return
    from numba.cuda import config
    from numba.cuda.cudadrv import nvrtc  # noqa: F401  (it initializes the setting from the env)

    current = [d for d in (getattr(config, "CUDA_NVRTC_EXTRA_SEARCH_PATHS", "") or "").split(":")]
    wanted = [str(d) for d in directories if Path(d).is_dir() and str(d) not in current]
    if wanted:
        config.CUDA_NVRTC_EXTRA_SEARCH_PATHS = ":".join([d for d in current if d] + wanted)

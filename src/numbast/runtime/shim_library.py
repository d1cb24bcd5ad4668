"""The shims of a set of bindings, and the one link object kernels get them from.

A bound call's lowering records its shim here and attaches the library's link object to the
kernel being compiled, so kernels need no ``link=`` and only shims that kernels use are ever
compiled. The link object's source text is read when Numba links, after lowering, so it holds
every shim used so far. Dynamic binding's shim writers (``MemoryShimWriter``...) are this class;
a generated module makes one with all its shims, and the import system swaps its link object for
the cached LTO-IR of all of them.
"""

from __future__ import annotations

import functools
import hashlib
import threading
from collections.abc import Callable, Container, Mapping, Sequence
from pathlib import Path
from typing import Any

from numba.cuda.cudadrv.linkable_code import LTOIR, CUSource


class ShimRejectedError(RuntimeError):
    """A kernel calls a declaration whose shim NVRTC rejected when the bindings were built."""


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


class ShimLibrary:
    """The preamble (``#include`` of the bound header), the shims known, and those used so far.

    ``shims`` are every shim a generated module may call, as (name, text); dynamic binding adds
    shims as it lowers calls instead. ``include_dirs`` are added to NVRTC's search path so the
    preamble's includes resolve when numba-cuda compiles the shims (and so are the stand-in
    system headers, ``numbast.core.nvrtc``). ``nvrtc_options`` are NVRTC options the header
    needs (``-default-device``, ``-D...``): numba-cuda cannot pass them, so then the shims are
    compiled here, to LTO-IR for ``arch`` (default: the current GPU's when a kernel links).
    """

    def __init__(
        self,
        preamble: str,
        shims: Sequence[tuple[str, str]] = (),
        name: str | None = None,
        setup_callback: Callable | None = None,
        teardown_callback: Callable | None = None,
        include_dirs: Sequence[str] = (),
        nvrtc_options: Sequence[str] = (),
        arch: str | None = None,
    ) -> None:
        self._preamble = preamble
        self.include_dirs = tuple(str(d) for d in include_dirs)
        self.nvrtc_options = tuple(nvrtc_options)
        self.arch = arch
        self.all_shims = tuple(shims)
        # Numba types of the structs and enums bound with these shims: the C++ types that a
        # translation unit with this preamble declares (template probes name them).
        self.bound_types: list = []
        self._used: dict[str, str] = {}
        self._lock = threading.Lock()
        live = _LiveShimUnit if self.nvrtc_options else _LiveShimSource
        self._link = live(
            self,
            name or f"numbast_shims_{id(self):x}.cu",
            _OncePerModule(setup_callback, teardown_callback),
        )
        self._published: list[tuple[dict, str]] = []
        self._units: Any = None  # ShimUnits (runtime.shim_units), when compiled in units
        self._declared: dict[str, str] = {}
        self._rejected: dict[str, str] = {}
        add_nvrtc_include_dirs([*self.include_dirs, *_stand_in_dirs()])
        _track_for_kernel_cache(self, name)

    @property
    def preamble(self) -> str:
        return self._preamble

    def unit_options(self, arch: str, *, lto: bool) -> list[str]:
        """NVRTC's options for a unit of these shims (or a template probe) for ``arch``."""
        nvrtc = runtime_part("core.nvrtc")
        return nvrtc.unit_options(
            arch, lto=lto, user_dirs=self.include_dirs, extra=self.nvrtc_options
        )

    def link_arch(self) -> str:
        """The arch shims compiled here are for: the one given, else the current GPU's."""
        if self.arch is not None:
            return self.arch
        from numba import cuda

        major, minor = cuda.get_current_device().compute_capability
        return f"sm_{major}{minor}"

    def write_to_shim(self, content: str, id: str) -> None:  # noqa: A002 - Numbast's name
        """Record the shim ``content`` under the key ``id`` (idempotent); raises
        ShimRejectedError for a shim NVRTC rejected when the module was built."""
        message = self._rejected.get(id)
        if message is not None:
            raise ShimRejectedError(
                f"{self._link.name}: NVRTC rejected the shim {id} when these bindings were "
                f"built, so the declaration it calls cannot be used in a kernel: {message} "
                "(numbast-cache coverage lists every such declaration)"
            )
        with self._lock:
            self._used.setdefault(id, content)

    def reject_shims(self, rejected: Mapping[str, str]) -> None:
        """Shim name -> NVRTC's message, for the shims NVRTC rejected (left out of the compiled
        shims): a kernel calling one fails to compile with that message, not to link."""
        self._rejected.update(rejected)

    def declare_shim(self, content: str, id: str) -> None:  # noqa: A002 - as write_to_shim
        """Make the shim ``content`` known under ``id`` before any kernel uses it (binding time),
        so that a cached kernel calling it can be checked in a process that has not lowered it."""
        self._declared.setdefault(id, content)

    def shim_names(self) -> list[str]:
        """The shims used so far."""
        with self._lock:
            return list(self._used)

    def link_object(self):
        return self._link

    def link_object_for(self, shim_name: str):
        """The link object holding the shim ``shim_name``: the library's one, or, when its shims
        were compiled in units, that shim's unit."""
        units = self._units
        return self._link if units is None else units.object_for(shim_name)

    def link_objects(self) -> list:
        """Every link object kernels may have got from this library so far."""
        units = self._units
        return [self._link] if units is None else [self._link, *units.objects()]

    def link_objects_for(self, shim_names: Sequence[str]) -> list:
        """The link objects a kernel calling ``shim_names`` links."""
        found = {id(o): o for o in (self.link_object_for(n) for n in shim_names)}
        return list(found.values()) or [self._link]

    def links_source(self) -> bool:
        """Whether kernels link the shims used so far compiled from source (rather than LTO-IR
        compiled once and handed over, ``use_precompiled``, ``use_link_object``)."""
        link = self._link
        return isinstance(link, (_LiveShimSource, _LiveShimUnit)) and link._library is self

    def links(self) -> list:
        """What to pass as ``@cuda.jit(link=...)`` (optional: lowering attaches it anyway)."""
        return [self._link]

    def use_link_object(self, link_object) -> None:
        """Link ``link_object`` instead of compiling the shims from source."""
        self._link = link_object
        self._republish()

    def publish(self, namespace: dict, name: str) -> None:
        """Keep ``namespace[name]`` the link object kernels get (a generated module's
        ``shim_obj``), also when the import system swaps in compiled shims."""
        self._published.append((namespace, name))
        namespace[name] = self._link

    def _republish(self) -> None:
        for namespace, name in self._published:
            namespace[name] = self._link

    def use_precompiled(
        self,
        ltoir: bytes,
        source: str,
        arch: str,
        compile_unit: Callable[..., bytes] | None = None,
    ) -> None:
        """Link ``ltoir``, the shims compiled once from ``source`` (cached by the import
        system), instead of compiling them in every process. Shims it lacks (those of
        template instances, made later) are compiled with it into one unit when a kernel uses
        them: one unit, so a header's non-inline definitions are never linked twice.
        ``compile_unit`` (source, options= NVRTC options -> LTO-IR) may cache those units; by
        default NVRTC compiles them in memory."""
        current = self._link
        compile_with = compile_unit or compile_ltoir

        def compile_shims(unit_source: str) -> bytes:
            # The options only when a unit is compiled: working them out finds the toolkit's
            # headers (cuda.pathfinder may start a process), which a warm import must not pay.
            return compile_with(unit_source, options=self.unit_options(arch, lto=True))

        self._link = _PrecompiledUnit(
            self,
            ltoir,
            source,
            compile_shims,
            name=f"{current.name.removesuffix('.cu')}.ltoir",
            setup=getattr(current, "setup_callback", None),
            teardown=getattr(current, "teardown_callback", None),
        )
        self._republish()

    def use_units(
        self,
        units: Sequence[tuple[str, Sequence[str]]],
        load_unit: Callable[[str, list[tuple[str, str]]], bytes],
        compile_shim: Callable[[str], bytes],
        identity: str,
    ) -> None:
        """Link the shims' units, as compiled by the import system (each kernel the units of
        the shims it calls: ``runtime.shim_units``), instead of compiling them."""
        current = self._link
        callbacks = getattr(current, "_callbacks", None)
        if callbacks is None:
            callbacks = _OncePerModule(
                getattr(current, "setup_callback", None),
                getattr(current, "teardown_callback", None),
            )
        shim_units = runtime_part("runtime.shim_units")
        self._units = shim_units.ShimUnits(
            self, units, load_unit, compile_shim, callbacks, identity
        )
        primary = self._units.primary()
        if primary is not None:
            self._link = primary
            self._republish()

    def extra_shims(self, known: Container[str]) -> list[tuple[str, str]]:
        """The shims used so far that are not in ``known`` (by name)."""
        with self._lock:
            return [(n, t) for n, t in self._used.items() if n not in known]

    def source(self) -> str:
        """The preamble and every shim used so far: what Numba compiles with NVRTC."""
        with self._lock:
            body = "\n".join(self._used.values())
        return f"{self._preamble}\n\n{body}\n"

    def cache_token(self, shim_names: Sequence[str]) -> str | None:
        """A digest of what a kernel calling the shims ``shim_names`` links from this library
        (``kernel_cache`` reuses a cached kernel only while it is unchanged): the compiled link
        object that replaced the source (an import entry's LTO-IR), or the preamble with the
        headers it includes; and the text of each of those shims that it does not hold. None
        when a shim is unknown here (only declared once lowered, like a template instance).
        Shims compiled in units: the digests of the units holding them (each names what it was
        compiled from), and the text of those in none."""
        if self._units is not None:
            with self._lock:
                known = {**dict(self.all_shims), **self._declared, **self._used}
            return self._units.token(shim_names, known)
        link = self._link
        live = self.links_source()
        compiled = not live
        digests = runtime_part("runtime.link_digests")  # asked by the kernel cache, installed
        if live:
            # the preamble's includes are looked up on the search path numba-cuda compiles it
            # with: the process that saved the kernel had added CCCL's directory by then
            _let_numba_cuda_find_cccl()
        code_digest, digest = digests.code_digest, digests.digest
        base = (
            code_digest(link.kind, link.data) if compiled else digests.source_digest(self._preamble)
        )
        if live and base is not None and self.nvrtc_options:
            base = digest(base, *self.nvrtc_options)
        held = {name for name, _text in self.all_shims} if compiled else set()
        with self._lock:
            known = {**dict(self.all_shims), **self._declared, **self._used}
        texts = [(name, known.get(name)) for name in sorted(set(shim_names) - held)]
        if base is None or any(text is None for _name, text in texts):
            return None
        return digest(base, *(part for pair in texts for part in pair))

    def full_source(self) -> str:
        """The preamble and every shim known."""
        body = "\n".join(text for _name, text in self.all_shims)
        return f"{self._preamble}\n\n{body}\n"


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


def _track_for_kernel_cache(library: ShimLibrary, name: str | None) -> None:
    """Let ``cache=True`` kernels find ``library`` in another process (``kernel_cache``); where
    there is no kernel cache (a copy of the runtime, no numbast installed), such kernels compile
    in every process, as numba-cuda alone does."""
    kernel_cache = runtime_part("runtime.kernel_cache", required=False)
    if kernel_cache is not None:
        kernel_cache.track_library(library, name)


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


def _stand_in_dirs() -> list[str]:
    nvrtc = runtime_part("core.nvrtc", required=False)
    found = nvrtc.stand_in_dir() if nvrtc is not None else None
    return [] if found is None else [found]


@functools.cache
def _let_numba_cuda_find_cccl() -> None:
    """Add the directory that holds CCCL as ``cccl/`` (``nvrtc.cccl_holder_dir``) to numba-cuda's
    NVRTC search path, once, when numba-cuda first compiles shims: finding CCCL may start a
    process (cuda.pathfinder), which a warm import must not pay."""
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

"""The shims of a set of bindings, and the one link object kernels get them from.

A bound call's lowering records its shim here and attaches the library's link object to the
kernel being compiled, so kernels need no ``link=`` and only shims that kernels use are ever
compiled. The link object's source text is read when Numba links, after lowering, so it holds
every shim used so far. Dynamic binding's shim writers (``MemoryShimWriter``...) are this class;
a generated module makes one with all its shims, and the import system swaps its link object for
the cached LTO-IR of all of them.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable, Container, Mapping, Sequence
from typing import Any

from .shim_links import (
    _let_numba_cuda_find_cccl,
    _LiveShimSource,
    _LiveShimUnit,
    _OncePerModule,
    _PrecompiledUnit,
    add_nvrtc_include_dirs,
    compile_ltoir,
    runtime_part,
)
from .state import LOCK, shared_table

# The kernel cache's tables (``kernel_cache``), read here without importing it: whether its
# install() ran, and the ShimLibraries made before it did (weak references, with their names).
_INSTALLED: dict[str, Any] = shared_table("kernel_cache_install", dict)
_WAITING: list = shared_table("kernel_cache_waiting_libraries", list)
# Whether numba-cuda's enable_caching was wrapped to install the kernel cache on first use.
_HOOK: dict[str, bool] = shared_table("kernel_cache_on_first_use", dict)


class ShimRejectedError(RuntimeError):
    """A kernel calls a declaration whose shim NVRTC rejected when the bindings were built."""


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
        # The stand-in headers join numba-cuda's search path when it first compiles shims
        # (_let_numba_cuda_find_cccl), not here: finding them imports numbast.core.nvrtc.
        add_nvrtc_include_dirs(self.include_dirs)
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
        identity: str | Callable[[], str],
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


def _track_for_kernel_cache(library: ShimLibrary, name: str | None) -> None:
    """Let ``cache=True`` kernels find ``library`` in another process (``kernel_cache``); where
    there is no kernel cache (a copy of the runtime, no numbast installed), such kernels compile
    in every process, as numba-cuda alone does. The kernel cache (three modules) is imported
    when a kernel first asks for cache=True (``_enable_caching_on_first_use``), or when its
    ``install()`` is called, not by every import of bindings: until then the libraries wait in
    its table of waiting libraries, which ``install()`` empties."""
    with LOCK:
        if _INSTALLED.get("state") is None and not _HOOK.get("no kernel cache"):
            _WAITING.append((weakref.ref(library), name))
            if "hooked" not in _HOOK:
                _HOOK["hooked"] = _enable_caching_on_first_use()
            return
    kernel_cache = runtime_part("runtime.kernel_cache", required=False)
    if kernel_cache is not None:
        kernel_cache.track_library(library, name)


def _enable_caching_on_first_use() -> bool:
    """Make numba-cuda's ``CUDADispatcher.enable_caching`` (what ``cache=True`` calls) import and
    install the kernel cache, once, which puts its own ``enable_caching`` in place (or leaves
    numba-cuda's); that one then makes the kernel's cache."""
    from numba.cuda import dispatcher

    kernel_class = getattr(dispatcher, "CUDADispatcher", None)
    original = getattr(kernel_class, "enable_caching", None)
    if original is None:  # not a numba-cuda kernel_cache knows: its install() says so
        return False

    def enable_caching(self: Any) -> None:
        with LOCK:
            if kernel_class.enable_caching is enable_caching:
                kernel_class.enable_caching = original
        kernel_cache = runtime_part("runtime.kernel_cache", required=False)
        if kernel_cache is None:
            _HOOK["no kernel cache"] = True
            _WAITING.clear()
        else:
            kernel_cache.install()
        kernel_class.enable_caching(self)

    enable_caching.__wrapped__ = original
    kernel_class.enable_caching = enable_caching
    return True

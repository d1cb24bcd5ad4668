"""A shim library's link objects in numba-cuda-mlir's terms: the same shims, the same LTO-IR.

numba-cuda-mlir links ``LinkableCode`` objects of its own (its copy of numba-cuda's classes), so
the link objects a ShimLibrary gives numba-cuda cannot be handed to it as they are. Each is
wrapped in one of numba-cuda-mlir's ``LTOIR`` objects whose bytes are read when numba-cuda-mlir
links, after lowering:

- compiled shims (an import-cache entry's LTO-IR, ``ShimLibrary.use_precompiled``, or the unit
  holding the shim, ``use_units``): the numba-cuda link object that holds the shim, read as it
  is (with the shims of later template instances compiled in, as for numba-cuda);
- shims that are source (dynamic binding): the preamble and the shims kernels used so far,
  compiled by numbast's NVRTC module for the kernel's arch with the library's options (its
  include directories, the stand-in system headers).

Always LTO-IR, so numba-cuda-mlir compiles the kernel as LTO-IR too and the shims inline.
Module Callbacks are the wrapped object's (run once per loaded module, as for numba-cuda).
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable
from typing import Any

from numba.cuda.cudadrv import linkable_code as cuda_linkable_code
from numba_cuda_mlir.numba_cuda.cudadrv import linkable_code

from ..runtime.shim_library import ShimLibrary, compile_ltoir
from ..runtime.state import LOCK


class LTOIR(linkable_code.LTOIR):
    """LTO-IR read from numbast's shims when numba-cuda-mlir links: ``read()`` gives the bytes,
    ``holder()`` the numba-cuda link object whose Module Callbacks apply. Named ``LTOIR``, one
    class for every kind of shims: numba-cuda-mlir tells LTO-IR inputs by their class name, and
    compiles a kernel that links one as LTO-IR (so the shims inline)."""

    def __init__(self, name: str, read: Callable[[], bytes], holder: Callable[[], Any]) -> None:
        super().__init__(b"", name=name)
        self._read = read
        self._holder = holder

    @property
    def data(self) -> bytes:
        return self._read()

    @property
    def setup_callback(self) -> Any:
        return getattr(self._holder(), "setup_callback", None)

    @setup_callback.setter
    def setup_callback(self, callback: Any) -> None:
        if callback is not None:
            raise TypeError("set Module Callbacks on the shim library's own link object")

    @property
    def teardown_callback(self) -> Any:
        return getattr(self._holder(), "teardown_callback", None)

    @teardown_callback.setter
    def teardown_callback(self, callback: Any) -> None:
        if callback is not None:
            raise TypeError("set Module Callbacks on the shim library's own link object")


def compiled_shims(compiled: Any) -> LTOIR:
    """A numba-cuda LTO-IR link object of compiled shims, as numba-cuda-mlir links it."""
    if not isinstance(compiled, cuda_linkable_code.LTOIR):
        raise TypeError(
            f"{compiled.name}: numbast links {type(compiled).__name__} code into "
            "numba-cuda-mlir kernels only as LTO-IR; hand the shim library LTO-IR instead"
        )
    held = weakref.ref(compiled)  # the wrapper (a value of _COMPILED) must not keep its key

    def holder() -> Any:
        found = held()
        if found is None:
            raise RuntimeError(f"numbast: {compiled_name} was freed before it was linked")
        return found

    compiled_name = compiled.name
    return LTOIR(compiled_name, lambda: holder().data, holder)


class _SourceShims:
    """The shims of a library that compiles them from source, compiled for one arch (again
    when kernels have used more of them)."""

    def __init__(self, library: ShimLibrary, arch: str) -> None:
        self._library = weakref.ref(library)
        self._arch = arch
        self._units: dict[str, bytes] = {}
        self._lock = threading.Lock()

    def library(self) -> ShimLibrary:
        library = self._library()
        if library is None:
            raise RuntimeError("numbast: a numba-cuda-mlir kernel links shims of a freed library")
        return library

    def holder(self) -> Any:
        return self.library().link_object()

    def read(self) -> bytes:
        library = self.library()
        source = library.source()
        with self._lock:
            unit = self._units.get(source)
            if unit is None:
                options = library.unit_options(self._arch, lto=True)
                unit = self._units[source] = compile_ltoir(source, options)
            return unit


def source_shims(library: ShimLibrary, arch: str) -> LTOIR:
    shims = _SourceShims(library, arch)
    name = f"{library.link_object().name.rsplit('.', 1)[0]}.{arch}.ltoir"
    return LTOIR(name, shims.read, shims.holder)


# library -> {arch: its source shims' LTOIR}; numba-cuda link object -> its LTOIR. Weak: a wrapper
# keeps neither a library nor a link object alive.
_SOURCE: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_COMPILED: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def link_object(library: ShimLibrary, shim_name: str, arch: str) -> LTOIR:
    """The numba-cuda-mlir link object holding ``library``'s shim ``shim_name`` for ``arch``
    (one per library and arch while the shims are source, else one per compiled object)."""
    with LOCK:
        if library.links_source():
            per_arch = _SOURCE.setdefault(library, {})
            found = per_arch.get(arch)
            if found is None:
                found = per_arch[arch] = source_shims(library, arch)
            return found
        compiled = library.link_object_for(shim_name)
        found = _COMPILED.get(compiled)
        if found is None:
            found = _COMPILED[compiled] = compiled_shims(compiled)
        return found

"""A shim library's link object in numba-cuda-mlir's terms: the same shims, the same LTO-IR.

numba-cuda-mlir links ``LinkableCode`` objects of its own (its copy of numba-cuda's classes), so
the link object a ShimLibrary gives numba-cuda cannot be handed to it as it is. This is one of
numba-cuda-mlir's ``LTOIR`` objects per library and arch whose bytes are read when
numba-cuda-mlir links, after lowering: the library's compiled LTO-IR (an import-cache entry's,
``ShimLibrary.use_precompiled``, with the shims of later template instances compiled in) read
from the library's own link object; or, for a library whose shims are source (dynamic binding),
the preamble and the shims kernels used so far, compiled by numbast's NVRTC module for the
kernel's arch with the library's options (its include directories, the stand-in system headers).
Always LTO-IR, so numba-cuda-mlir compiles the kernel as LTO-IR too and the shims inline.
Module Callbacks are the library's (run once per loaded module, as for numba-cuda).
"""

from __future__ import annotations

import threading
import weakref
from typing import Any

from numba.cuda.cudadrv import linkable_code as cuda_linkable_code
from numba_cuda_mlir.numba_cuda.cudadrv import linkable_code

from ..runtime.shim_library import ShimLibrary, compile_ltoir
from ..runtime.state import LOCK

# library -> {arch: link object}; weak: a link object does not keep a library alive
_LINKS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


class LTOIR(linkable_code.LTOIR):
    """The LTO-IR of one library's shims for one arch. Named ``LTOIR``: numba-cuda-mlir tells
    LTO-IR inputs by their class name, and compiles a kernel that links one as LTO-IR."""

    def __init__(self, library: ShimLibrary, arch: str) -> None:
        source_link = library.link_object()
        super().__init__(b"", name=f"{source_link.name.rsplit('.', 1)[0]}.{arch}.ltoir")
        self._library = weakref.ref(library)
        self._arch = arch
        self._units: dict[str, bytes] = {}
        self._lock = threading.Lock()

    @property
    def library(self) -> ShimLibrary:
        library = self._library()
        if library is None:
            raise RuntimeError(f"{self.name}: its shim library is gone")
        return library

    @property
    def data(self) -> bytes:
        library = self.library
        if not library.links_source():
            current = library.link_object()
            if not isinstance(current, cuda_linkable_code.LTOIR):
                raise TypeError(
                    f"{current.name}: numbast links {type(current).__name__} code into "
                    "numba-cuda-mlir kernels only as LTO-IR; hand the shim library LTO-IR instead"
                )
            return current.data  # an import entry's LTO-IR (and later instances' shims)
        source = library.source()
        with self._lock:
            unit = self._units.get(source)
            if unit is None:
                options = library.unit_options(self._arch, lto=True)
                unit = self._units[source] = compile_ltoir(source, options)
            return unit

    @property
    def setup_callback(self) -> Any:
        return getattr(self.library.link_object(), "setup_callback", None)

    @setup_callback.setter
    def setup_callback(self, callback: Any) -> None:
        if callback is not None:
            raise TypeError("set Module Callbacks on the shim library's own link object")

    @property
    def teardown_callback(self) -> Any:
        return getattr(self.library.link_object(), "teardown_callback", None)

    @teardown_callback.setter
    def teardown_callback(self, callback: Any) -> None:
        if callback is not None:
            raise TypeError("set Module Callbacks on the shim library's own link object")


def link_object(library: ShimLibrary, arch: str) -> LTOIR:
    """The numba-cuda-mlir link object of ``library``'s shims for ``arch`` (one per pair)."""
    with LOCK:
        per_arch = _LINKS.setdefault(library, {})
        found = per_arch.get(arch)
        if found is None:
            found = per_arch[arch] = LTOIR(library, arch)
        return found

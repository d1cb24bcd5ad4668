"""Shim writers: dynamic binding's shim libraries, under the names NVIDIA's Numbast documents.

A shim writer is a :class:`numbast.runtime.shim_library.ShimLibrary` that starts empty: a shim is
written to it when a kernel that uses it is lowered, so only shims actually used are compiled.
``links()`` gives the link objects: the one whose CUDA source text is read at link time
(lowering attaches it anyway, so ``link=shim_writer.links()`` is optional for bound calls), then
one per PTX module given to ``write_to_ptx_shim``.
"""

from __future__ import annotations

import os
import tempfile
import threading
from collections.abc import Sequence

from numba.cuda.cudadrv.linkable_code import PTXSource

from numbast.runtime.shim_library import ShimLibrary


class ShimWriterBase(ShimLibrary):
    """``preceding_text`` is the text before the shims (usually ``#include "header.cuh"``);
    ``include_dirs`` (ours) are where NVRTC looks for the headers it includes; ``nvrtc_options``
    (ours) are NVRTC options the header needs (``-default-device``: then the shims are compiled
    to LTO-IR here, for ``arch``, default the current GPU's; docs/nvrtc.md)."""

    def __init__(
        self,
        preceding_text: str = "",
        *,
        include_dirs: Sequence[str] = (),
        nvrtc_options: Sequence[str] = (),
        arch: str | None = None,
    ) -> None:
        super().__init__(
            preceding_text, include_dirs=include_dirs, nvrtc_options=nvrtc_options, arch=arch
        )
        self._ptx: dict[str, PTXSource] = {}
        self._ptx_lock = threading.Lock()

    @property
    def preceding_text(self) -> str:
        return self.preamble

    def write_to_ptx_shim(self, ptx: str, id: str) -> None:  # noqa: A002 - NVIDIA's name
        """Link the PTX module ``ptx`` (its functions are ``extern "C" __device__`` to CUDA
        shims) into kernels linked with ``links()``; idempotent per ``id``."""
        with self._ptx_lock:
            if id not in self._ptx:
                self._ptx[id] = PTXSource(ptx.encode(), name=f"{id}.ptx")

    def links(self) -> list:
        """What to pass as ``@cuda.jit(link=...)``: the shims' source, then the PTX modules."""
        with self._ptx_lock:
            return [self.link_object(), *self._ptx.values()]


class MemoryShimWriter(ShimWriterBase):
    """Shims held in memory and handed to NVRTC as source."""


class FileShimWriter(ShimWriterBase):
    """Shims written to a ``.cu`` file on disk at link time (handy to inspect them).

    ``links()`` returns the same live object as MemoryShimWriter, and the file at
    ``self.file_name`` (also ``self.path``; a temporary file unless ``path`` is given) is
    rewritten each time the source is read.
    """

    def __init__(
        self,
        preceding_text: str = "",
        *,
        path: str | os.PathLike[str] | None = None,
        include_dirs: Sequence[str] = (),
        nvrtc_options: Sequence[str] = (),
        arch: str | None = None,
    ) -> None:
        super().__init__(
            preceding_text, include_dirs=include_dirs, nvrtc_options=nvrtc_options, arch=arch
        )
        if path is None:
            fd, path = tempfile.mkstemp(prefix="numbast_shims_", suffix=".cu")
            os.close(fd)
        self.path = self.file_name = os.fspath(path)

    def source(self) -> str:
        text = super().source()
        with open(self.path, "w", encoding="utf-8") as f:
            f.write(text)
        return text

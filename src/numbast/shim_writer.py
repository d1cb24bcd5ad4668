"""Shim writers: collect the ``extern "C"`` shims that bound declarations call.

A shim is written when a kernel that uses it is lowered, so only shims actually used are ever
compiled. The writer hands numba-cuda one link object (``links()``) whose source text is read at
link time, after lowering, and so holds every shim used so far. Lowering also attaches that same
object to the kernel being compiled, so ``link=shim_writer.links()`` is optional: the code
library keeps a set, and the one object is linked once.
"""

from __future__ import annotations

import logging
import os
import tempfile
import threading

from numba.cuda.cudadrv.linkable_code import CUSource

logger = logging.getLogger(__name__)


class _LiveShimSource(CUSource):
    """A CUSource whose text is the writer's current preamble plus shims, read when linked."""

    def __init__(self, writer: ShimWriterBase, name: str) -> None:
        super().__init__(data="", name=name)
        self._writer = writer

    @property
    def data(self) -> str:
        return self._writer.source()


class ShimWriterBase:
    """Keeps the preamble (usually ``#include "header.cuh"``) and the shims by name."""

    def __init__(self, preamble: str) -> None:
        self._preamble = preamble
        self._shims: dict[str, str] = {}
        self._lock = threading.Lock()
        self._link_object = _LiveShimSource(self, name=self._default_name())

    def _default_name(self) -> str:
        return f"numbast_shims_{id(self):x}.cu"

    @property
    def preamble(self) -> str:
        return self._preamble

    def write_to_shim(self, content: str, id: str) -> None:  # noqa: A002 - Numbast's name
        """Add the shim ``content`` under the key ``id`` (idempotent)."""
        with self._lock:
            if id not in self._shims:
                self._shims[id] = content
                logger.debug("shim %s added", id)

    def shim_names(self) -> list[str]:
        with self._lock:
            return list(self._shims)

    def source(self) -> str:
        """The whole translation unit: the preamble, then every shim written so far."""
        with self._lock:
            body = "\n".join(self._shims.values())
        return f"{self._preamble}\n\n{body}\n"

    def link_object(self) -> CUSource:
        return self._link_object

    def links(self) -> list:
        """What to pass as ``@cuda.jit(link=...)``."""
        return [self._link_object]


class MemoryShimWriter(ShimWriterBase):
    """Shims held in memory and handed to NVRTC as source."""


class FileShimWriter(ShimWriterBase):
    """Shims written to a ``.cu`` file on disk at link time (handy to inspect them).

    ``links()`` returns the same live object as MemoryShimWriter, and the file at
    ``self.path`` is rewritten each time the source is read.
    """

    def __init__(self, preamble: str, path: str | os.PathLike[str] | None = None) -> None:
        super().__init__(preamble)
        if path is None:
            fd, path = tempfile.mkstemp(prefix="numbast_shims_", suffix=".cu")
            os.close(fd)
        self.path = os.fspath(path)

    def source(self) -> str:
        text = super().source()
        with open(self.path, "w", encoding="utf-8") as f:
            f.write(text)
        return text

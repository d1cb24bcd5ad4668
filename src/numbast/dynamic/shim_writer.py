"""Shim writers: dynamic binding's shim libraries, under the names NVIDIA's Numbast documents.

A shim writer is a :class:`numbast.runtime.shim_library.ShimLibrary` that starts empty: a shim is
written to it when a kernel that uses it is lowered, so only shims actually used are compiled.
``links()`` gives the one link object whose source text is read at link time; lowering attaches
it to the kernel anyway, so ``link=shim_writer.links()`` is optional.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Sequence

from numbast.runtime.shim_library import ShimLibrary


class ShimWriterBase(ShimLibrary):
    """``preamble`` is the text before the shims (usually ``#include "header.cuh"``);
    ``include_dirs`` are where NVRTC looks for the headers it includes."""

    def __init__(self, preamble: str = "", *, include_dirs: Sequence[str] = ()) -> None:
        super().__init__(preamble, include_dirs=include_dirs)


class MemoryShimWriter(ShimWriterBase):
    """Shims held in memory and handed to NVRTC as source."""


class FileShimWriter(ShimWriterBase):
    """Shims written to a ``.cu`` file on disk at link time (handy to inspect them).

    ``links()`` returns the same live object as MemoryShimWriter, and the file at
    ``self.path`` is rewritten each time the source is read.
    """

    def __init__(
        self,
        preamble: str = "",
        path: str | os.PathLike[str] | None = None,
        *,
        include_dirs: Sequence[str] = (),
    ) -> None:
        super().__init__(preamble, include_dirs=include_dirs)
        if path is None:
            fd, path = tempfile.mkstemp(prefix="numbast_shims_", suffix=".cu")
            os.close(fd)
        self.path = os.fspath(path)

    def source(self) -> str:
        text = super().source()
        with open(self.path, "w", encoding="utf-8") as f:
            f.write(text)
        return text

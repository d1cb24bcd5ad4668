"""NVIDIA Numbast's module path for the shim writers (``from numbast.shim_writer import
MemoryShimWriter``); they live in :mod:`numbast.dynamic.shim_writer`."""

from numbast.dynamic.shim_writer import FileShimWriter, MemoryShimWriter, ShimWriterBase

__all__ = ["FileShimWriter", "MemoryShimWriter", "ShimWriterBase"]

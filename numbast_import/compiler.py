"""Runtime compilation in PyCUDA's API (``pycuda.compiler``), on NVRTC and cuda.core.

    from numbast_import.compiler import SourceModule
    mod = SourceModule(source)          # NVRTC; arch of the current device; cached
    f = mod.get_function("kernel")

See docs/rtc.md for the API, what differs from PyCUDA and why, and a porting guide.
"""

from __future__ import annotations

import tempfile
from collections.abc import Sequence
from pathlib import Path

from numbast_import.rtc import nvcc as _nvcc
from numbast_import.rtc.build import build as _build
from numbast_import.rtc.build import clear_memo
from numbast_import.rtc.dynamic import DynamicModule, DynamicSourceModule
from numbast_import.rtc.errors import CompileError
from numbast_import.rtc.generated import DynamicFunction
from numbast_import.rtc.source_module import (
    DEFAULT_NVCC_FLAGS,
    CacheDir,
    SourceModule,
)
from numbast_import.rtc.source_module import options_or_default as _options
from numbast_import.rtc.textures_rewrite import TextureRewriteError

__all__ = [
    "DEFAULT_NVCC_FLAGS", "CompileError", "DynamicFunction", "DynamicModule", "DynamicSourceModule",
    "SourceModule", "TextureRewriteError", "clear_memo", "compile", "compile_plain",
    "get_nvcc_version", "preprocess_source",
]  # fmt: skip


def compile(  # noqa: A001 - PyCUDA's name
    source: str,
    nvcc: str | None = None,
    options: Sequence[str] | None = None,
    keep: bool = False,
    no_extern_c: bool = False,
    arch: str | None = None,
    code: str | None = None,
    cache_dir: CacheDir = None,
    include_dirs: Sequence[str] | None = None,
    target: str = "cubin",
    name_expressions: Sequence[str] = (),
) -> bytes:
    """The binary for ``source``: ``target`` "cubin", "ptx" or "fatbin" (fatbin needs nvcc).
    No GPU is needed when ``arch`` is given (or NUMBAST_IMPORT_ARCH is set)."""
    return _build(
        source, nvcc=nvcc, options=_options(options), keep=keep, no_extern_c=no_extern_c,
        arch=arch, code=code, cache_dir=cache_dir, include_dirs=include_dirs, target=target,
        name_expressions=name_expressions,
    ).compiled.code  # fmt: skip


def compile_plain(
    source: str,
    options: Sequence[str] | None = None,
    keep: bool = False,
    nvcc: str | None = None,
    cache_dir: CacheDir = None,
    target: str = "cubin",
    arch: str | None = None,
) -> bytes:
    """``source`` compiled as it is (no ``extern "C"`` wrapper)."""
    return compile(
        source, nvcc=nvcc, options=options, keep=keep, no_extern_c=True, arch=arch,
        cache_dir=cache_dir, target=target,
    )  # fmt: skip


def preprocess_source(source: str, options: Sequence[str] | None = None, nvcc: str = "nvcc") -> str:
    """``source`` after the C preprocessor (this needs nvcc: NVRTC cannot preprocess only)."""
    with tempfile.TemporaryDirectory(prefix="numbast-rtc-") as workdir:
        return _nvcc.preprocess(source, nvcc, _options(options), Path(workdir))


def get_nvcc_version(nvcc: str = "nvcc") -> tuple[int, int]:
    """(major, minor) of the CUDA compiler ``SourceModule(nvcc=nvcc)`` uses: that nvcc's
    version when it is found, else NVRTC's."""
    found = _nvcc.nvcc_release(nvcc)
    if found is not None:
        return found
    from numbast_import.rtc.nvrtc import nvrtc_version

    major, minor = nvrtc_version().split()[-1].split(".")[:2]
    return int(major), int(minor)

"""Runtime compilation in PyCUDA's API (``pycuda.compiler``), on NVRTC and cuda.core.

    from numbast_import.compiler import SourceModule
    mod = SourceModule(source)          # NVRTC; arch of the current device; cached
    f = mod.get_function("kernel")

See docs/rtc.md for the API, what differs from PyCUDA and why, and a porting guide.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from numbast_import.rtc import nvcc as _nvcc
from numbast_import.rtc.build import build as _build
from numbast_import.rtc.build import clear_memo
from numbast_import.rtc.dynamic import DynamicModule, DynamicSourceModule
from numbast_import.rtc.errors import CompileError
from numbast_import.rtc.function import Function
from numbast_import.rtc.generated import DynamicFunction
from numbast_import.rtc.module import Module
from numbast_import.rtc.textures_rewrite import TextureRewriteError

__all__ = [
    "DEFAULT_NVCC_FLAGS", "CompileError", "DynamicFunction", "DynamicModule", "DynamicSourceModule",
    "SourceModule", "TextureRewriteError", "clear_memo", "compile", "compile_plain",
    "get_nvcc_version", "preprocess_source",
]  # fmt: skip

# Options used when a call passes options=None (PyCUDA's module-level default).
DEFAULT_NVCC_FLAGS: list[str] = []

CacheDir = str | os.PathLike[str] | bool | None


def _options(options: Sequence[str] | None) -> list[str]:
    return list(DEFAULT_NVCC_FLAGS if options is None else options)


class SourceModule:
    """CUDA C++ source compiled and loaded: PyCUDA's ``SourceModule``.

    NVRTC compiles unless ``nvcc`` names an nvcc executable that is found. Kernels are
    ``extern "C"`` unless ``no_extern_c``; C++ and template kernels are found by the
    ``name_expressions`` given here (``get_function("scale<float>")``). ``cache_dir=False``
    compiles afresh, with no disk cache and no sharing with equal SourceModules.
    """

    def __init__(
        self,
        source: str,
        nvcc: str | None = None,
        options: Sequence[str] | None = None,
        keep: bool = False,
        no_extern_c: bool = False,
        arch: str | None = None,
        code: str | None = None,
        cache_dir: CacheDir = None,
        include_dirs: Sequence[str] | None = None,
        name_expressions: Sequence[str] = (),
    ) -> None:
        built = _build(
            source, nvcc=nvcc, options=_options(options), keep=keep, no_extern_c=no_extern_c,
            arch=arch, code=code, cache_dir=cache_dir, include_dirs=include_dirs,
            name_expressions=name_expressions,
        )  # fmt: skip
        if built.module is None:
            # SourceModules of one memo entry share the loaded module (its globals too).
            built.module = Module(
                built.compiled.code, built.compiled.target,
                lowered_names=built.compiled.lowered_names, textures=built.textures,
            )  # fmt: skip
        self.module: Module = built.module
        self.source = source
        self.arch = built.arch
        self.cubin = built.compiled.code
        self.compiler_log = built.compiled.log

    def get_function(self, name: str) -> Function:
        return self.module.get_function(name)

    def get_global(self, name: str) -> tuple[int, int]:
        return self.module.get_global(name)

    def get_texref(self, name: str) -> Any:
        return self.module.get_texref(name)


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

"""``SourceModule``: CUDA C++ source compiled (NVRTC, or nvcc when named), cached and loaded,
as PyCUDA's. The runtime compiler's core object: ``numbast_import.compiler`` (PyCUDA's
``pycuda.compiler`` API) and the DynamicModule forms (``rtc.dynamic``, ``rtc.generated``)
make them.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from numbast_import.rtc.build import build as _build
from numbast_import.rtc.function import Function
from numbast_import.rtc.module import Module

# Options used when a call passes options=None (PyCUDA's module-level default; change it in
# place: numbast_import.compiler exports this list).
DEFAULT_NVCC_FLAGS: list[str] = []

CacheDir = str | os.PathLike[str] | bool | None


def options_or_default(options: Sequence[str] | None) -> list[str]:
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
            source, nvcc=nvcc, options=options_or_default(options), keep=keep,
            no_extern_c=no_extern_c, arch=arch, code=code, cache_dir=cache_dir,
            include_dirs=include_dirs, name_expressions=name_expressions,
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

    def get_texref(self, name: str) -> object:
        return self.module.get_texref(name)

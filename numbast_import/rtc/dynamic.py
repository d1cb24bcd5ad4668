"""PyCUDA's DynamicModule: pieces of device code (sources, PTX, cubins, LTO-IR, libraries)
linked by nvJitLink (cuda.core's Linker), with the device runtime (``add_stdlib("cudadevrt")``)
for kernels that launch kernels (dynamic parallelism)."""

from __future__ import annotations

import logging
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from numbast_import.rtc.build import build, default_arch
from numbast_import.rtc.module import Module

logger = logging.getLogger(__name__)

_INPUT_TYPES = {
    "ptx": "from_ptx", "cubin": "from_cubin", "fatbin": "from_fatbin", "ltoir": "from_ltoir",
    "object": "from_object", "library": "from_library",
}  # fmt: skip


def find_stdlib(libname: str, cuda_libdir: str | None = None) -> Path:
    """``lib<libname>.a`` in ``cuda_libdir``, the CUDA wheels, or the toolkit's lib64."""
    filename = f"lib{libname}.a"
    candidates: list[Path] = []
    if cuda_libdir:
        candidates.append(Path(cuda_libdir))
    try:
        from cuda.pathfinder import find_nvidia_header_directory

        include = find_nvidia_header_directory("cudart")
        if include:
            candidates += [Path(include).parent / "lib", Path(include).parent / "lib64"]
    except (ImportError, RuntimeError) as exc:
        logger.debug("cuda.pathfinder could not locate cudart: %s", exc)
    for var in ("CUDA_HOME", "CUDA_PATH"):
        if os.environ.get(var):
            candidates.append(Path(os.environ[var]) / "lib64")
    candidates.append(Path("/usr/local/cuda/lib64"))
    for directory in candidates:
        if (directory / filename).is_file():
            return directory / filename
    raise FileNotFoundError(
        f"{filename} not found (looked in {', '.join(map(str, candidates))}); pass "
        "cuda_libdir= or install the CUDA runtime (pip install nvidia-cuda-runtime)"
    )


class DynamicModule(Module):
    """Add device code with add_source/add_data/add_file/add_stdlib, then ``link()``."""

    def __init__(
        self,
        nvcc: str | None = None,
        link_options: Sequence[str] | None = None,
        keep: bool = False,
        no_extern_c: bool = False,
        arch: str | None = None,
        code: str | None = None,
        cache_dir: Any = None,
        include_dirs: Sequence[str] | None = None,
        message_handler: Any = None,
        cuda_libdir: str | None = None,
    ) -> None:
        self.nvcc = nvcc
        self.link_options = list(link_options or ())
        self.keep = keep
        self.no_extern_c = no_extern_c
        self.arch = arch or default_arch()
        self.code_option = code
        self.cache_dir = cache_dir
        self.include_dirs = list(include_dirs or ())
        self.message_handler = message_handler
        self.cuda_libdir = cuda_libdir
        self._pieces: list[tuple[str, bytes, str]] = []
        self._lowered: dict[str, str] = {}
        self._textures: list[Any] = []

    def add_source(
        self, source: str, nvcc_options: Sequence[str] | None = None, name: str = "kernel.ltoir"
    ) -> DynamicModule:
        """Compile ``source`` (relocatable LTO-IR, NVRTC) and add it."""
        built = build(
            source, nvcc=None, options=list(nvcc_options or ()), keep=self.keep,
            no_extern_c=self.no_extern_c, arch=self.arch, cache_dir=self.cache_dir,
            include_dirs=self.include_dirs, target="ltoir",
        )  # fmt: skip
        self._lowered.update(built.compiled.lowered_names)
        self._textures += built.textures
        self._pieces.append(("ltoir", built.compiled.code, name))
        return self

    def add_data(self, data: bytes, input_type: str, name: str = "unknown") -> DynamicModule:
        if input_type not in _INPUT_TYPES:
            raise ValueError(f"input_type={input_type!r}: one of {', '.join(_INPUT_TYPES)}")
        self._pieces.append((input_type, bytes(data), name))
        return self

    def add_file(self, filename: str, input_type: str) -> DynamicModule:
        return self.add_data(Path(filename).read_bytes(), input_type, os.path.basename(filename))

    def add_stdlib(self, libname: str) -> DynamicModule:
        path = find_stdlib(libname, self.cuda_libdir)
        return self.add_data(path.read_bytes(), "library", path.name)

    def link(self) -> DynamicModule:
        """Link what was added into a cubin; then get_function works."""
        from cuda.core import Linker, LinkerOptions, ObjectCode

        if not self._pieces:
            raise ValueError("nothing to link: add sources or data first")
        objects = [getattr(ObjectCode, _INPUT_TYPES[kind])(data) for kind, data, _n in self._pieces]
        lto = any(kind == "ltoir" for kind, _d, _n in self._pieces)
        options = LinkerOptions(arch=self.arch, link_time_optimization=lto or None)
        linker = Linker(*objects, options=options)
        cubin = linker.link("cubin")
        if self.message_handler is not None:
            self.message_handler(True, linker.get_info_log(), linker.get_error_log())
        Module.__init__(
            self, bytes(cubin.code), "cubin", lowered_names=self._lowered, textures=self._textures
        )
        return self


class DynamicSourceModule(DynamicModule):
    """A source whose kernels may launch kernels: compiled relocatable and linked with the
    device runtime (PyCUDA's DynamicSourceModule)."""

    def __init__(
        self,
        source: str,
        nvcc: str | None = None,
        options: Sequence[str] | None = None,
        keep: bool = False,
        no_extern_c: bool = False,
        arch: str | None = None,
        code: str | None = None,
        cache_dir: Any = None,
        include_dirs: Sequence[str] | None = None,
        cuda_libdir: str | None = None,
    ) -> None:
        super().__init__(
            nvcc=nvcc, keep=keep, no_extern_c=no_extern_c, arch=arch, code=code,
            cache_dir=cache_dir, include_dirs=include_dirs, cuda_libdir=cuda_libdir,
        )  # fmt: skip
        self.add_source(source, nvcc_options=options)
        self.add_stdlib("cudadevrt")
        self.link()

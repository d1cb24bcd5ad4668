"""DynamicModule and DynamicSourceModule, in their two forms, told apart by their arguments.

PyCUDA's form links pieces of device code (sources, PTX, cubins, LTO-IR, libraries) with
nvJitLink (cuda.core's Linker), with the device runtime (``add_stdlib("cudadevrt")``) for
kernels that launch kernels: ``DynamicModule(nvcc=..., link_options=...)``, ``add_source``,
``add_data``, ``add_file``, ``add_stdlib``, ``link``; ``DynamicSourceModule(source)``.

The specification's form generates a source (``generated``): ``DynamicModule(template=None)``
with ``add_to_preamble``, ``add_function`` and ``compile``; ``DynamicSourceModule(template)``
compiles itself when first used.

How they are told apart: a first argument that holds a ``${preamble}`` / ``${functions}``
placeholder, or source text, is a template; one that looks like a program name is PyCUDA's
``nvcc``; the linker's keywords pick PyCUDA's form; without any of these the first method
called decides, and the other form's methods then raise TypeError.
"""

from __future__ import annotations

import logging
import os
import re
import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from numbast_import.rtc.build import build, default_arch
from numbast_import.rtc.generated import GeneratedSource, is_template
from numbast_import.rtc.module import Module

logger = logging.getLogger(__name__)

_INPUT_TYPES = {
    "ptx": "from_ptx", "cubin": "from_cubin", "fatbin": "from_fatbin", "ltoir": "from_ltoir",
    "object": "from_object", "library": "from_library",
}  # fmt: skip
# PyCUDA's jit_input_type names (the driver's CUjitInputType) for the same kinds.
_JIT_INPUT_NAMES = {"fatbinary": "fatbin", "nvvm": "ltoir"}


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


GENERATE, LINK = "generate", "link"
_GENERATING = ("add_to_preamble", "add_function", "compile")
_LINKING = ("add_source", "add_data", "add_file", "add_stdlib", "link")


def _is_program_name(text: str) -> bool:
    """Whether a first argument names a compiler (PyCUDA's ``nvcc``) rather than source."""
    if not text or "\n" in text or is_template(text):
        return False
    if shutil.which(text) or os.path.isfile(text):
        return True
    return re.fullmatch(r"[\w./\\:+-]+", text) is not None


class DynamicModule(GeneratedSource, Module):
    """PyCUDA's linker, or the specification's generated module (see the module docstring).

    Linker: ``add_source(source, nvcc_options)`` / ``add_data`` / ``add_file`` /
    ``add_stdlib("cudadevrt")``, then ``link()``; then ``get_function`` works. ``-l<lib>``
    in ``nvcc_options`` links that library (as nvcc would), ``-rdc=true`` is implied.
    Generated: ``add_to_preamble(pa)``, ``add_function(func)``, then ``compile(nvcc,
    options, keep, no_extern_c)`` returns a SourceModule.
    """

    def __init__(
        self,
        template: str | None = None,
        link_options: Sequence[str] | None = None,
        keep: bool = False,
        no_extern_c: bool = False,
        arch: str | None = None,
        code: str | None = None,
        cache_dir: Any = None,
        include_dirs: Sequence[str] | None = None,
        message_handler: Any = None,
        log_verbose: bool = False,
        cuda_libdir: str | None = None,
        *,
        nvcc: str | None = None,
    ) -> None:
        self._form: str | None = None
        if template is not None and _is_program_name(template):
            nvcc, template = template, None  # PyCUDA's DynamicModule("nvcc")
        linker_arguments = (nvcc, link_options, message_handler, cuda_libdir)
        if template is not None:
            self._form = GENERATE
        elif any(argument is not None for argument in linker_arguments):
            self._form = LINK
        self._init_generated(template)
        self.nvcc = nvcc
        self.link_options = list(link_options or ())
        self.keep = keep
        self.no_extern_c = no_extern_c
        self._arch = arch
        self.code_option = code
        self.cache_dir = cache_dir
        self.include_dirs = list(include_dirs or ())
        self.message_handler = message_handler
        self.log_verbose = log_verbose
        self.cuda_libdir = cuda_libdir
        self._pieces: list[tuple[str, bytes, str]] = []
        self._libraries: list[str] = []
        self._lowered: dict[str, str] = {}
        self._textures: list[Any] = []

    @property
    def arch(self) -> str:
        """The arch linked for: the one given, else the current device's (asked when needed)."""
        if self._arch is None:
            self._arch = default_arch()
        return self._arch

    @arch.setter
    def arch(self, value: str) -> None:
        self._arch = value

    def _use(self, method: str) -> None:
        form = GENERATE if method in _GENERATING else LINK
        if self._form is None:
            self._form = form
        elif self._form != form:
            made = "generates source" if self._form == GENERATE else "links device code"
            raise TypeError(
                f"{method}() does not fit this DynamicModule: it {made}. Generated modules "
                f"use {', '.join(_GENERATING)}; PyCUDA's linker uses {', '.join(_LINKING)}. "
                "Make one of each"
            )

    # -- PyCUDA's linker --------------------------------------------------------------------

    def add_source(
        self, source: str, nvcc_options: Sequence[str] | None = None, name: str = "kernel.ltoir"
    ) -> DynamicModule:
        """Compile ``source`` (relocatable LTO-IR, NVRTC) and add it."""
        self._use("add_source")
        options = []
        for option in nvcc_options or ():
            if option.startswith("-l") and len(option) > 2:
                self._libraries.append(option[2:])  # a library to link, as nvcc reads it
            elif option not in ("-rdc=true", "--relocatable-device-code=true"):
                options.append(option)  # (LTO-IR is always relocatable here)
        built = build(
            source, nvcc=None, options=options, keep=self.keep, no_extern_c=self.no_extern_c,
            arch=self.arch, cache_dir=self.cache_dir, include_dirs=self.include_dirs,
            target="ltoir",
        )  # fmt: skip
        self._lowered.update(built.compiled.lowered_names)
        self._textures += built.textures
        self._pieces.append(("ltoir", built.compiled.code, name))
        return self

    def add_data(self, data: bytes, input_type: Any, name: str = "unknown") -> DynamicModule:
        self._use("add_data")
        kind = _input_type_name(input_type)
        self._pieces.append((kind, bytes(data), name))
        return self

    def add_file(self, filename: str, input_type: Any) -> DynamicModule:
        return self.add_data(Path(filename).read_bytes(), input_type, os.path.basename(filename))

    def add_stdlib(self, libname: str) -> DynamicModule:
        self._use("add_stdlib")
        path = find_stdlib(libname, self.cuda_libdir)
        self._pieces.append(("library", path.read_bytes(), path.name))
        return self

    def link(self) -> DynamicModule:
        """Link what was added into a cubin; then get_function works."""
        from cuda.core import Linker, LinkerOptions, ObjectCode

        self._use("link")
        added = {name for kind, _d, name in self._pieces if kind == "library"}
        for libname in dict.fromkeys(self._libraries):
            if f"lib{libname}.a" not in added:
                self.add_stdlib(libname)
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


def _input_type_name(input_type: Any) -> str:
    """``"ptx"`` ... for a name or a ``jit_input_type`` member (PyCUDA's spelling)."""
    name = str(getattr(input_type, "name", input_type)).lower()
    kind = _JIT_INPUT_NAMES.get(name, name)
    if kind not in _INPUT_TYPES:
        raise ValueError(f"input_type={input_type!r}: one of {', '.join(_INPUT_TYPES)}")
    return kind


class DynamicSourceModule(DynamicModule):
    """``DynamicSourceModule(source)``: PyCUDA's, a source whose kernels may launch kernels,
    compiled relocatable and linked with the device runtime now.

    ``DynamicSourceModule(template=None)`` (no source, or a template with placeholders): the
    specification's, a generated module (``add_to_preamble``, ``add_function``) that
    compiles itself (as a SourceModule) when a kernel, global or texture is first asked for,
    and again after more was added.
    """

    def __init__(
        self,
        template: str | None = None,
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
        generated = template is None or is_template(template)
        super().__init__(
            template if generated else None, keep=keep, no_extern_c=no_extern_c, arch=arch,
            code=code, cache_dir=cache_dir, include_dirs=include_dirs, cuda_libdir=cuda_libdir,
        )  # fmt: skip
        self.nvcc = nvcc
        self.options = options
        self._compiled: Any = None
        self._compiled_source: str | None = None
        if generated:
            self._form = GENERATE
            return
        self.add_source(template, nvcc_options=options)  # type: ignore[arg-type]
        self.add_stdlib("cudadevrt")
        self.link()

    def _generated(self) -> Any:
        source = self.source()
        if self._compiled is None or source != self._compiled_source:
            self._compiled = self.compile(
                self.nvcc, self.options, self.keep, self.no_extern_c, arch=self._arch,
                code=self.code_option, cache_dir=self.cache_dir, include_dirs=self.include_dirs,
            )  # fmt: skip
            self._compiled_source = source
        return self._compiled

    @property
    def module(self) -> Any:
        """The loaded module (generated form: compiled first if needed)."""
        return self._generated().module if self._form == GENERATE else self

    def get_function(self, name: str) -> Any:
        if self._form == GENERATE:
            return self._generated().get_function(name)
        return super().get_function(name)

    def get_global(self, name: str) -> tuple[int, int]:
        if self._form == GENERATE:
            return self._generated().get_global(name)
        return super().get_global(name)

    def get_texref(self, name: str) -> Any:
        if self._form == GENERATE:
            return self._generated().get_texref(name)
        return super().get_texref(name)

"""One NVRTC compile, through cuda.bindings (a numba-cuda dependency), with no driver needed.

Template instantiations compile a probe to PTX (to read layouts and types back) and their shims
to LTO-IR, where numbast may not be installed (a standalone generated module) and where no GPU
is (building a cache ahead of time). cuda.core's Program asks the driver before it makes PTX,
so this calls NVRTC directly. The include path is numba-cuda's own for its link-time NVRTC
compiles (the toolkit, CCCL, and ``CUDA_NVRTC_EXTRA_SEARCH_PATHS``), so a shim that compiles
here compiles when Numba links it too.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import NamedTuple

logger = logging.getLogger(__name__)

_GETTERS = {
    "cubin": ("nvrtcGetCUBINSize", "nvrtcGetCUBIN"),
    "ptx": ("nvrtcGetPTXSize", "nvrtcGetPTX"),
    "ltoir": ("nvrtcGetLTOIRSize", "nvrtcGetLTOIR"),
}


class NvrtcError(RuntimeError):
    """NVRTC rejected a translation unit; ``log`` is its whole output."""

    def __init__(self, message: str, log: str) -> None:
        super().__init__(f"{message}\n{log}".rstrip())
        self.log = log


class Compiled(NamedTuple):
    code: bytes
    lowered_names: dict[str, str]  # name expression -> its mangled name
    log: str


def compile_unit(
    unit: str,
    name: str,
    options: Sequence[str],
    target: str,
    name_expressions: Sequence[str] = (),
) -> Compiled:
    """Compile ``unit`` (called ``name`` in messages) to ``target`` ("cubin", "ptx" or
    "ltoir") with NVRTC ``options``; raises NvrtcError with the log when it does not compile."""
    from cuda.bindings import nvrtc

    if target not in _GETTERS:
        raise ValueError(f"NVRTC makes cubin, ptx or ltoir, not {target!r}")
    err, program = nvrtc.nvrtcCreateProgram(unit.encode(), name.encode(), 0, [], [])
    _check(err, "nvrtcCreateProgram")
    try:
        for expression in name_expressions:
            _check(nvrtc.nvrtcAddNameExpression(program, expression.encode())[0], expression)
        encoded = [option.encode() for option in options]
        logger.info("compiling %s to %s with NVRTC", name, target)
        (result,) = nvrtc.nvrtcCompileProgram(program, len(encoded), encoded)
        log = _log(program)
        if result != nvrtc.nvrtcResult.NVRTC_SUCCESS:
            raise NvrtcError(f"NVRTC could not compile {name} ({_error_string(result)}):", log)
        size_getter, getter = (getattr(nvrtc, n) for n in _GETTERS[target])
        err, size = size_getter(program)
        _check(err, size_getter.__name__)
        # A fresh writable buffer: ``b" " * n`` can be the interpreter's shared one-byte object
        # (n == 1), which NVRTC would overwrite for the whole process.
        buffer = bytearray(size)
        _check(getter(program, buffer)[0], getter.__name__)
        code = bytes(buffer)
        lowered = {}
        for expression in name_expressions:
            err, mangled = nvrtc.nvrtcGetLoweredName(program, expression.encode())
            _check(err, f"nvrtcGetLoweredName({expression})")
            lowered[expression] = mangled.decode()
    finally:
        nvrtc.nvrtcDestroyProgram(program)
    if target == "ptx":
        code = code.rstrip(b"\x00")
    return Compiled(code, lowered, log)


def numba_include_options() -> list[str]:
    """``-I`` options for the directories numba-cuda gives NVRTC when it compiles link files."""
    from numba.cuda import config
    from numba.cuda.cudadrv import nvrtc  # noqa: F401  (it initializes the search-path setting)
    from numba.cuda.cudadrv.nvrtc import get_cuda_paths, pathfinder

    directories = [get_cuda_paths()["include_dir"].info]
    cccl = pathfinder.locate_nvidia_header_directory("cccl")
    if cccl is not None:
        directories.append(cccl.abs_path)
    extra = getattr(config, "CUDA_NVRTC_EXTRA_SEARCH_PATHS", "") or ""
    directories += [d for d in extra.split(":") if d]
    return [f"-I{d}" for d in dict.fromkeys(directories)]


def unit_options(arch: str, *, lto: bool) -> list[str]:
    """The options numba-cuda compiles link files with, for ``arch`` (``sm_90``)."""
    arch = supported_arch(arch)
    options = [f"-arch={arch.replace('sm_', 'compute_') if not lto else arch}", "-rdc=true"]
    options += ["-std=c++17", *numba_include_options()]
    if lto:
        options.append("-dlto")
    return options


def supported_arch(arch: str) -> str:
    """``arch``, or the oldest arch this NVRTC compiles for when ``arch`` is older (a module
    generated for ``sm_50`` still instantiates its templates with CUDA 13, whose oldest is
    ``sm_75``; kernels are compiled for the GPU they run on regardless)."""
    from cuda.bindings import nvrtc

    digits = "".join(ch for ch in arch.removeprefix("sm_") if ch.isdigit())
    err, supported = nvrtc.nvrtcGetSupportedArchs()
    if err != nvrtc.nvrtcResult.NVRTC_SUCCESS or not supported or not digits:
        return arch
    oldest = min(supported)
    if int(digits) >= oldest:
        return arch
    logger.info("NVRTC cannot target %s; compiling for sm_%d, its oldest arch", arch, oldest)
    return f"sm_{oldest}"


def _log(program) -> str:
    from cuda.bindings import nvrtc

    err, size = nvrtc.nvrtcGetProgramLogSize(program)
    _check(err, "nvrtcGetProgramLogSize")
    buffer = bytearray(size)  # never ``b" " * size`` (see compile_unit)
    _check(nvrtc.nvrtcGetProgramLog(program, buffer)[0], "nvrtcGetProgramLog")
    return bytes(buffer).rstrip(b"\x00").decode(errors="replace")


def _error_string(result) -> str:
    from cuda.bindings import nvrtc

    _err, text = nvrtc.nvrtcGetErrorString(result)
    return text.decode() if isinstance(text, bytes) else str(text)


def _check(result, what: str) -> None:
    from cuda.bindings import nvrtc

    if result != nvrtc.nvrtcResult.NVRTC_SUCCESS:
        raise RuntimeError(f"NVRTC failed in {what}: {_error_string(result)}")

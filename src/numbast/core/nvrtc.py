"""The one NVRTC environment: how every shim, template probe and runtime-compiled source is
compiled, with which include path and which stand-in system headers.

NVRTC has no C or C++ standard library, and rejects functions and namespace-scope variables
that carry no execution space. Headers written for nvcc include ``<stdint.h>``, ``<cmath>`` or
``<type_traits>`` all the same, and clang (which parses them first) reads the host's. So every
compile here puts the stand-in headers shipped beside this module (``nvrtc_headers/``: small
headers written for this project that map the standard names onto libcu++ and CUDA's
built-ins) last on the include path, after the caller's directories and the toolkit's (cudart,
CCCL, cuRAND). The import system, template instantiation and the runtime compiler all compile
through :func:`compile_unit` with :func:`unit_options` or :func:`include_options`, so they see
one world; :func:`stand_in_digest` belongs in every cache key of something NVRTC compiled.

The compile itself calls cuda.bindings' NVRTC directly: cuda.core's Program asks the driver
before it makes PTX, and this must work where no GPU is (building a cache ahead of time) and
where numbast is not installed (a standalone module's copy of the runtime imports this module
under another name, so it imports nothing but the standard library and cuda.*).
"""

from __future__ import annotations

import functools
import hashlib
import logging
import os
from collections.abc import Callable, Iterable, Sequence
from typing import NamedTuple

logger = logging.getLogger(__name__)

STAND_IN_DIR_NAME = "nvrtc_headers"
DEFAULT_DEVICE = "-default-device"
# NVRTC's advice when a function or namespace-scope variable has no execution space.
_DEFAULT_DEVICE_ADVICE = "Consider using -default-device flag"

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


# -- the include path ----------------------------------------------------------------------


@functools.cache
def stand_in_dir() -> str | None:
    """The directory of the stand-in system headers, or None where there is none (a
    standalone module's runtime copy, with no numbast installed beside it)."""
    here = globals().get("__file__")
    if here:
        candidate = os.path.join(os.path.dirname(os.path.abspath(here)), STAND_IN_DIR_NAME)
    else:  # loaded from source text (a runtime copy): the installed numbast's, if any
        import importlib.util

        try:
            spec = importlib.util.find_spec("numbast.core")
        except ImportError:
            spec = None
        locations = list(spec.submodule_search_locations or ()) if spec is not None else []
        candidate = os.path.join(locations[0], STAND_IN_DIR_NAME) if locations else ""
    if candidate and os.path.isdir(candidate):
        return candidate
    logger.debug("no stand-in system headers for NVRTC (looked for %r)", candidate)
    return None


@functools.cache
def stand_in_digest() -> str:
    """sha256 over the stand-in headers (relative names and contents): a component of every
    cache key of compiled code, so that changing a stand-in misses."""
    digest = hashlib.sha256()
    root = stand_in_dir()
    if root is None:
        return "none"
    for relative in sorted(_stand_in_files(root)):
        with open(os.path.join(root, relative), "rb") as stream:
            data = stream.read()
        digest.update(f"{relative}\0{len(data)}\0".encode() + data)
    return digest.hexdigest()


def _stand_in_files(root: str) -> Iterable[str]:
    for folder, _dirs, files in os.walk(root):
        for file in files:
            yield os.path.relpath(os.path.join(folder, file), root).replace(os.sep, "/")


@functools.cache
def toolkit_include_dirs() -> tuple[str, ...]:
    """The CUDA headers NVRTC compiles against: cudart, CCCL and cuRAND, found by
    cuda.pathfinder (the wheels, conda, ``CUDA_PATH`` / ``CUDA_HOME``, system installs), as the
    parser (``ast_canopy.toolkit``) and numba-cuda find them; then the directory that holds
    CCCL as ``cccl/`` (:func:`cccl_holder_dir`), last: it may be a whole toolkit's include
    directory (the one CCCL came from), whose other headers must not shadow cudart's."""
    found = {lib: d for lib in ("cudart", "cccl", "curand") if (d := _toolkit_header_dir(lib))}
    if not found:
        logger.info("no CUDA toolkit headers found; NVRTC compiles without them")
    holder = cccl_holder_dir(found.get("cccl"))
    return tuple(dict.fromkeys([*found.values(), *([holder] if holder else [])]))


def use_header_finder(finder: Callable[[str], str | None] | None) -> None:
    """Find the toolkit's header directories with ``finder(library)`` (cuda.pathfinder's
    answers, remembered: the import system hands in the parser's ``ast_canopy.toolkit.
    header_dir``, so NVRTC and clang see one toolkit and a library cuda.pathfinder finds only
    through a subprocess is not looked up again in every process); None: ask cuda.pathfinder."""
    global _header_finder
    if finder is not _header_finder:
        _header_finder = finder
        toolkit_include_dirs.cache_clear()


_header_finder: Callable[[str], str | None] | None = None


def _toolkit_header_dir(library: str) -> str | None:
    if _header_finder is not None:
        return _header_finder(library)
    try:
        from cuda.pathfinder import find_nvidia_header_directory
    except ImportError:
        return None
    try:
        return find_nvidia_header_directory(library)
    except (RuntimeError, ValueError):  # an unknown or unsupported library
        return None


def cccl_holder_dir(cccl: str | None) -> str | None:
    """The directory that holds the CCCL include directory ``cccl`` as ``cccl/``, or None.

    CUDA 13 code includes libcu++ as ``<cccl/cuda/std/cstdint>`` (CUTLASS's
    ``CUDA_STD_HEADER(cstdint)`` under ``__CUDACC_VER_MAJOR__ >= 13``), which nvcc finds because
    it searches a toolkit's ``include`` as well as ``include/cccl``. CCCL need not sit in the
    cudart headers' directory (a CUDA 13 runtime wheel without CCCL, and a system toolkit's
    CCCL), so its own parent is searched too. A CCCL directory under another name (the CUDA 12
    wheels' ``nvidia/cuda_cccl/include``) has no such spelling: None."""
    if not cccl or os.path.basename(os.path.normpath(cccl)) != "cccl":
        return None
    return os.path.dirname(os.path.normpath(cccl))


def numba_cuda_search_dirs() -> list[str]:
    """What numba-cuda's NVRTC (which compiles a shim writer's ``.cu`` when a kernel links)
    must search besides what it adds itself (its cudart and CCCL directories): the directory
    that holds CCCL as ``cccl/``, then the stand-in headers."""
    holder = cccl_holder_dir(_toolkit_header_dir("cccl"))
    return [d for d in (holder, stand_in_dir()) if d is not None]


def include_dirs(user_dirs: Iterable[str] = ()) -> list[str]:
    """The one include path: ``user_dirs`` (the header's own, given by the caller) first, as
    clang searches ``-I`` before its system directories, then the toolkit's, then the stand-in
    headers, which only resolve what nothing else provides."""
    ordered = [str(d) for d in user_dirs]
    ordered += toolkit_include_dirs()
    stand_ins = stand_in_dir()
    if stand_ins is not None:
        ordered.append(stand_ins)
    return list(dict.fromkeys(ordered))


def include_options(user_dirs: Iterable[str] = ()) -> list[str]:
    """``-I`` options for :func:`include_dirs`."""
    return [f"-I{d}" for d in include_dirs(user_dirs)]


def unit_options(
    arch: str,
    *,
    lto: bool,
    user_dirs: Iterable[str] = (),
    extra: Sequence[str] = (),
) -> list[str]:
    """The options of a shim unit or template probe for ``arch`` (``sm_90``): LTO-IR for
    ``sm_90`` when ``lto``, else PTX for ``compute_90``; relocatable device code (shims are
    linked into kernels), C++17, the include path (``user_dirs`` first), then ``extra``
    (a header's own NVRTC options, such as ``-default-device``)."""
    arch = supported_arch(arch)
    options = [f"-arch={arch if lto else arch.replace('sm_', 'compute_')}", "-rdc=true"]
    options += ["-std=c++17", *include_options(user_dirs)]
    if lto:
        options.append("-dlto")
    return [*options, *extra]


@functools.cache
def accepts_option(option: str) -> bool:
    """Whether this NVRTC takes ``option`` (compiling an empty program with it: an unknown
    option is refused at once; a known one costs one empty compile, once per process). Never
    ask it of an option that writes files when compiling (``-pch``, ``-create-pch``, ``-time``):
    the empty compile would write them."""
    from cuda.bindings import nvrtc

    err, program = nvrtc.nvrtcCreateProgram(b"", b"option_probe.cu", 0, [], [])
    _check(err, "nvrtcCreateProgram")
    try:
        (result,) = nvrtc.nvrtcCompileProgram(program, 1, [option.encode()])
    finally:
        nvrtc.nvrtcDestroyProgram(program)
    return result != nvrtc.nvrtcResult.NVRTC_ERROR_INVALID_OPTION


@functools.cache
def has_automatic_pch() -> bool:
    """Whether this NVRTC (12.8 and newer) has automatic precompiled headers (``-pch``)."""
    return accepts_option("-pch-messages=false")  # asks without writing a precompiled header


def automatic_pch_options(directory: str) -> list[str]:
    """Options that make NVRTC precompile what a unit includes once, into ``directory``, and
    reuse it in later compiles of units that begin the same way; [] where this NVRTC has no
    precompiled headers.

    Give each group of compiles that begin the same way a private directory, and remove it
    after. NVRTC's default is one directory per process (``/tmp/__nvrtc_auto_pch_<pid>_0``,
    removed at exit only, with files of hundreds of MB for big headers), and NVRTC warns
    (#629-D and its neighbours) about every file there made from other options or another
    beginning: warnings about files the user never asked for, which would lead the log that an
    error quotes. Its notes on the files it creates and uses are off for the same reason."""
    if not has_automatic_pch():
        return []
    return ["-pch", f"-pch-dir={directory}", "-pch-messages=false"]


def wants_default_device(log: str) -> bool:
    """Whether NVRTC's ``log`` rejects a function or variable for lacking an execution space
    (then ``-default-device`` makes such a header compile)."""
    return _DEFAULT_DEVICE_ADVICE in log


# -- versions and arches ---------------------------------------------------------------------


@functools.cache
def nvrtc_version() -> tuple[int, int]:
    """NVRTC's (major, minor)."""
    from cuda.bindings import nvrtc

    err, major, minor = nvrtc.nvrtcVersion()
    _check(err, "nvrtcVersion")
    return major, minor


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

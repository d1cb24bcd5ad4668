"""Where the CUDA toolkit's headers are, and which CUDA version they are.

Search order: explicit directories from the caller; the pip wheels (through cuda.pathfinder);
``CUDA_HOME`` / ``CUDA_PATH``; ``/usr/local/cuda``. The parser, the shim compiler and the tests
all ask here, so they always agree on one toolkit. cuda.pathfinder's answers are remembered
across processes (``ast_canopy.toolkit_lookup``): for a library it does not find at once (cuRAND
where it is absent) it runs a subprocess.
"""

from __future__ import annotations

import functools
import logging
import os
import re
from pathlib import Path

logger = logging.getLogger(__name__)

# Followed by a character that ends the number: a block read may end inside the number.
_VERSION_RE = re.compile(rb"#define\s+CUDART_VERSION\s+(\d+)\D")


class ToolkitNotFoundError(RuntimeError):
    """No CUDA toolkit headers could be located."""


@functools.cache
def header_dir(libname: str) -> str | None:
    """cuda.pathfinder's header directory of ``libname`` (``"cudart"``, ``"cccl"``,
    ``"curand"``...), or None; remembered in the parser's cache directory until the installed
    packages or the toolkit environment change (``ast_canopy.toolkit_lookup``)."""
    try:
        from cuda.pathfinder import find_nvidia_header_directory
    except ImportError:
        return None
    from ast_canopy import toolkit_lookup

    try:
        return toolkit_lookup.header_dir(libname, find_nvidia_header_directory, _found_directly)
    except (RuntimeError, ValueError) as exc:  # pathfinder raises on unknown/unsupported libs
        logger.debug("cuda.pathfinder could not look up %s: %s", libname, exc)
        return None


# How pathfinder reports the steps that need no subprocess (its CTK-root canary runs one).
_DIRECT_STEPS = frozenset({"site-packages", "conda", "CUDA_PATH", "CUDA_HOME"})


def _found_directly(libname: str, answer: str | None) -> bool:
    """Whether pathfinder found ``libname`` without a subprocess: then asking it again in each
    process is cheaper than checking the remembered answer. None is no such answer (every step
    ran, the canary's too)."""
    if answer is None:
        return False
    try:  # the step it was found by (cuda-pathfinder 1.9); earlier versions: not known
        from cuda.pathfinder import locate_nvidia_header_directory
    except ImportError:
        return False
    # pathfinder remembers its answers in the process (functools.cache): no second search.
    located = locate_nvidia_header_directory(libname)
    return located is not None and located.abs_path == answer and located.found_via in _DIRECT_STEPS


def _env_toolkit_include() -> str | None:
    for var in ("CUDA_HOME", "CUDA_PATH"):
        root = os.environ.get(var)
        if root and (Path(root) / "include" / "cuda_runtime.h").is_file():
            return str(Path(root) / "include")
    if Path("/usr/local/cuda/include/cuda_runtime.h").is_file():
        return "/usr/local/cuda/include"
    return None


@functools.cache
def cudart_include_dir() -> str:
    """The directory holding ``cuda_runtime.h``, ``cuda_fp16.h`` and friends."""
    found = header_dir("cudart") or _env_toolkit_include()
    if found is None:
        raise ToolkitNotFoundError(
            'no CUDA toolkit headers found: install them with `pip install "numba-cuda[cu13]"`, '
            "or set CUDA_HOME to a toolkit root"
        )
    return found


@functools.cache
def cccl_include_dir() -> str | None:
    """The CCCL (libcu++/CUB/Thrust) include directory, when it is separate from cudart's."""
    found = header_dir("cccl")
    if found:
        return found
    candidate = Path(cudart_include_dir()) / "cccl"
    return str(candidate) if candidate.is_dir() else None


@functools.cache
def curand_include_dir() -> str | None:
    """The directory holding ``curand_kernel.h``, or None when cuRAND headers are absent."""
    found = header_dir("curand")
    if found:
        return found
    candidate = Path(cudart_include_dir()) / "curand_kernel.h"
    return str(candidate.parent) if candidate.is_file() else None


def cuda_include_dirs() -> list[str]:
    """Include directories for compiling CUDA C++ against this toolkit (cudart, CCCL, cuRAND)."""
    dirs = [cudart_include_dir(), cccl_include_dir(), curand_include_dir()]
    unique: list[str] = []
    for d in dirs:
        if d and d not in unique:
            unique.append(d)
    return unique


@functools.cache
def cuda_toolkit_root() -> str:
    """The toolkit root clang's ``--cuda-path`` wants: the parent of the include directory."""
    return str(Path(cudart_include_dir()).parent)


@functools.cache
def cuda_version() -> tuple[int, int]:
    """The toolkit version (major, minor) read from ``cuda_runtime_api.h``."""
    header = Path(cudart_include_dir()) / "cuda_runtime_api.h"
    match = None
    with open(header, "rb") as stream:
        # The define is near the top (line ~140 of 0.7 MB): read until it is found (a warm
        # import asks; reading and decoding the whole file cost it ~0.2 ms).
        text = b""
        for block in iter(lambda: stream.read(1 << 14), b""):
            text += block
            match = _VERSION_RE.search(text)
            if match is not None:
                break
    if match is None:
        raise ToolkitNotFoundError(f"cannot read CUDART_VERSION from {header}")
    number = int(match.group(1))
    return number // 1000, (number % 1000) // 10

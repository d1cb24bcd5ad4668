"""Which CUDA toolkit the shims will be compiled against, checked when a module is loaded."""

from __future__ import annotations

import re
import warnings
from pathlib import Path


class CUDAVersionWarning(UserWarning):
    """The CUDA toolkit found at import is older than the one the bindings were made from."""


def running_cuda_version() -> tuple[int, int] | None:
    """The version of the CUDA headers the shims will be compiled against (cuda.pathfinder's
    find, as numba-cuda's), from CUDART_VERSION; None when it cannot be told cheaply."""
    try:
        from cuda.pathfinder import find_nvidia_header_directory

        directory = find_nvidia_header_directory("cudart")
        if directory is None:
            return None
        with open(Path(directory) / "cuda_runtime_api.h", encoding="utf-8", errors="replace") as f:
            text = f.read(1 << 16)  # CUDART_VERSION is defined near the top
    except (ImportError, OSError, RuntimeError, ValueError):
        return None
    match = re.search(r"#define\s+CUDART_VERSION\s+(\d+)", text)
    if match is None:
        return None
    number = int(match.group(1))
    return number // 1000, (number % 1000) // 10


def warn_if_older_cuda(generated_with: tuple[int, int], module_name: str, regenerate: str) -> None:
    running = running_cuda_version()
    if running is not None and running < tuple(generated_with):
        warnings.warn(
            f"{module_name} was generated from the CUDA {generated_with[0]}.{generated_with[1]} "
            f"headers, but the CUDA toolkit found now is {running[0]}.{running[1]}: some bound "
            "declarations may not exist in it and kernels using them will fail to compile. "
            f"Install CUDA {generated_with[0]}.{generated_with[1]} or newer, or regenerate the "
            f"bindings with this toolkit ({regenerate}).",
            CUDAVersionWarning,
            stacklevel=3,
        )

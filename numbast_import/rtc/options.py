"""User options, spelled for nvcc as PyCUDA programs write them, turned into NVRTC options.

NVRTC accepts most device options under the same names. What it lacks is either host-only
(``-O3``, ``-Xcompiler``, ``-ccbin``: NVRTC compiles device code only, so they are dropped with
a log line) or spelled differently (``-Xptxas -v`` is ``--ptxas-options=-v``). Anything else
goes through unchanged, so NVRTC itself rejects an unknown option (a CompileError naming it).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence

logger = logging.getLogger(__name__)

# Options that take their value as the next argument when not written with '='.
_WITH_VALUE = {"-I", "--include-path", "-D", "--define-macro", "-U", "--undefine-macro"}
_HOST_ONLY_WITH_VALUE = {"-Xcompiler", "--compiler-options", "-ccbin", "--compiler-bindir"}
_HOST_ONLY = re.compile(
    r"^(-O[0-3s]?|--optimize(=.*)?|-keep|--keep|-Xcompiler=.*|--compiler-options=.*|-ccbin=.*)$"
)
_PTXAS = {"-Xptxas", "--ptxas-options"}
_ARCH = {"-arch", "--gpu-architecture"}


def nvrtc_options(options: Sequence[str]) -> tuple[list[str], str | None]:
    """NVRTC options for ``options``, and the arch they name (``-arch sm_80``), if any."""
    out: list[str] = []
    arch = None
    items = list(options)
    i = 0
    while i < len(items):
        opt = items[i]
        nxt = items[i + 1] if i + 1 < len(items) else None
        if opt in _HOST_ONLY_WITH_VALUE:
            logger.info("NVRTC compiles device code only: dropping host option %s %s", opt, nxt)
            i += 2
            continue
        if _HOST_ONLY.match(opt):
            logger.info("NVRTC compiles device code only: dropping host option %s", opt)
        elif opt in _PTXAS and nxt is not None:
            out.append(f"--ptxas-options={nxt}")
            i += 1
        elif opt in _ARCH and nxt is not None:
            arch = nxt
            i += 1
        elif opt.startswith(("-arch=", "--gpu-architecture=")):
            arch = opt.split("=", 1)[1]
        elif opt in _WITH_VALUE and nxt is not None:
            out.append(f"{opt}{'=' if opt.startswith('--') else ''}{nxt}")
            i += 1
        else:
            out.append(opt)
        i += 1
    return out, arch


def include_dirs_in(options: Sequence[str]) -> list[str]:
    """The include directories ``options`` name with ``-I``/``--include-path``."""
    dirs = []
    items = list(options)
    for i, opt in enumerate(items):
        if opt in ("-I", "--include-path") and i + 1 < len(items):
            dirs.append(items[i + 1])
        elif opt.startswith("--include-path="):
            dirs.append(opt.split("=", 1)[1])
        elif opt.startswith("-I") and len(opt) > 2:
            dirs.append(opt[2:])
    return dirs


_ARCH_NAME = re.compile(r"(sm|compute)_[0-9]+[a-z]?")


def check_arch(arch: str) -> str:
    """``arch`` if it names a GPU arch (``sm_90``, ``sm_90a``, ``compute_90``), else ValueError."""
    if not _ARCH_NAME.fullmatch(arch):
        raise ValueError(
            f"arch={arch!r} is not a GPU arch; write it as sm_<major><minor> (for example "
            "sm_90), or compute_<major><minor> for PTX"
        )
    return arch

"""The clang command line for parsing a CUDA C++ header for the device side of one GPU arch."""

from __future__ import annotations

import re
from collections.abc import Sequence

from ast_canopy.toolchain import ClangToolkit

# "sm_90", "sm_90a", "sm_100f", "compute_90", "90", "9.0", 90.
_ARCH_RE = re.compile(r"^(?:sm_|compute_)?(\d{2,3})([af]?)$")
_DOTTED_RE = re.compile(r"^(\d{1,2})\.(\d)$")
_STD_RE = re.compile(r"^(?:c|gnu)\+\+(?:11|14|17|20|23|26|1z|2a|2b|2c)$")


def normalize_arch(compute_capability: str | int) -> str:
    """Return clang's spelling (``sm_90``) of an arch given as ``sm_90``, ``90`` or ``9.0``.

    Raises ValueError for anything else.
    """
    text = str(compute_capability).strip().lower()
    dotted = _DOTTED_RE.match(text)
    if dotted:
        text = dotted.group(1) + dotted.group(2)
    match = _ARCH_RE.match(text)
    if match is None:
        raise ValueError(
            f"unknown GPU arch {compute_capability!r}: give a compute capability such as "
            "'sm_90', 'sm_90a', '90' or '9.0'"
        )
    return f"sm_{match.group(1)}{match.group(2)}"


def check_cxx_standard(cxx_standard: str) -> str:
    if not _STD_RE.match(cxx_standard):
        raise ValueError(
            f"unknown C++ standard {cxx_standard!r}: use one of c++17, c++20, gnu++17, ..."
        )
    return cxx_standard


def define_flag(define: str) -> str:
    """``NAME`` or ``NAME=VALUE`` (a leading ``-D`` is tolerated) -> ``-DNAME=VALUE``."""
    name = define.removeprefix("-D")
    if not name or not re.match(r"^[A-Za-z_]\w*(\(.*\))?(=.*)?$", name, re.DOTALL):
        raise ValueError(f"invalid define {define!r}: expected NAME or NAME=VALUE")
    return f"-D{name}"


def clang_args(
    arch: str,
    tk: ClangToolkit,
    cxx_standard: str,
    additional_includes: Sequence[str] = (),
    defines: Sequence[str] = (),
) -> list[str]:
    """Every argument but the file name.

    The same list (for the same inputs) keys the precompiled prelude, so it must not contain
    anything that varies from one parse to the next.
    """
    args = [
        "-x",
        "cuda",
        "--cuda-device-only",
        f"--cuda-gpu-arch={arch}",
        f"--cuda-path={tk.cuda_path}",
        # Only stops clang from looking for libdevice to link; a parse links nothing.
        "-nocudalib",
        f"-std={cxx_standard}",
        # clang 22 knows CUDA up to 12.x and warns about newer toolkits it parses fine.
        "-Wno-unknown-cuda-version",
        # `operator"" _suffix` (with a space) is deprecated since C++23 and clang says so for
        # every one; CUTLASS's numeric types declare a dozen. Style, not meaning.
        "-Wno-deprecated-literal-operator",
        # The header is the main file here, and headers say `#pragma once`.
        "-Wno-pragma-once-outside-header",
    ]
    # Separate "-isystem" tokens: libclang-ng injects its own libc++ unless it sees one, and
    # that libc++ does not work with clang's CUDA wrappers; so there is always at least one.
    for directory in tk.system_includes or (tk.cudart_include,):
        args += ["-isystem", directory]
    for directory in additional_includes:
        args.append(f"-I{directory}")
    args += [define_flag(d) for d in defines]
    return args

"""The CUDA toolkit as clang's CUDA driver wants to see it.

clang accepts ``--cuda-path=ROOT`` only when ``ROOT/include`` and ``ROOT/bin`` both exist (and,
unless ``-nocudalib``, ``ROOT/nvvm/libdevice``). The pip wheels put the headers in
``site-packages/nvidia/cu13/include`` with no ``bin/`` beside it, so pointing ``--cuda-path`` at
the wheel's parent fails with "cannot find CUDA installation". We therefore give clang a small
stand-in root in the cache directory: ``include`` links to the real header directory and
``bin`` is empty. ``-nocudalib`` is passed too: it only stops clang from looking for libdevice
to link, which a parse never does (unlike ``-nocudainc``, which would unset ``__CUDACC__``).

The CUDA 13 wheel ``nvidia-cuda-runtime`` ships no ``crt/`` headers (``crt/host_defines.h``...);
they come in ``nvidia-cuda-crt``, which installs into the same directory. When it is missing
but a full toolkit (``CUDA_HOME``, ``CUDA_PATH``, ``/usr/local/cuda``) has ``crt/``, the
stand-in ``include`` becomes a directory of links to every entry of the wheel's headers plus
that ``crt/``, with a warning naming the fix.
"""

from __future__ import annotations

import functools
import hashlib
import logging
import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from ast_canopy import cache, toolkit

logger = logging.getLogger(__name__)

_CRT_MARKER = Path("crt") / "host_defines.h"
_LAYOUT_VERSION = "1"


@dataclass(frozen=True)
class ClangToolkit:
    """What the clang command line needs to find the CUDA headers."""

    cuda_path: str  # for --cuda-path
    system_includes: tuple[str, ...]  # -isystem directories, in order
    cudart_include: str  # the real header directory, for messages


def _has_crt(include_dir: Path) -> bool:
    return (include_dir / _CRT_MARKER).is_file()


def _usable_as_cuda_path(root: Path) -> bool:
    return (root / "bin").is_dir() and _has_crt(root / "include")


def _fallback_roots() -> list[str]:
    """Full toolkits that may lend their crt/ headers, in order of preference."""
    roots = [os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH"), "/usr/local/cuda"]
    return [root for root in roots if root]


def _fallback_crt_dir() -> Path | None:
    for root in _fallback_roots():
        for include in (
            Path(root) / "include",
            Path(root) / "targets" / "x86_64-linux" / "include",
        ):
            if _has_crt(include):
                return (include / "crt").resolve()
    return None


def _layout_key(cudart_include: Path, crt_dir: Path | None) -> str:
    parts = [_LAYOUT_VERSION, str(cudart_include)]
    if crt_dir is not None:
        # The per-entry links must follow the wheel's contents, so its listing is in the key.
        parts += [str(crt_dir), *sorted(os.listdir(cudart_include))]
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()[:16]


def _populate_layout(root: Path, cudart_include: Path, crt_dir: Path | None) -> None:
    (root / "bin").mkdir(mode=0o700)
    if crt_dir is None:
        (root / "include").symlink_to(cudart_include, target_is_directory=True)
        return
    include = root / "include"
    include.mkdir(mode=0o700)
    for entry in os.listdir(cudart_include):
        if entry != "crt":
            (include / entry).symlink_to(cudart_include / entry)
    (include / "crt").symlink_to(crt_dir, target_is_directory=True)


def _stand_in_root(cudart_include: Path, crt_dir: Path | None) -> Path:
    base, _persistent = cache.working_dir()
    final = base / f"toolkit-{_layout_key(cudart_include, crt_dir)}"
    if (final / "bin").is_dir() and (final / "include").exists():
        return final
    # Build beside the final name and rename into place, so that a concurrent parse in another
    # process never sees a half-made layout; the loser of a rename race removes its copy.
    scratch = Path(tempfile.mkdtemp(prefix=".toolkit-", dir=base))
    try:
        _populate_layout(scratch, cudart_include, crt_dir)
        os.rename(scratch, final)
    except OSError:
        if not (final / "bin").is_dir():
            raise
    finally:
        if scratch.exists():
            shutil.rmtree(scratch, ignore_errors=True)
    return final


def _cudart_include(cudatoolkit_include_dirs: list[str] | None) -> Path:
    for directory in cudatoolkit_include_dirs or ():
        if (Path(directory) / "cuda_runtime.h").is_file():
            return Path(directory).resolve()
    return Path(toolkit.cudart_include_dir()).resolve()


def _cccl_include(cccl_root: str | None, explicit_toolkit: Path | None) -> str | None:
    if not cccl_root:
        # An explicitly chosen toolkit brings its own CCCL (CUDA 13 keeps it in include/cccl).
        if explicit_toolkit is not None and (explicit_toolkit / "cccl").is_dir():
            return str(explicit_toolkit / "cccl")
        return toolkit.cccl_include_dir()
    root = Path(cccl_root)
    # Accept the include directory itself or a CCCL source checkout.
    for candidate in (root, root / "include", root / "libcudacxx" / "include"):
        if (candidate / "cuda" / "std" / "version").is_file():
            return str(candidate)
    raise FileNotFoundError(
        f"cccl_root={cccl_root!r} holds no CCCL headers (looked for cuda/std/version in it, its "
        "include/ and libcudacxx/include/); pass the CCCL include directory or leave it unset."
    )


def clang_toolkit(
    cudatoolkit_include_dirs: list[str] | None = None, cccl_root: str | None = None
) -> ClangToolkit:
    """Find the toolkit headers and give clang a ``--cuda-path`` it accepts."""
    key = (tuple(cudatoolkit_include_dirs or ()), cccl_root, str(cache.working_dir()[0]))
    found = _clang_toolkit(*key)
    if not all(Path(p).exists() for p in (found.cuda_path, *found.system_includes)):
        # Its files in the cache directory were removed since (numbast-cache clear --all, or
        # by hand): made again.
        _clang_toolkit.cache_clear()
        found = _clang_toolkit(*key)
    return found


@functools.lru_cache(maxsize=16)
def _clang_toolkit(
    include_dirs: tuple[str, ...], cccl_root: str | None, _cache_dir: str
) -> ClangToolkit:
    # Memoized (the cache directory is part of the key) so that the filesystem probing and the
    # crt warning happen once per process, not once per parse.
    cudatoolkit_include_dirs = list(include_dirs)
    cudart_include = _cudart_include(cudatoolkit_include_dirs)
    real_root = cudart_include.parent
    if _usable_as_cuda_path(real_root):
        cuda_path = real_root
    else:
        crt_dir = None
        if not _has_crt(cudart_include):
            crt_dir = _fallback_crt_dir()
            if crt_dir is None:
                raise toolkit.ToolkitNotFoundError(
                    f"the CUDA headers in {cudart_include} lack crt/host_defines.h, which "
                    "cuda_runtime.h includes: install them with `pip install nvidia-cuda-crt` "
                    "(same version as nvidia-cuda-runtime), or set CUDA_HOME to a full toolkit"
                )
            logger.warning(
                "the CUDA headers in %s lack crt/; borrowing %s. Install nvidia-cuda-crt "
                "(`pip install nvidia-cuda-crt`) so the crt headers match the toolkit version.",
                cudart_include,
                crt_dir,
            )
        cuda_path = _stand_in_root(cudart_include, crt_dir)

    system_includes: list[str] = []
    explicit = cudart_include if cudatoolkit_include_dirs else None
    cccl = _cccl_include(cccl_root, explicit)
    if cccl:
        system_includes.append(cccl)
    for directory in cudatoolkit_include_dirs or ():
        if Path(directory).resolve() != cudart_include and directory not in system_includes:
            system_includes.append(directory)
    curand = toolkit.curand_include_dir() if not cudatoolkit_include_dirs else None
    if curand and Path(curand).resolve() != cudart_include:
        system_includes.append(curand)
    if not _provides_curand(cudart_include, cudatoolkit_include_dirs, curand):
        system_includes.append(str(_curand_stub_dir()))
    return ClangToolkit(str(cuda_path), tuple(system_includes), str(cudart_include))


def _provides_curand(
    cudart_include: Path, extra_dirs: list[str] | None, curand: str | None
) -> bool:
    dirs = [cudart_include, *(Path(d) for d in extra_dirs or ())]
    if curand:
        dirs.append(Path(curand))
    return any((d / "curand_mtgp32_kernel.h").is_file() for d in dirs)


def _curand_stub_dir() -> Path:
    # clang's CUDA runtime wrapper includes curand_mtgp32_kernel.h unconditionally; without the
    # cuRAND headers an empty stand-in keeps that include from failing.
    base, _persistent = cache.working_dir()
    stub = base / "stub-include"
    header = stub / "curand_mtgp32_kernel.h"
    if not header.is_file():
        stub.mkdir(mode=0o700, exist_ok=True)
        header.write_text("/* ast_canopy: stand-in for the absent cuRAND header */\n")
    return stub

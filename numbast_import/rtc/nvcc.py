"""Compiling with an nvcc executable, for programs that ask for one (``nvcc="/path/nvcc"``)
and for what NVRTC cannot do: preprocessing (``preprocess_source``) and, when no nvfatbin
library is present, fatbins."""

from __future__ import annotations

import functools
import logging
import os
import shutil
import subprocess
from collections.abc import Sequence
from pathlib import Path

from numbast_import.rtc.errors import CompileError
from numbast_import.rtc.nvrtc import Compiled

logger = logging.getLogger(__name__)

_TARGET_FLAG = {"cubin": "--cubin", "ptx": "--ptx", "fatbin": "--fatbin"}


class NvccNotFoundError(FileNotFoundError):
    """No nvcc executable where one was needed."""


def find_nvcc(nvcc: str = "nvcc") -> str | None:
    """The path of ``nvcc`` (a name on PATH or a path), else the toolkit's under CUDA_HOME /
    CUDA_PATH when ``nvcc`` is the plain name, else None."""
    found = shutil.which(nvcc)
    if found or nvcc != "nvcc":
        return found
    for var in ("CUDA_HOME", "CUDA_PATH"):
        root = os.environ.get(var)
        if root and (Path(root) / "bin" / "nvcc").is_file():
            return str(Path(root) / "bin" / "nvcc")
    return None


def require_nvcc(nvcc: str, why: str) -> str:
    path = find_nvcc(nvcc)
    if path is None:
        raise NvccNotFoundError(
            f"{why} needs an nvcc executable and {nvcc!r} was not found (on PATH, or under "
            "CUDA_HOME/bin); install the CUDA toolkit's nvcc (pip install nvidia-cuda-nvcc) "
            "or pass nvcc='/path/to/nvcc'"
        )
    return path


@functools.cache
def nvcc_version(nvcc: str = "nvcc") -> str | None:
    """``nvcc --version`` as text, or None when there is no such nvcc."""
    path = find_nvcc(nvcc)
    if path is None:
        return None
    done = subprocess.run([path, "--version"], capture_output=True, text=True, check=False)
    return done.stdout


def nvcc_release(nvcc: str = "nvcc") -> tuple[int, int] | None:
    """(major, minor) from ``nvcc --version`` ("Cuda compilation tools, release 13.0, ..."),
    or None when there is no such nvcc or it does not say."""
    import re

    found = re.search(r"release (\d+)\.(\d+)", nvcc_version(nvcc) or "")
    return (int(found.group(1)), int(found.group(2))) if found else None


def run_nvcc(
    unit: str,
    name: str,
    nvcc: str,
    options: Sequence[str],
    arch: str,
    code: str | None,
    target: str,
    workdir: Path,
) -> Compiled:
    """Compile ``unit`` in ``workdir`` (where the intermediate files stay) to ``target``."""
    path = require_nvcc(nvcc, f"compiling {name} with nvcc")
    source = workdir / name
    source.write_text(unit)
    output = workdir / f"{Path(name).stem}.{target}"
    command = [path, _TARGET_FLAG[target], "-arch", arch]
    if code is not None:
        command += ["-code", code]
    command += [*options, "-o", str(output), str(source)]
    logger.info("compiling %s to %s: %s", name, target, " ".join(command))
    done = subprocess.run(command, capture_output=True, text=True, cwd=workdir, check=False)
    log = done.stdout + done.stderr
    if done.returncode != 0:
        raise CompileError(f"nvcc could not compile {name}", log, unit, name, command)
    return Compiled(output.read_bytes(), target, {}, log)


def preprocess(unit: str, nvcc: str, options: Sequence[str], workdir: Path) -> str:
    """``unit`` after the preprocessor (``nvcc --preprocess``)."""
    path = require_nvcc(nvcc, "preprocess_source (NVRTC has no preprocess-only mode)")
    source = workdir / "kernel.cu"
    source.write_text(unit)
    command = [path, "--preprocess", *options, str(source)]
    done = subprocess.run(command, capture_output=True, text=True, cwd=workdir, check=False)
    if done.returncode != 0:
        raise CompileError(
            "nvcc could not preprocess the source",
            done.stdout + done.stderr,
            unit,
            "kernel.cu",
            command,
        )
    return done.stdout

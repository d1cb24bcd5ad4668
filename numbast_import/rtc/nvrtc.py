"""The runtime compiler's NVRTC: ``numbast.core.nvrtc`` (one NVRTC environment for the import
system, templates and SourceModule), with its errors as CompileError and its version stamped.

cuda.core's Program takes typed options only, and asks the driver before it makes PTX; PyCUDA
programs pass nvcc-style option strings, and PTX must build on machines without a GPU. So the
compile itself is a direct NVRTC call; loading the result is cuda.core's (``module``).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from numbast_import.rtc.errors import CompileError
from numbast_import.rtc.options import Target

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Compiled:
    """A compiler's output: the binary, the lowered (mangled) name of each name expression,
    and the compiler's log (warnings), possibly empty."""

    code: bytes
    target: str
    lowered_names: dict[str, str] = field(default_factory=dict)
    log: str = ""


def nvrtc_version_stamped(root: Path) -> str:
    """NVRTC's version without loading it (loading costs tens of milliseconds, more than a
    cache hit should): a stamp file under ``root`` remembers the version of the library this
    environment loads, checked against that file's size and mtime. The stamp is per
    environment (interpreter prefix, CUDA_HOME, CUDA_PATH, LD_LIBRARY_PATH)."""
    import hashlib
    import json
    import os
    import sys

    environment = json.dumps(
        [
            sys.prefix,
            *(os.environ.get(v, "") for v in ("CUDA_HOME", "CUDA_PATH", "LD_LIBRARY_PATH")),
        ]
    )
    stamp = root / f"nvrtc-{hashlib.sha256(environment.encode()).hexdigest()[:16]}.json"
    try:
        recorded = json.loads(stamp.read_text())
        info = os.stat(recorded["path"])
        if [info.st_size, info.st_mtime_ns] == recorded["stat"]:
            return str(recorded["version"])
    except (OSError, ValueError, KeyError, TypeError):
        pass
    version = nvrtc_version()
    try:
        from cuda.pathfinder import load_nvidia_dynamic_lib

        path = load_nvidia_dynamic_lib("nvrtc").abs_path
        info = os.stat(path)
        record = {"path": path, "stat": [info.st_size, info.st_mtime_ns], "version": version}
        root.mkdir(mode=0o700, parents=True, exist_ok=True)
        from ast_canopy.cache_files import write_atomically

        write_atomically(stamp, json.dumps(record).encode())
    except Exception as exc:  # no path to stamp (a system library), or an unwritable root
        logger.debug("cannot stamp the NVRTC version under %s: %s", root, exc)
    return version


def nvrtc_version() -> str:
    from numbast.core.nvrtc import nvrtc_version as version

    major, minor = version()
    return f"nvrtc {major}.{minor}"


def run_nvrtc(
    unit: str,
    name: str,
    options: Sequence[str],
    target: str,
    name_expressions: Sequence[str] = (),
) -> Compiled:
    """Compile ``unit`` (named ``name`` in messages) to ``target``: cubin, ptx or ltoir.

    Raises CompileError with NVRTC's whole log when the source does not compile.
    """
    from numbast.core.nvrtc import NvrtcError, compile_unit

    logger.info("compiling %s to %s with NVRTC: %s", name, target, " ".join(options))
    try:
        code, lowered, log = compile_unit(unit, name, options, target, name_expressions)
    except NvrtcError as exc:
        raise CompileError(
            str(exc).splitlines()[0].rstrip(":"), exc.log, unit, name, ["nvrtc", *options]
        ) from None
    return Compiled(code, target, lowered, log)


def run_nvrtc_fatbin(
    unit: str,
    name: str,
    options: Sequence[str],
    targets: Sequence[Target],
    name_expressions: Sequence[str] = (),
) -> Compiled:
    """A fatbin of ``unit`` with one cubin (``sm_XX``) or PTX (``compute_XX``) per target,
    each compiled by NVRTC (``options`` without an arch), put together by nvfatbin.

    Raises CompileError as run_nvrtc does, and RuntimeError naming the package to install
    when the nvfatbin library is missing."""
    parts = []
    logs = []
    lowered: dict[str, str] = {}
    for target in targets:
        arch_option = f"--gpu-architecture={target.arch}"
        compiled = run_nvrtc(unit, name, [arch_option, *options], target.kind, name_expressions)
        parts.append((target, compiled.code))
        logs.append(compiled.log)
        lowered = lowered or compiled.lowered_names  # one source: the same names for each
    log = "\n".join(text for text in logs if text)
    return Compiled(make_fatbin(parts), "fatbin", lowered, log)


def nvfatbin_available() -> bool:
    """Whether the nvfatbin library (the ``nvidia-nvfatbin`` wheel) can be loaded."""
    try:
        from cuda.pathfinder import load_nvidia_dynamic_lib

        load_nvidia_dynamic_lib("nvfatbin")
    except Exception as exc:  # pathfinder raises its own DynamicLibNotFoundError
        logger.debug("no nvfatbin library: %s", exc)
        return False
    return True


def make_fatbin(parts: Sequence[tuple[Target, bytes]]) -> bytes:
    """The fatbin holding ``parts`` (cubins and PTX for their targets)."""
    if not nvfatbin_available():
        raise RuntimeError(
            "a fatbin for several GPU targets needs the nvfatbin library: pip install "
            'nvidia-nvfatbin (or "cuda-toolkit[nvfatbin]"), or pass nvcc="nvcc" to compile '
            "with nvcc"
        )
    from cuda.bindings import nvfatbin

    handle = nvfatbin.create([], 0)
    try:
        for target, code in parts:
            number = target.arch.split("_", 1)[1]
            identifier = f"{target.kind}_{number}"
            if target.kind == "ptx":
                text = code if code.endswith(b"\x00") else code + b"\x00"
                nvfatbin.add_ptx(handle, text, len(text), number, identifier, "")
            else:
                nvfatbin.add_cubin(handle, code, len(code), number, identifier)
        buffer = bytearray(nvfatbin.size(handle))  # a fresh buffer (see numbast.core.nvrtc)
        nvfatbin.get(handle, buffer)
    finally:
        nvfatbin.destroy(handle)
    return bytes(buffer)

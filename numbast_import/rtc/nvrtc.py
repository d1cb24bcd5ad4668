"""Compiling with NVRTC through cuda.bindings.

cuda.core's Program takes typed options only, and asks the driver before it makes PTX; PyCUDA
programs pass nvcc-style option strings, and PTX must build on machines without a GPU. So the
compile itself is a direct NVRTC call; loading the result is cuda.core's (``module``).
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from numbast_import.rtc.errors import CompileError

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
        partial = stamp.with_suffix(f".{os.getpid()}.tmp")
        partial.write_text(json.dumps(record))
        os.replace(partial, stamp)
    except Exception as exc:  # no path to stamp (a system library), or an unwritable root
        logger.debug("cannot stamp the NVRTC version under %s: %s", root, exc)
    return version


@functools.cache
def nvrtc_version() -> str:
    from cuda.bindings import nvrtc

    err, major, minor = nvrtc.nvrtcVersion()
    if err != nvrtc.nvrtcResult.NVRTC_SUCCESS:
        raise RuntimeError(f"NVRTC failed in nvrtcVersion: {err}")
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
    from numbast.runtime.nvrtc import NvrtcError, compile_unit

    logger.info("compiling %s to %s with NVRTC: %s", name, target, " ".join(options))
    try:
        code, lowered, log = compile_unit(unit, name, options, target, name_expressions)
    except NvrtcError as exc:
        raise CompileError(
            str(exc).splitlines()[0].rstrip(":"), exc.log, unit, name, ["nvrtc", *options]
        ) from None
    return Compiled(code, target, lowered, log)

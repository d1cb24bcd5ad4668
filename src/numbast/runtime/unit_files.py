"""A standalone module's shims linked from the units compiled beside it when it was generated
(``numbast.core.unit_files``): a kernel links the units holding the shims it calls, each read
from its file when a kernel first links it, so neither what a kernel links nor its NVRTC work
grows with the header.

A unit is compiled from source here instead (once per process) when no file fits: the GPU's
arch is not among those the module was generated for, or this toolkit's NVRTC is older than the
one that compiled the files (nvJitLink links LTO-IR of its own version or older). A module whose
directory is missing (moved without it, or generated before units) links its shims from source,
as before.
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
from collections.abc import Mapping, Sequence
from typing import Any

from ..core.unit_files import FORMAT, INDEX, units_directory
from . import shim_units  # noqa: F401  (ShimLibrary.use_units links through it: carried with this)
from .shim_links import compile_ltoir, runtime_part

logger = logging.getLogger(__name__)


def use_unit_files(library: Any, module_file: str) -> bool:
    """Link ``library``'s shims from the units beside ``module_file`` where they are; returns
    whether it does."""
    directory = units_directory(module_file)
    try:
        text = (directory / INDEX).read_text(encoding="utf-8")
    except FileNotFoundError:
        return False
    except OSError as exc:
        logger.warning("%s: cannot read %s (%s); its shims compile from source", module_file,
                       directory / INDEX, exc)  # fmt: skip
        return False
    try:
        index = json.loads(text)
        units = [(unit, tuple(names)) for unit, names in index["units"]]
        archs: Mapping[str, Sequence[str]] = index["archs"]
        compiled_by = tuple(index["nvrtc"])
    except (ValueError, KeyError, TypeError):
        index, units = {}, []
    known = {name for name, _text in library.all_shims}
    if index.get("format") != FORMAT or any(n not in known for _u, ns in units for n in ns):
        logger.warning(
            "%s: the shim units in %s are not this module's (another numbast, or another "
            "generation); its shims compile from source: generate the module again",
            module_file, directory,
        )  # fmt: skip
        return False

    def load(unit: str, shims: list[tuple[str, str]]) -> bytes:
        arch = _arch(library, archs)
        if unit in archs.get(arch, ()) and _links_ltoir_of(compiled_by):
            try:
                return (directory / arch / f"{unit}.ltoir").read_bytes()
            except OSError as exc:
                logger.warning("%s: shim unit %s unreadable (%s); compiling it", module_file,
                               unit, exc)  # fmt: skip
        body = "\n".join(text for _name, text in shims)
        return _compile(library, arch, f"{library.preamble}\n\n{body}\n")

    def compile_shim(source: str) -> bytes:
        return _compile(library, _arch(library, archs), source)

    identity = hashlib.sha256(text.encode()).hexdigest()
    library.use_units(units, load, compile_shim, identity)
    return True


def _arch(library: Any, archs: Mapping[str, Sequence[str]]) -> str:
    """The arch kernels link for: the library's, else the current GPU's; where there is no
    GPU (compiling ahead of time), the first the module was generated for."""
    if library.arch is None and archs:
        from numba.cuda.cudadrv.error import CudaSupportError

        try:
            return library.link_arch()
        except CudaSupportError:
            return next(iter(archs))
    return library.link_arch()


def _links_ltoir_of(compiled_by: tuple[int, ...]) -> bool:
    from cuda.bindings import nvrtc

    _err, major, minor = nvrtc.nvrtcVersion()
    return compiled_by[0] == major and tuple(compiled_by) <= (major, minor)


def _compile(library: Any, arch: str, source: str) -> bytes:
    """LTO-IR of ``source`` for ``arch``: with numbast's NVRTC environment where numbast is
    installed (its stand-in headers, the header's own options), else numba-cuda's NVRTC."""
    if runtime_part("core.nvrtc", required=False) is not None:
        return compile_ltoir(source, library.unit_options(arch, lto=True))
    from numba.cuda.cudadrv import nvrtc

    digits = re.sub(r"\D", "", arch)
    code, _log = nvrtc.compile(source, "numbast_shims.cu", (int(digits[:-1]), int(digits[-1])),
                               ltoir=True)  # fmt: skip
    return code

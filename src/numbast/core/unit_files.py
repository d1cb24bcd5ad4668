"""Shim units written beside a standalone module (``python -m numbast``): the layout that the
generator (``numbast.static.unit_files``) writes and the runtime (``numbast.runtime.unit_files``)
reads.

A module with many shims has them compiled in units of ``UNIT_SHIMS`` when it is generated, one
LTO-IR file per unit and GPU Arch, in ``<module stem>_shims/`` beside it; a kernel links the
units holding the shims it calls, as the import system's modules do (issue 22), instead of
NVRTC compiling the header and every shim used so far for each kernel. The index names each
unit by a digest of what it is compiled from, and its shims. Standard library only: the
generator never imports Numba.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from pathlib import Path

# Bump when the layout or what a unit is compiled from changes.
FORMAT = 1
INDEX = "units.json"
# Shims per unit; a module with more shims than one unit is compiled in units.
UNIT_SHIMS = 16


def units_directory(module_path: str | Path) -> Path:
    """The directory of a module's shim units: ``out/cuda_bf16_shims/`` for ``out/cuda_bf16.py``."""
    path = Path(module_path)
    return path.with_name(f"{path.stem}_shims")


def wants_units(shim_count: int) -> bool:
    """Whether a module with ``shim_count`` shims is compiled in units."""
    return shim_count > UNIT_SHIMS


def cut_units(names: Sequence[str]) -> list[tuple[str, ...]]:
    """The shims' names, in order, cut into units."""
    return [tuple(names[i : i + UNIT_SHIMS]) for i in range(0, len(names), UNIT_SHIMS)]


def unit_id(preamble: str, options: Sequence[str], shims: Sequence[tuple[str, str]]) -> str:
    """The name of a unit: a digest of its preamble, NVRTC's options but the arch, and its
    shims (name, text)."""
    digest = hashlib.sha256(f"numbast shim unit {FORMAT}".encode())
    for part in (preamble, *options, *(item for shim in shims for item in shim)):
        digest.update(len(part).to_bytes(8, "little") + part.encode("utf-8", "surrogateescape"))
    return digest.hexdigest()[:32]

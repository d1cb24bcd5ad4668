"""The shim units a standalone module links (``numbast.core.unit_files``), compiled with NVRTC
when ``python -m numbast`` writes the module: one LTO-IR file per unit and GPU Arch, and the
index, in ``<module stem>_shims/`` beside it.

Units need a header that defines no symbol of its own (a non-inline function, a variable, a
``__global__`` function): each unit would define it again. NVRTC is asked, as the import system
asks (the header alone compiled to PTX holds no visible or global symbol); otherwise, or when
the header alone does not compile, no units are written and the module's kernels compile its
shims from source, as before. A unit NVRTC rejects (a shim of a declaration it cannot compile)
is left out: a kernel calling one of its shims compiles that unit from source, which reports
NVRTC's error then. NVRTC precompiles the header once per arch for the units (``-pch``).
"""

from __future__ import annotations

import json
import logging
import shutil
import tempfile
from collections.abc import Sequence
from pathlib import Path

from numbast.core.ptx_symbols import header_symbols
from numbast.core.unit_files import (
    FORMAT,
    INDEX,
    cut_units,
    unit_id,
    units_directory,
    wants_units,
)

logger = logging.getLogger(__name__)


def write_unit_files(
    module_path: Path,
    preamble: str | None,
    shims: Sequence[tuple[str, str]],
    archs: Sequence[str],
    include_dirs: Sequence[str] = (),
    nvrtc_options: Sequence[str] = (),
) -> Path | None:
    """Compile ``shims`` in units for each of ``archs`` into the directory beside the module at
    ``module_path``; returns it, or None when the module links its shims from source (few
    shims, a preamble evaluated at import, a header defining symbols). A directory left by an
    earlier generation is replaced or removed."""
    target = units_directory(module_path)
    if preamble is None or not wants_units(len(shims)):
        shutil.rmtree(target, ignore_errors=True)  # an earlier generation's
        return None
    scratch = Path(tempfile.mkdtemp(prefix=f".{target.name}-", dir=target.parent))
    try:
        written = _compile_units(scratch, preamble, shims, archs, include_dirs, nvrtc_options)
        stale = target.with_name(f".{target.name}-old") if target.exists() else None
        if stale is not None:
            shutil.rmtree(stale, ignore_errors=True)
            target.rename(stale)
        if written:
            scratch.rename(target)
        if stale is not None:
            shutil.rmtree(stale, ignore_errors=True)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return target if written else None


def _compile_units(scratch, preamble, shims, archs, include_dirs, nvrtc_options) -> bool:
    from numbast.core import nvrtc

    texts = dict(shims)
    units = [
        (unit_id(preamble, nvrtc_options, [(n, texts[n]) for n in names]), names)
        for names in cut_units([name for name, _text in shims])
    ]
    index = {"format": FORMAT, "nvrtc": list(nvrtc.nvrtc_version()), "archs": {}}
    index["units"] = [[unit, list(names)] for unit, names in units]
    for arch in archs:
        options = nvrtc.unit_options(arch, lto=False, user_dirs=include_dirs, extra=nvrtc_options)
        try:
            ptx = nvrtc.compile_unit(f"{preamble}\n", "header.cu", options, "ptx").code
        except nvrtc.NvrtcError as exc:
            logger.info("the header does not compile alone for %s; no shim units: %s", arch, exc)
            return False
        # The import system's rule (numbast.core.ptx_symbols), without its constants: a
        # standalone module has no declared-constant names, so any variable of its own counts.
        if header_symbols(ptx.decode(errors="replace"), ()).own:
            logger.info("the header defines symbols of its own: no shim units")
            return False
        (scratch / arch).mkdir()
        index["archs"][arch] = []
        with tempfile.TemporaryDirectory(prefix="numbast-pch-") as pch:
            extra = [*nvrtc_options, *nvrtc.automatic_pch_options(pch)]
            options = nvrtc.unit_options(arch, lto=True, user_dirs=include_dirs, extra=extra)
            for unit, names in units:
                body = "\n".join(texts[name] for name in names)
                try:
                    code = nvrtc.compile_unit(f"{preamble}\n\n{body}\n", f"{unit}.cu", options,
                                              "ltoir").code  # fmt: skip
                except nvrtc.NvrtcError as exc:
                    logger.info("shim unit %s (%s...) left out for %s: %s", unit, names[0], arch,
                                exc)  # fmt: skip
                    continue
                (scratch / arch / f"{unit}.ltoir").write_bytes(code)
                index["archs"][arch].append(unit)
    (scratch / INDEX).write_text(json.dumps(index, indent=0), encoding="utf-8")
    logger.info("%d shims in %d units for %s", len(shims), len(units), ", ".join(archs))
    return True

"""Which GPU arch to generate for: the pin, else the current GPU (asked only when needed)."""

from __future__ import annotations

import logging
import os
import re

logger = logging.getLogger(__name__)

# Overrides the pin, as NUMBAST_CACHE_DIR overrides cache-dir: for builds on a machine with no
# GPU (CI, the quick start) without editing pyproject.toml.
ARCH_ENV = "NUMBAST_IMPORT_ARCH"


class ArchUnknownError(RuntimeError):
    """No arch pin and no GPU to ask."""


def resolve_arch(pinned: str | None, module: str, where: str) -> str:
    """``NUMBAST_IMPORT_ARCH``, else ``pinned``, else ``sm_<cc>`` of the current CUDA device."""
    from_env = os.environ.get(ARCH_ENV, "").strip()
    if from_env:
        if not re.fullmatch(r"sm_[0-9]+[a-z]?", from_env):
            raise ArchUnknownError(
                f"{ARCH_ENV}={from_env!r} is not an arch; set it as sm_<major><minor>, for "
                "example sm_90"
            )
        return from_env
    if pinned:
        return pinned
    try:
        from cuda.core import Device

        major, minor = Device().compute_capability
    except Exception as exc:  # no driver / no device: cuda.core raises several types
        raise ArchUnknownError(
            f"cannot import {module}: no GPU arch is pinned and no CUDA device could be asked "
            f"for its compute capability ({exc}). Pin one in {where}: under "
            '[tool.numbast-import] write arch = "sm_90" (your GPU\'s arch), or set '
            f"{ARCH_ENV}=sm_90"
        ) from exc
    arch = f"sm_{major}{minor}"
    logger.info("generating %s for the current GPU, %s", module, arch)
    return arch

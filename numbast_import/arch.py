"""Which GPU arch to generate for: the pin, else the current GPU (asked only when needed)."""

from __future__ import annotations

import logging

logger = logging.getLogger(__name__)


class ArchUnknownError(RuntimeError):
    """No arch pin and no GPU to ask."""


def resolve_arch(pinned: str | None, module: str, where: str) -> str:
    """``pinned``, else ``sm_<cc>`` of the current CUDA device."""
    if pinned:
        return pinned
    try:
        from cuda.core import Device

        major, minor = Device().compute_capability
    except Exception as exc:  # no driver / no device: cuda.core raises several types
        raise ArchUnknownError(
            f"cannot import {module}: no GPU arch is pinned and no CUDA device could be asked "
            f"for its compute capability ({exc}). Pin one in {where}: under "
            '[tool.numbast-import] write arch = "sm_90" (your GPU\'s arch)'
        ) from exc
    arch = f"sm_{major}{minor}"
    logger.info("generating %s for the current GPU, %s", module, arch)
    return arch

"""Which GPU arch to generate for: ``NUMBAST_IMPORT_ARCH``, else the current GPU's, else the
pinned ``arch`` (for machines without a GPU), else an error saying how to pin one.

The device wins over the pin so that a project pinned for its build machine still gets
bindings that link on the GPU it runs on (nvJitLink refuses LTO-IR of another arch).
"""

from __future__ import annotations

import functools
import logging
import os
import re

from numbast_import.errors import ArchUnknownError

logger = logging.getLogger(__name__)

# Overrides both, as NUMBAST_CACHE_DIR overrides cache-dir: for builds on a machine with no
# GPU (CI, Docker build steps) without editing pyproject.toml.
ARCH_ENV = "NUMBAST_IMPORT_ARCH"
ARCH_RE = re.compile(r"sm_[0-9]+[a-z]?")

__all__ = ["ARCH_ENV", "ArchUnknownError", "current_gpu_arch", "resolve_arch"]


def resolve_arch(pinned: str | None, module: str, where: str) -> str:
    """The arch for ``module``, whose mapping (with its pin, if any) is described by
    ``where``."""
    from_env = os.environ.get(ARCH_ENV, "").strip()
    if from_env:
        if not ARCH_RE.fullmatch(from_env):
            raise ArchUnknownError(
                f"cannot import {module}: {ARCH_ENV}={from_env!r} is not an arch; set it as "
                "sm_<major><minor>, for example sm_90"
            )
        return from_env
    device, why_not = current_gpu_arch()
    if device is not None:
        if pinned and pinned != device:
            logger.info("%s: generating for the current GPU, %s (pin %s)", module, device, pinned)
        return device
    if pinned:
        return pinned
    raise ArchUnknownError(
        f"cannot import {module}: no GPU arch to generate for: {ARCH_ENV} is not set, no CUDA "
        f"device could be asked ({why_not}), and {where} pins none. Pin one under "
        '[tool.numbast-import] in pyproject.toml (arch = "sm_90", your GPU\'s arch), or set '
        f"{ARCH_ENV}=sm_90"
    )


@functools.cache
def current_gpu_arch() -> tuple[str | None, str]:
    """``("sm_XY", "")`` for the current CUDA device, else ``(None, why)``. Asked once per
    process, through the driver API only: no context is created, so this costs cuInit and
    nothing that the first kernel launch would not pay anyway."""
    try:
        from cuda.bindings import driver
    except ImportError as exc:
        return None, f"cuda.bindings is not installed: {exc}"
    try:
        (err,) = driver.cuInit(0)
        if err != driver.CUresult.CUDA_SUCCESS:
            return None, f"cuInit: {err.name}"
        err, context = driver.cuCtxGetCurrent()
        if err == driver.CUresult.CUDA_SUCCESS and int(context) != 0:
            err, device = driver.cuCtxGetDevice()
        else:
            err, device = driver.cuDeviceGet(0)
        if err != driver.CUresult.CUDA_SUCCESS:
            return None, f"no device: {err.name}"
        attribute = driver.CUdevice_attribute
        err, major = driver.cuDeviceGetAttribute(
            attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device
        )
        err2, minor = driver.cuDeviceGetAttribute(
            attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device
        )
    except (RuntimeError, OSError) as exc:  # libcuda missing: cuda.bindings cannot load it
        return None, str(exc)
    if err != driver.CUresult.CUDA_SUCCESS or err2 != driver.CUresult.CUDA_SUCCESS:
        return None, f"cuDeviceGetAttribute: {err.name}"
    return f"sm_{major}{minor}", ""

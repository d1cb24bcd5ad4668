"""Which GPU arch to generate for: ``NUMBAST_IMPORT_ARCH``, else the current GPU's, else the
pinned ``arch`` (for machines without a GPU), else an error saying how to pin one.

The device wins over the pin so that a project pinned for its build machine still gets
bindings that link on the GPU it runs on (nvJitLink refuses LTO-IR of another arch).
"""

from __future__ import annotations

import logging
import os
import re
import threading
from concurrent.futures import Future

from numbast_import.errors import ArchUnknownError

logger = logging.getLogger(__name__)

# Overrides both, as NUMBAST_CACHE_DIR overrides cache-dir: for builds on a machine with no
# GPU (CI, Docker build steps) without editing pyproject.toml.
ARCH_ENV = "NUMBAST_IMPORT_ARCH"
ARCH_RE = re.compile(r"sm_[0-9]+[a-z]?")

__all__ = [
    "ARCH_ENV",
    "ArchUnknownError",
    "DeviceQueryError",
    "current_compute_capability",
    "current_gpu_arch",
    "resolve_arch",
    "start_device_query",
]


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


class DeviceQueryError(RuntimeError):
    """The CUDA driver could not say what the current device is (the message says why)."""


_capabilities: dict[int, tuple[int, int]] = {}


def current_compute_capability() -> tuple[int, int]:
    """(major, minor) of the current context's device, else of device 0, through the driver
    API only: no context is created, so this costs cuInit and nothing that the first kernel
    launch would not pay anyway. Remembered per device. Raises DeviceQueryError."""
    try:
        from cuda.bindings import driver
    except ImportError as exc:
        raise DeviceQueryError(f"cuda.bindings is not installed: {exc}") from None
    success = driver.CUresult.CUDA_SUCCESS
    try:
        (err,) = driver.cuInit(0)
        if err != success:
            raise DeviceQueryError(f"cuInit: {err.name}")
        err, context = driver.cuCtxGetCurrent()
        if err == success and int(context) != 0:
            err, device = driver.cuCtxGetDevice()
        else:
            err, device = driver.cuDeviceGet(0)
        if err != success:
            raise DeviceQueryError(f"no device: {err.name}")
        found = _capabilities.get(int(device))
        if found is None:
            attribute = driver.CUdevice_attribute
            values = []
            for which in (
                attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
                attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
            ):
                err, value = driver.cuDeviceGetAttribute(which, device)
                if err != success:
                    raise DeviceQueryError(f"cuDeviceGetAttribute: {err.name}")
                values.append(int(value))
            found = _capabilities[int(device)] = (values[0], values[1])
    except DeviceQueryError:
        raise
    except (RuntimeError, OSError) as exc:  # libcuda missing: cuda.bindings cannot load it
        raise DeviceQueryError(str(exc)) from None
    return found


# The process's one question to the driver about its GPU's arch: asked in the background when an
# import starts (start_device_query), or here when first needed.
_device_arch: Future | None = None
_device_arch_lock = threading.Lock()


def start_device_query() -> None:
    """Start asking the driver for the current GPU's arch in a background thread, unless
    ``NUMBAST_IMPORT_ARCH`` names one or the question was asked already.

    ``cuInit`` is most of a warm header import's time (0.1-0.2 s; the first kernel launch
    would pay it otherwise) and holds no GIL, so the import's Python work (reading the project,
    importing the runtime, hashing the header) runs meanwhile; ``current_gpu_arch`` waits for
    the answer.
    """
    if not os.environ.get(ARCH_ENV, "").strip():
        _arch_query(background=True)


def current_gpu_arch() -> tuple[str | None, str]:
    """``("sm_XY", "")`` for the current CUDA device, else ``(None, why)``; asked once per
    process (``current_compute_capability``)."""
    return _arch_query(background=False).result()


def _arch_query(background: bool) -> Future:
    global _device_arch
    with _device_arch_lock:
        query, asked = _device_arch, _device_arch is not None
        if not asked:
            query = _device_arch = Future()
    if not asked:
        if background:
            threading.Thread(
                target=_answer, args=(query,), name="numbast-import-arch", daemon=True
            ).start()
        else:
            _answer(query)
    return query


def _answer(query: Future) -> None:
    try:
        major, minor = current_compute_capability()
    except DeviceQueryError as exc:
        query.set_result((None, str(exc)))
    except BaseException as exc:  # not swallowed: raised again where the answer is read
        query.set_exception(exc)
    else:
        query.set_result((f"sm_{major}{minor}", ""))

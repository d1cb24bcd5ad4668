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
from functools import partial
from pathlib import Path

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
    "remember_device_arch",
    "resolve_arch",
    "start_device_query",
]


def resolve_arch(pinned: str | None, module: str, where: str, memo_dir: Path | None = None) -> str:
    """The arch for ``module``, whose mapping (with its pin, if any) is described by
    ``where``. With ``memo_dir`` (the cache root's ``keys/``), the GPU's arch may come from
    what an earlier process learned there (``numbast_import.arch_memo``)."""
    from_env = os.environ.get(ARCH_ENV, "").strip()
    if from_env:
        if not ARCH_RE.fullmatch(from_env):
            raise ArchUnknownError(
                f"cannot import {module}: {ARCH_ENV}={from_env!r} is not an arch; set it as "
                "sm_<major><minor>, for example sm_90"
            )
        return from_env
    device, why_not = current_gpu_arch(memo_dir)
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
    major, minor, _device_zero = _device_capability()
    return major, minor


def _device_capability() -> tuple[int, int, bool]:
    """(major, minor, whether it is device 0's, asked with no context current)."""
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
        device_zero = not (err == success and int(context) != 0)
        if device_zero:
            err, device = driver.cuDeviceGet(0)
        else:
            err, device = driver.cuCtxGetDevice()
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
    return found[0], found[1], device_zero


# The process's one question to the driver about its GPU's arch: asked in the background when an
# import starts (start_device_query), or here when first needed. Its answer: (arch or None, why
# not, whether it is device 0's asked with no context current).
_device_arch: Future | None = None
_device_arch_lock = threading.Lock()
# Whether the question asked is device 0's (no context was current in the asking thread), which
# is the one a memo answers; and whether the answer a memo gave this process was checked against
# the driver's (the first import that used it checks it).
_asks_device_zero = False
_memo_checked = False
# The memo directories this process has read or written against the answer: a later import
# with the answer in hand has nothing more to do with them.
_memos_settled: set[Path] = set()


def start_device_query() -> None:
    """Start asking the driver for the current GPU's arch in a background thread, unless
    ``NUMBAST_IMPORT_ARCH`` names one or the question was asked already.

    ``cuInit`` is most of a warm header import's time (0.1-0.2 s; the first kernel launch
    would pay it otherwise) and holds no GIL, so the import's Python work (reading the project,
    importing the runtime, hashing the header) runs meanwhile; ``current_gpu_arch`` waits for
    the answer unless the cache root remembers it (``numbast_import.arch_memo``).
    """
    if not os.environ.get(ARCH_ENV, "").strip():
        _arch_query(background=True)


def current_gpu_arch(memo_dir: Path | None = None) -> tuple[str | None, str]:
    """``("sm_XY", "")`` for the current CUDA device, else ``(None, why)``; asked once per
    process (``current_compute_capability``). With ``memo_dir``, a fresh process takes the
    answer an earlier one remembered there for this machine (``numbast_import.arch_memo``)
    instead of waiting for the driver's, which is checked against it when it comes."""
    global _memo_checked
    # The memo's module is imported here, not with this one: an arch set in the environment
    # (resolve_arch) never asks the device nor the memo.
    from numbast_import import arch_memo

    query = _arch_query(background=memo_dir is not None)
    state = known = None
    if memo_dir is not None and _asks_device_zero and memo_dir not in _memos_settled:
        state = arch_memo.machine_state()
        known = None if state is None else arch_memo.remembered(memo_dir, state)
        if known is not None and not ARCH_RE.fullmatch(known):
            known = None  # damaged: the driver is asked, and its answer written over it
        if known is not None and not query.done():
            with _device_arch_lock:
                check, _memo_checked = not _memo_checked, True
            if check:
                query.add_done_callback(partial(_check_memo, memo_dir, state, known))
            logger.debug("the GPU's arch, %s, remembered in %s", known, memo_dir)
            return known, ""
    arch, why, device_zero = query.result()
    if state is not None and arch is not None and device_zero and arch != known:
        arch_memo.remember(memo_dir, state, arch)  # learned, or corrected
    if state is not None:
        _memos_settled.add(memo_dir)
    return arch, why


def remember_device_arch(memo_dir: Path) -> None:
    """Remember the driver's answer in ``memo_dir`` if it came and is device 0's: for the first
    import of a cache root, which had no root to read a memo from or write one to when it asked
    (``current_gpu_arch``); never asks the driver itself."""
    query = _device_arch
    # An answer that is an error was raised where the import read it, or (the arch came from a
    # memo) logged by the memo's check: nothing to remember, and not this build's to raise.
    if query is not None and query.done() and _asks_device_zero and query.exception() is None:
        current_gpu_arch(memo_dir)


def _check_memo(memo_dir: Path, state: str, known: str, query: Future) -> None:
    """The driver's answer, come after the import took ``known`` from the memo."""
    from numbast_import import arch_memo

    try:
        arch, why, device_zero = query.result()
    except Exception as exc:  # the check of the memo only: it is forgotten, and logged
        arch_memo.forget(memo_dir, state, f"the driver could not be asked: {exc!r}")
        return
    if arch is None:
        arch_memo.forget(memo_dir, state, f"no device answers now: {why}")
    elif device_zero and arch != known:
        arch_memo.forget(
            memo_dir,
            state,
            f"device 0 is {arch}, not {known}; this process's imports generated for {known}, "
            "so its kernels may not link: import again in a new process",
        )


def _arch_query(background: bool) -> Future:
    global _device_arch, _asks_device_zero
    with _device_arch_lock:
        query, asked = _device_arch, _device_arch is not None
        if not asked:
            query = _device_arch = Future()
            current = _context_current()
            _asks_device_zero = current is False
    if not asked:
        # A context current here is this thread's (the background thread has none): its device
        # is asked here, which costs little once the driver is initialized.
        if background and not current:
            threading.Thread(
                target=_answer, args=(query,), name="numbast-import-arch", daemon=True
            ).start()
        else:
            _answer(query)
    return query


def _context_current() -> bool | None:
    """Whether a CUDA context is current in this thread: False when none is (also when the
    driver is not initialized yet: then none can be), None when the driver cannot say. Costs
    microseconds (no cuInit)."""
    try:
        from cuda.bindings import driver

        err, context = driver.cuCtxGetCurrent()
    except (ImportError, RuntimeError, OSError):  # no cuda.bindings, or no driver to load
        return None
    if err == driver.CUresult.CUDA_ERROR_NOT_INITIALIZED:
        return False
    if err != driver.CUresult.CUDA_SUCCESS:
        return None
    return int(context) != 0


def _answer(query: Future) -> None:
    try:
        major, minor, device_zero = _device_capability()
    except DeviceQueryError as exc:
        query.set_result((None, str(exc), False))
    except BaseException as exc:  # not swallowed: raised again where the answer is read
        query.set_exception(exc)
    else:
        query.set_result((f"sm_{major}{minor}", "", device_zero))

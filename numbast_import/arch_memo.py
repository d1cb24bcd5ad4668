"""The GPU's arch, remembered in the cache root for the machine as it is now.

A warm import needs the arch before it can name its entry, and asking the driver costs
``cuInit``: 0.1 s of a warm import's 0.12 s on the H200 machine, which the first launch then
pays less, but only in part (benchmarks/NOTES.md, "GPU session 6"). The question a warm import
asks in a fresh process is always the same one: the compute capability of device 0 (no
context is current yet). Its answer cannot change while the machine stays as it is, so it is
remembered under a digest of what would change it:

- the boot (``/proc/sys/kernel/random/boot_id``): GPUs are added, removed or swapped across
  reboots;
- the driver (``/proc/driver/nvidia/version``) and the GPUs it drives
  (``/proc/driver/nvidia/gpus/<PCI address>``);
- the device nodes this process sees (``/dev/nvidia*``: a container sees its own GPUs' only);
- the variables that choose and order devices (``CUDA_VISIBLE_DEVICES``,
  ``CUDA_DEVICE_ORDER``), and the user.

Where any of these cannot be read (not Linux, no NVIDIA driver), nothing is remembered and the
driver is asked. The answer is used only when no CUDA context is current in the importing
thread (``numbast_import.arch`` asks the driver that without initializing it): one made by
Numba or another library may be on another device, and then that context's device is asked,
which costs little once the driver is initialized. The driver is asked in the background all
the same (``numbast_import.arch``); an answer that
differs from the remembered one removes the memo and is logged as an error.

The memo is a file of the cache root's ``keys/`` (``arch-<digest>``), read only when it
belongs to the user and others cannot write it, as the header digests are.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
from pathlib import Path

from numbast_import.cache.file_hashes import read_memo, write_memo

logger = logging.getLogger(__name__)

_BOOT_ID = "/proc/sys/kernel/random/boot_id"
_DRIVER = "/proc/driver/nvidia"
_DEVICE_VARIABLES = ("CUDA_VISIBLE_DEVICES", "CUDA_DEVICE_ORDER")


def machine_state() -> str | None:
    """A digest of what decides device 0's arch in a fresh process here; None where it cannot
    be read (then no answer is remembered)."""
    try:
        with open(_BOOT_ID, encoding="ascii") as stream:
            boot = stream.read().strip()
        with open(os.path.join(_DRIVER, "version"), encoding="utf-8", errors="replace") as stream:
            driver = stream.readline().strip()
        gpus = sorted(os.listdir(os.path.join(_DRIVER, "gpus")))
        nodes = sorted(name for name in os.listdir("/dev") if name.startswith("nvidia"))
    except OSError:
        return None
    if not boot or not gpus:
        return None
    variables = {name: os.environ.get(name) for name in _DEVICE_VARIABLES}
    text = json.dumps([boot, driver, gpus, nodes, variables, os.getuid()], sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def memo_path(memo_dir: Path, state: str) -> Path:
    return memo_dir / f"arch-{state}"


def remembered(memo_dir: Path, state: str) -> str | None:
    """The text a trusted memo holds for ``state`` (``numbast_import.arch`` checks that it is
    an arch), else None."""
    data = read_memo(memo_path(memo_dir, state))
    return None if data is None else data.decode("ascii", errors="replace").strip()


def remember(memo_dir: Path, state: str, arch: str) -> None:
    """Best effort, as the header digests: an unwritable root only costs the next process the
    driver's answer."""
    write_memo(memo_path(memo_dir, state), f"{arch}\n".encode())


def forget(memo_dir: Path, state: str, why: str) -> None:
    logger.error("the GPU arch remembered in %s was wrong (%s); removed it", memo_dir, why)
    try:
        os.unlink(memo_path(memo_dir, state))
    except OSError as exc:
        logger.debug("could not remove %s: %s", memo_path(memo_dir, state), exc)

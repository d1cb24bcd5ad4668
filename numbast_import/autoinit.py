"""``import numbast_import.autoinit``: PyCUDA's autoinit. Makes the primary context of device
``$CUDA_DEVICE`` (default 0) current, and exposes it as ``device`` and ``context``."""

from __future__ import annotations

import os

from numbast_import.rtc.context import Device, init

init()
device = Device(int(os.environ.get("CUDA_DEVICE", "0")))
context = device.make_context()

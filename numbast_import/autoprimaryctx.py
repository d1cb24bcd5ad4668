"""``import numbast_import.autoprimaryctx``: PyCUDA's autoprimaryctx. The same as
``numbast_import.autoinit``, as every context here is a device's primary context."""

from __future__ import annotations

from numbast_import.autoinit import context, device

__all__ = ["context", "device"]

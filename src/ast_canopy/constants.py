"""NVIDIA ast_canopy's layout sentinels.

A record without a layout (a class template's body, an incomplete instance) has ``sizeof_`` and
``alignof_`` None here; the sentinels are None too, so NVIDIA-style checks such as ``s.sizeof_
== INVALID_SIZE_OF`` keep working (NVIDIA's are SIZE_MAX integers).
"""

from __future__ import annotations

INVALID_SIZE_OF = None
INVALID_ALIGN_OF = None

__all__ = ["INVALID_ALIGN_OF", "INVALID_SIZE_OF"]

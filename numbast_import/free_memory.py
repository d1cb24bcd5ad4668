"""Give the memory this process has freed back to the system between the stages of a build.

Parsing a big header, compiling its bindings module (``compile()`` of a source of tens of MB
builds an AST of about 65 bytes per byte of source) and NVRTC's compiles each free hundreds of
MB when they end, but glibc's allocator keeps freed memory for the process: the next stage's
peak then stacks on the last one's. ``malloc_trim`` hands it back (issue 23 point 12: 376 of
the 453 MB a 8 MB bindings module's compile leaves held). Elsewhere than glibc there is
nothing to call, and nothing is done.
"""

from __future__ import annotations

import ctypes
import functools
import sys
from collections.abc import Callable


@functools.cache
def _malloc_trim() -> Callable[[int], int] | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(None)  # the symbols the process has loaded, its C library's among them
    except OSError:
        return None
    return getattr(libc, "malloc_trim", None)  # glibc's; musl has none


def release_free_memory() -> None:
    """Return the memory freed so far to the system (where the C library can: glibc)."""
    trim = _malloc_trim()
    if trim is not None:
        trim(0)

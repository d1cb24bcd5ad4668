"""Registrations that wait for Numba's next compile.

Registering a module's bindings with Numba costs more than making its Python objects: Numba's
typing and lowering classes for every overload, and resolving its types, which imports
numba-cuda's vector types and lowering modules (about 65 ms, which numba-cuda would otherwise
spend at its first compile anyway). A generated module makes its stubs when it is imported and
defers the registrations here; they run when Numba next refreshes its CUDA typing context, which
it does before it types any kernel (and before it loads a cached one), so every registration is
in place by the time a kernel could need it.

The hook is one wrapper around ``CUDATypingContext.refresh``, installed once per process (every
copy of the runtime shares the pending list and the hook).
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from .state import LOCK, shared_table

logger = logging.getLogger(__name__)

_PENDING: list[Callable[[], None]] = shared_table("deferred_registrations", list)
_HOOK: dict[str, bool] = shared_table("deferred_registrations_hook", dict)


def defer(register: Callable[[], None]) -> None:
    """Run ``register`` before Numba next types or loads a CUDA kernel."""
    with LOCK:
        _PENDING.append(register)
        _install()


def run_pending() -> None:
    """Run every deferred registration now (in the order they were deferred)."""
    while True:
        with LOCK:
            if not _PENDING:
                return
            register = _PENDING.pop(0)
        register()


def _install() -> None:
    if _HOOK.get("installed"):
        return
    from numba.cuda.target import CUDATypingContext

    original = CUDATypingContext.refresh

    def refresh(self):
        run_pending()
        return original(self)

    refresh.__wrapped__ = original
    CUDATypingContext.refresh = refresh
    _HOOK["installed"] = True

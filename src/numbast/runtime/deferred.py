"""Registrations that wait for Numba's next compile.

Registering a module's bindings with Numba costs more than making its Python objects: Numba's
typing and lowering classes for every overload, and resolving its types, which imports
numba-cuda's vector types and lowering modules (about 65 ms, which numba-cuda would otherwise
spend at its first compile anyway). A generated module makes its stubs when it is imported and
defers the registrations here; they run when Numba next refreshes its CUDA typing context, which
it does before it types any kernel (and before it loads a cached one), so every registration is
in place by the time a kernel could need it.

The hook is one wrapper around ``CUDATypingContext.refresh``, installed once per process (every
copy of the runtime shares the pending list and the hook). A second wrapper, installed the same
way when first needed, runs fix-ups after each refresh (``after_refresh``).

A bound function's overloads wait longer still: until Numba first looks the function up while
typing a kernel (``register_on_lookup``), so a kernel pays for the names it uses, not for every
overload of the header (3000 functions: ~0.3 s of typing classes and lowering registrations).
The hook is a wrapper around the typing context's lookup of global values: the stub's
registrations run, the context takes them in (its refresh, which only adds what is new), and the
lookup goes on. Numba's target context takes in their lowering when it first misses it. A stub
registered otherwise since the context's last refresh (``run_lookups`` while a kernel compiles:
the rewrite that passes structs by address runs before typing) is taken in when its lookup
misses.
"""

from __future__ import annotations

import logging
import weakref
from collections.abc import Callable, Iterable
from types import FunctionType
from typing import Any

from .state import LOCK, shared_table

logger = logging.getLogger(__name__)

_PENDING: list[Callable[[], None]] = shared_table("deferred_registrations", list)
# The attribute of a bound function's stub holding its registrations until it is looked up
# (every runtime copy uses this name).
ON_LOOKUP = "_numbast_register_on_lookup_"
# Weak references to the stubs still waiting for their lookup (run_lookups).
_WAITING: list = shared_table("registrations_on_lookup", list)
_HOOK: dict[str, bool] = shared_table("deferred_registrations_hook", dict)
_AFTER: list[Callable[[Any], None]] = shared_table("after_refresh", list)


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


def after_refresh(callback: Callable[[Any], None]) -> None:
    """Call ``callback(typing_context)`` after every refresh of Numba's CUDA typing context
    (once per callback object)."""
    with LOCK:
        if callback in _AFTER:
            return
        _AFTER.append(callback)
        if _HOOK.get("after_installed"):
            return
        from numba.cuda.target import CUDATypingContext

        original = CUDATypingContext.refresh

        def refresh(self):
            result = original(self)
            for run in list(_AFTER):
                run(self)
            return result

        refresh.__wrapped__ = original
        CUDATypingContext.refresh = refresh
        _HOOK["after_installed"] = True


def register_on_lookup(stub: Callable, register: Callable[[], None]) -> None:
    """Run ``register`` (the overloads of the bound function ``stub``) when Numba first looks
    ``stub`` up while typing a kernel."""
    with LOCK:
        # A list: two modules may add overloads to one stub (dynamic binding shares stubs by
        # C++ name) before a kernel looks it up; each module's registrations must run.
        stub.__dict__.setdefault(ON_LOOKUP, []).append(register)
        _WAITING.append(weakref.ref(stub))
        if _HOOK.get("lookup_installed"):
            return
        from numba.cuda.target import CUDATypingContext

        original = CUDATypingContext._get_global_type

        def _get_global_type(self, gv):
            if type(gv) is FunctionType:
                with LOCK:
                    pending = gv.__dict__.pop(ON_LOOKUP, None)
                for register_now in pending or ():
                    register_now()
                # Take in what was just registered, or what was registered after this
                # context's last refresh without a lookup: the struct-pointer rewrite runs a
                # stub's registrations before the kernel is typed (struct_pointers).
                if pending or (getattr(gv, "_numbast_stub_", False) and not original(self, gv)):
                    self.refresh()
            return original(self, gv)

        _get_global_type.__wrapped__ = original
        CUDATypingContext._get_global_type = _get_global_type
        _HOOK["lookup_installed"] = True


def run_lookups(stubs: Iterable[Any] | None = None) -> None:
    """Run now the registrations still waiting for a lookup of ``stubs`` (default: of every
    function), for tools and tests that compare or list what a module registers."""
    if stubs is None:
        with LOCK:
            stubs = [ref() for ref in _WAITING]
            _WAITING.clear()
    for stub in stubs:
        if type(stub) is not FunctionType:  # a stub gone, or another value of a module
            continue
        with LOCK:
            pending = stub.__dict__.pop(ON_LOOKUP, None)
        for register in pending or ():
            register()

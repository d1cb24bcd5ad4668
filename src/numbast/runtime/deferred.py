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
typing a kernel, so a kernel pays for the names it uses, not for every overload of the header
(3000 functions: ~0.3 s of typing classes and lowering registrations). A generated module hands
its functions over in one step (:class:`LazyOverloads`: each stub names it when the module is
imported, and the module's registration only makes it ready), so its registration costs the
same for 3 or 3000 functions (before, one registration per function: ~6 ms at 3000). Runtime
copies written before kept a list under ``ON_LOOKUP`` on each stub, with a lookup hook of their
own; ``run_lookups`` and ``waits_for_lookup`` read both.
The hook is a wrapper around the typing context's lookup of global values: the stub's
registrations run, the context takes them in (its refresh, which only adds what is new), and the
lookup goes on. Numba's target context takes in their lowering when it first misses it. A stub
registered otherwise since the context's last refresh (``run_lookups`` while a kernel compiles:
the rewrite that passes structs by address runs before typing) is taken in when its lookup
misses.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from types import FunctionType
from typing import Any

from .state import LOCK, shared_table

_PENDING: list[Callable[[], None]] = shared_table("deferred_registrations", list)
# The attribute of a bound function's stub holding its registrations until it is looked up,
# and weak references to such stubs: the protocol of runtime copies written before
# LazyOverloads (still read here: copies of both kinds may share a process).
ON_LOOKUP = "_numbast_register_on_lookup_"
_WAITING: list = shared_table("registrations_on_lookup", list)
_HOOK: dict[str, bool] = shared_table("deferred_registrations_hook", dict)
_AFTER: list[Callable[[Any], None]] = shared_table("after_refresh", list)
# Every LazyOverloads with rows still waiting (a newer protocol than ON_LOOKUP, with a lookup
# hook of its own, so that runtime copies of either kind share one process). Held here: nothing
# else holds a module's LazyOverloads once its registration has run.
_SOURCES: list = shared_table("lazy_overload_sources", list)


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


class LazyOverloads:
    """One module's bound functions whose overloads wait for their first lookup. The module
    gives each function's rows as it makes its stubs (all at once, or :meth:`add`); its
    deferred registration makes this ready with what registers a function's rows
    (:meth:`ready`), which costs the same whatever the number of functions; a lookup of a stub
    then registers that stub's rows only. Stubs are found here by identity, and rows are kept
    as the module's plain tuples: nothing is added to a stub, so a header's thousands of
    functions give the cyclic GC no more objects to traverse in each of Numba's full
    collections during a compile."""

    def __init__(self, rows: dict[Any, tuple] | None = None) -> None:
        # stub -> its rows (plain tuples) not registered yet; ``rows`` is taken over
        self._rows: dict[Any, tuple] = {} if rows is None else rows
        self._register: Callable[[Sequence[Any]], None] | None = None

    def add(self, stub: Callable, row: tuple) -> None:
        """``row`` is one more overload of ``stub``, to register at its first lookup."""
        with LOCK:
            self._rows[stub] = (*self._rows.get(stub, ()), row)

    def rows_by_stub(self) -> dict[Any, tuple]:
        """The rows still waiting, by stub (read only)."""
        return self._rows

    def ready(self, register: Callable[[Sequence[Any]], None]) -> None:
        """From now on a lookup registers a stub's rows with ``register(rows)``."""
        with LOCK:
            self._register = register
            if self._rows:  # found by lookups from now on (filled: no lookup prunes it early)
                _SOURCES.append(self)
        _install_source_hook()

    def waits(self, stub: Callable) -> bool:
        return stub in self._rows

    def take(self, stub: Callable) -> Callable[[], None] | None:
        """What registers ``stub``'s rows (once), or None: none left, or the module's
        registration has not run (then nothing is taken)."""
        with LOCK:
            register = self._register
            rows = self._rows.pop(stub, None) if register is not None else None
        if rows is None:
            return None
        return lambda: register(rows)

    def take_all(self) -> list[Callable[[], None]]:
        with LOCK:
            stubs = list(self._rows) if self._register is not None else []
        return [found for found in map(self.take, stubs) if found is not None]


def _sources() -> list[LazyOverloads]:
    with LOCK:
        _SOURCES[:] = [source for source in _SOURCES if source.rows_by_stub()]
        return list(_SOURCES)


def _taken(stub: Callable) -> list[Callable[[], None]]:
    """The registrations waiting for ``stub``'s lookup in its modules' LazyOverloads, taken."""
    return [found for found in (s.take(stub) for s in _sources()) if found is not None]


def _install_source_hook() -> None:
    with LOCK:
        if _HOOK.get("lookup_sources_installed"):
            return
        from numba.cuda.target import CUDATypingContext

        original = CUDATypingContext._get_global_type

        def _get_global_type(self, gv):
            if type(gv) is FunctionType and gv.__dict__.get("_numbast_stub_"):
                pending = _taken(gv)
                for register_now in pending:
                    register_now()
                # As the ON_LOOKUP hook: take in what was just registered, or what the
                # struct-pointer rewrite registered before the kernel was typed.
                if pending or not original(self, gv):
                    self.refresh()
                    # The refresh may have run the module's registration (imported while a
                    # kernel compiled): its rows are ready now.
                    late = [] if pending else _taken(gv)
                    for register_now in late:
                        register_now()
                    if late:
                        self.refresh()
            return original(self, gv)

        _get_global_type.__wrapped__ = original
        CUDATypingContext._get_global_type = _get_global_type
        _HOOK["lookup_sources_installed"] = True


def waits_for_lookup(stub: Any) -> bool:
    """Whether registrations of the bound function ``stub`` still wait for its first lookup."""
    if type(stub) is not FunctionType:
        return False
    return ON_LOOKUP in stub.__dict__ or any(source.waits(stub) for source in _sources())


def run_lookups(stubs: Iterable[Any] | None = None) -> None:
    """Run now the registrations still waiting for a lookup of ``stubs`` (default: of every
    function), for tools and tests that compare or list what a module registers."""
    taken: list[Callable[[], None]] = []
    if stubs is None:
        with LOCK:
            stubs = [ref() for ref in _WAITING]
            _WAITING.clear()
        for source in _sources():
            taken += source.take_all()
    for stub in stubs:
        if type(stub) is not FunctionType:  # a stub gone, or another value of a module
            continue
        with LOCK:
            pending = stub.__dict__.pop(ON_LOOKUP, None)
        taken += pending or ()
        taken += _taken(stub)
    for register in taken:
        register()

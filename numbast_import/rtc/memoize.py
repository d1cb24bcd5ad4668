"""Results remembered per CUDA context (PyCUDA's ``tools.context_dependent_memoize``): a
kernel compiled and loaded in one context is not valid in another."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from numbast_import.rtc.context import check, driver, ensure_context

_memoized: list[dict[Any, Any]] = []


def current_context_key() -> int:
    """The current context's handle (made current first, as any driver call here would)."""
    ensure_context()
    return int(check(driver().cuCtxGetCurrent(), "cuCtxGetCurrent"))


def context_dependent_memoize(func: Callable[..., Any]) -> Callable[..., Any]:
    """``func`` remembering its result per (current context, arguments); arguments must be
    hashable. ``clear_context_caches()`` forgets every such result."""
    results: dict[Any, Any] = {}
    _memoized.append(results)

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        key = (current_context_key(), args, frozenset(kwargs.items()) if kwargs else None)
        try:
            return results[key]
        except KeyError:
            result = results[key] = func(*args, **kwargs)
            return result

    return wrapper


def clear_context_caches() -> None:
    """Forget the results of every context_dependent_memoize function."""
    for results in _memoized:
        results.clear()

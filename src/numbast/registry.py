"""Where bindings go in Numba: one typing template per Python-level callable, shared cases.

All overloads of one name (or one operator) live in a single ConcreteTemplate, so Numba chooses
among them by C++-like overload resolution (exact match preferred) instead of taking whichever
template was registered first.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable

from numba.cuda import types
from numba.cuda.cudadecl import registry as typing_registry
from numba.cuda.cudaimpl import registry as lowering_registry
from numba.cuda.typing.templates import ConcreteTemplate, Signature

_LOCK = threading.Lock()
_OVERLOADS: dict[Hashable, type[ConcreteTemplate]] = {}


def add_overload(key: Hashable, signature: Signature, lowering: Callable, label: str) -> bool:
    """Make ``key(*signature.args)`` type as ``signature`` and lower with ``lowering``.

    ``key`` is a global value (a stub function or class, or an ``operator`` function). Returns
    False when that exact signature was already bound (the first binding is kept).
    """
    with _LOCK:
        template = _OVERLOADS.get(key)
        if template is None:
            template = type(f"numbast_{label}_overloads", (ConcreteTemplate,), {"key": key})
            template.cases = []
            _OVERLOADS[key] = template
            typing_registry.register_global(key, types.Function(template))
        if any(case.args == signature.args for case in template.cases):
            return False
        template.cases.append(signature)
    lowering_registry.lower(key, *signature.args)(lowering)
    return True


def overloads_of(key: Hashable) -> list[Signature]:
    template = _OVERLOADS.get(key)
    return list(template.cases) if template is not None else []

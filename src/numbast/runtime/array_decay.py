"""Arrays where bound C++ callables take pointers.

C++ hands an array to a pointer parameter as a pointer to its first element; so do bound calls:
a kernel passes a device, shared or local array (``cuda.local.array(4, int32)``) where the C++
callable takes ``T *``, a pointer intent, or ``T (&)[N]``. Typing retries a call that did not
resolve with its arrays as pointers to their elements (``decayed_arguments``); lowering casts
each array to its data pointer (one cast, registered once per process).
"""

from __future__ import annotations

from numba.cuda import types
from numba.cuda.extending import lower_cast

from .state import LOCK, shared_table

_DECAY_INSTALLED: list = shared_table("array_decay", list)


def decayed_arguments(args: tuple) -> tuple | None:
    """``args`` with every array as a pointer to its element type; None when there is none."""
    if not any(isinstance(a, types.Array) for a in args):
        return None
    return tuple(types.CPointer(a.dtype) if isinstance(a, types.Array) else a for a in args)


def passes_as_pointer(actual: types.Type, formal: types.Type) -> bool:
    """Whether ``actual`` (an array) is passed where ``formal`` (a pointer) is taken."""
    return (
        isinstance(actual, types.Array)
        and isinstance(formal, types.CPointer)
        and actual.dtype == formal.dtype
    )


def install_array_decay() -> None:
    """Register the array-to-pointer cast once per process."""
    with LOCK:
        if _DECAY_INSTALLED:
            return
        _DECAY_INSTALLED.append(True)
    lower_cast(types.Array, types.CPointer)(_array_data)


def _array_data(context, builder, fromty, toty, value):
    data = context.make_array(fromty)(context, builder, value).data
    return builder.bitcast(data, context.get_value_type(toty))

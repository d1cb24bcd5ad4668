"""Bound ``__half`` / ``__nv_bfloat16`` and numba-cuda's own ``float16`` / ``bfloat16``.

numba-cuda has 16-bit float types of its own: NumPy's ``float16`` arrays, and ``ml_dtypes`` or
PyTorch ``bfloat16`` arrays, arrive in kernels as arrays of ``types.float16`` /
``types.bfloat16``. Binding cuda_fp16.h or cuda_bf16.h makes a second type for the same C++
struct (its constructors, operators and functions take that one). Without a conversion between
the two, ``out[i] = hsin(a[i] + b[i])`` on such arrays fails to type: the element is not the
bound type, and the bound result cannot be stored into the array.

Both are the same 16 bits, so each bound twin converts to and from numba-cuda's type, safely and
implicitly, by reinterpreting the bits. Safe (not promote) keeps existing overload choices: an
overload set with both ``f(__half)`` and ``f(float)`` still picks ``f(float)`` for a
``float16`` argument (Numba promotes float16 to float32), as before.
"""

from __future__ import annotations

from numba.cuda import cgutils, types
from numba.cuda.extending import lower_cast
from numba.cuda.typeconv import Conversion
from numba.cuda.typeconv.rules import default_type_manager

from ..core.cxx_names import NATIVE_TWIN_TYPES

# Canonical C++ name of the struct -> numba-cuda's type with the same 16 bits.
NATIVE_TWINS: dict[str, types.Type] = {
    cxx_name: getattr(types, numba_name) for cxx_name, numba_name in NATIVE_TWIN_TYPES.items()
}


def _same_bits(context, builder, fromty, toty, value):
    """The value of ``fromty`` read back as ``toty`` (same size): through memory, so whatever
    the two data models are (a struct with one member, an opaque i16, LLVM's half)."""
    slot = cgutils.alloca_once_value(builder, value)
    as_target = builder.bitcast(slot, context.get_value_type(toty).as_pointer())
    return builder.load(as_target)


def link_native_twin(cxx_name: str, bound_type: types.Type) -> bool:
    """Make ``bound_type`` (the binding of C++ ``cxx_name``) and numba-cuda's own type of the
    same format convert to each other, when ``cxx_name`` is ``__half`` or ``__nv_bfloat16``
    with their 2-byte size. Returns whether it did."""
    native = NATIVE_TWINS.get(cxx_name)
    if native is None or getattr(bound_type, "sizeof_", None) != 2:
        return False
    lower_cast(native, bound_type)(_same_bits)
    lower_cast(bound_type, native)(_same_bits)
    default_type_manager.set_compatible(native, bound_type, Conversion.safe)
    default_type_manager.set_compatible(bound_type, native, Conversion.safe)
    return True

"""cuComplex values and Numba complex numbers, both ways.

``cuComplex.h`` defines ``cuFloatComplex`` and ``cuDoubleComplex`` as typedefs of ``float2`` and
``double2``, so its functions bind to numba-cuda's vector types ``float32x2`` / ``float64x2``
(``x`` the real part, ``y`` the imaginary part), which have the layout of ``complex64`` /
``complex128``. Importing this module (``numbast.headers.cucomplex`` does) makes each pair
convert implicitly, in both directions, wherever Numba converts values: ``cuCmulf(a[i], b[i])``
on elements of a ``complex64`` array, and ``out[i] = cuCaddf(x, y)`` into one. ``to_complex(z)``
and ``from_complex(c)`` convert explicitly.

The conversions are registered process-wide with numba-cuda's type manager; they only make
typing succeed where it failed before (no other conversion involves these types).
"""

from __future__ import annotations

from numba.cuda import cgutils, types
from numba.cuda.extending import intrinsic, lower_cast
from numba.cuda.typeconv import Conversion
from numba.cuda.typeconv.rules import default_type_manager
from numba.cuda.vector_types import vector_types

# complex type -> the vector type of the same layout
PAIRS = {
    types.complex64: vector_types["float32x2"],
    types.complex128: vector_types["float64x2"],
}


def _complex_to_vector(context, builder, fromty, toty, value):
    number = context.make_complex(builder, fromty, value)
    vector = cgutils.create_struct_proxy(toty)(context, builder)
    vector.x, vector.y = number.real, number.imag
    return vector._getvalue()


def _vector_to_complex(context, builder, fromty, toty, value):
    vector = cgutils.create_struct_proxy(fromty)(context, builder, value=value)
    number = context.make_complex(builder, toty)
    number.real, number.imag = vector.x, vector.y
    return number._getvalue()


for _complex, _vector in PAIRS.items():
    lower_cast(_complex, _vector)(_complex_to_vector)
    lower_cast(_vector, _complex)(_vector_to_complex)
    default_type_manager.set_compatible(_complex, _vector, Conversion.safe)
    default_type_manager.set_compatible(_vector, _complex, Conversion.safe)


@intrinsic
def to_complex(typingctx, value):
    """``to_complex(z)``: a ``cuFloatComplex`` as ``complex64``, a ``cuDoubleComplex`` as
    ``complex128`` (in kernels)."""
    for number, vector in PAIRS.items():
        if value == vector:

            def codegen(context, builder, sig, args):
                return _vector_to_complex(context, builder, sig.args[0], sig.return_type, args[0])

            return number(value), codegen
    return None


@intrinsic
def from_complex(typingctx, value):
    """``from_complex(c)``: a ``complex64`` as ``cuFloatComplex``, a ``complex128`` as
    ``cuDoubleComplex`` (in kernels)."""
    vector = PAIRS.get(value)
    if vector is None:
        return None

    def codegen(context, builder, sig, args):
        return _complex_to_vector(context, builder, sig.args[0], sig.return_type, args[0])

    return vector(value), codegen

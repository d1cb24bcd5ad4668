"""GPUArray arithmetic, comparisons, fills, casts and ranges as elementwise kernels.

Result types are numpy's (found by doing the operation on one-element numpy arrays, so
Python scalars are "weak" as numpy 2 has them). Each distinct (expression, types) is one
ElementwiseKernel, compiled on first use and cached (in the process, and on disk through
SourceModule). Arrays combine with arrays of the same shape and with 0-d arrays; the
arrays must be contiguous.
"""

from __future__ import annotations

import functools
import operator
from typing import Any

import numpy as np

from numbast_import.rtc.dtypes import dtype_to_ctype

_ARITHMETIC = {
    "+": operator.add,
    "-": operator.sub,
    "*": operator.mul,
    "/": operator.truediv,
    "**": operator.pow,
}
_COMPARISONS = {
    "==": operator.eq,
    "!=": operator.ne,
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
}


@functools.cache
def _kernel(declarations: tuple[str, ...], expression: str, preamble: str = "") -> Any:
    from numbast_import.elementwise import ElementwiseKernel

    return ElementwiseKernel(
        ", ".join(declarations), expression, "numbast_array_op", preamble=preamble
    )


# a ** b as numpy computes it: floats with pow, integers by repeated squaring (exact; a
# negative exponent gives 0 here, where numpy raises), complex numbers with libcu++.
_POW = """
__device__ inline float pow_of(float a, float b) { return powf(a, b); }
__device__ inline double pow_of(double a, double b) { return pow(a, b); }
template <class T> __device__ inline T pow_of(T a, T b)
{
  T result = 1;
  for (; b > 0; b >>= 1, a *= a)
    if (b & 1) result *= a;
  return result;
}
"""
_COMPLEX_POW = """
template <class T> __device__ inline cuda::std::complex<T>
pow_of(cuda::std::complex<T> a, cuda::std::complex<T> b) { return cuda::std::pow(a, b); }
"""


def _probe(value: Any) -> Any:
    """A one-element stand-in for ``value`` (arrays by dtype; scalars as they are)."""
    dtype = getattr(value, "dtype", None)
    if dtype is not None and not isinstance(value, np.generic):
        return np.zeros(1, dtype)
    return value


def result_dtype(op: str, left: Any, right: Any) -> np.dtype:
    """numpy's result dtype of ``left op right``."""
    table = _COMPARISONS if op in _COMPARISONS else _ARITHMETIC
    with np.errstate(all="ignore"):
        probe = table[op](_probe(left), _probe(right))
    return np.asarray(probe).dtype


def _is_array(value: Any) -> bool:
    """A GPUArray (the operators made every device array one), not a scalar."""
    return hasattr(type(value), "__cuda_array_interface__")


def _operand(value: Any, name: str, other_is_array: bool) -> tuple[str, str, Any]:
    """(C declaration, C expression, kernel argument) for one operand."""
    if _is_array(value):
        ctype = dtype_to_ctype(value.dtype)
        element = f"{name}[0]" if value.shape == () and other_is_array else f"{name}[i]"
        return f"{ctype} *{name}", element, value
    return "", "", value  # a scalar: declared by the caller, which knows its dtype


def binary(op: str, left: Any, right: Any, out: Any = None, stream: Any = None) -> Any:
    """``left op right`` for GPUArrays and scalars (at least one GPUArray); into ``out``
    when given (cast to its dtype, as numpy's in-place operators do)."""
    arrays = [a for a in (left, right) if _is_array(a)]
    shaped = [a for a in arrays if a.shape != ()]
    if len({a.shape for a in shaped}) > 1:
        raise ValueError(
            f"shapes {left.shape} and {right.shape} differ (GPUArray broadcasts "
            "0-d arrays and scalars only)"
        )
    z_dtype = result_dtype(op, left, right)
    if out is None:
        out = (shaped or arrays)[0]._new_like_me(z_dtype)
    common = result_dtype("+", left, right) if op in _COMPARISONS else out.dtype
    z_type, c_type = dtype_to_ctype(out.dtype), dtype_to_ctype(common)
    declarations, values, operands = [f"{z_type} *z"], [out], []
    for value, name in ((left, "x"), (right, "y")):
        declaration, element, argument = _operand(value, name, bool(shaped))
        if not declaration:
            scalar = np.asarray(value, dtype=common)[()]
            declaration, element, argument = f"{c_type} {name}", name, scalar
        declarations.append(declaration)
        values.append(argument)
        operands.append(f"({c_type})({element})")
    if op == "**":
        preamble = _POW + (_COMPLEX_POW if common.kind == "c" else "")
        expression = f"z[i] = ({z_type})pow_of({operands[0]}, {operands[1]})"
    else:
        preamble, expression = "", f"z[i] = ({z_type})({operands[0]} {op} {operands[1]})"
    _kernel(tuple(declarations), expression, preamble)(*values, stream=stream)
    return out


def negative(array: Any, out: Any = None, stream: Any = None) -> Any:
    out = array._new_like_me() if out is None else out
    z, x = dtype_to_ctype(out.dtype), dtype_to_ctype(array.dtype)
    _kernel((f"{z} *z", f"{x} *x"), f"z[i] = ({z})(-x[i])")(out, array, stream=stream)
    return out


def absolute(array: Any, stream: Any = None) -> Any:
    dtype = array.dtype
    if dtype.kind == "c":
        out = array._new_like_me(np.dtype(f"f{dtype.itemsize // 2}"))
        expression = "z[i] = cuda::std::abs(x[i])"
    elif dtype.kind in "ui" or dtype.kind == "b":
        out, expression = array._new_like_me(), "z[i] = x[i] < 0 ? -x[i] : x[i]"
    else:
        out, expression = array._new_like_me(), "z[i] = fabs(x[i])"
    z, x = dtype_to_ctype(out.dtype), dtype_to_ctype(dtype)
    _kernel((f"{z} *z", f"{x} *x"), expression)(out, array, stream=stream)
    return out


def fill(array: Any, value: Any, stream: Any = None) -> None:
    """Every element of the contiguous ``array`` set to ``value`` (cast to its dtype)."""
    from numbast_import.rtc import memory

    if array.size == 0:
        return
    scalar = np.asarray(value, dtype=array.dtype)
    raw = scalar.tobytes()
    if raw == bytes(len(raw)):
        memory.memset_d8_async(array.ptr, 0, array.nbytes, stream)
    elif len(raw) == 4:
        memory.memset_d32_async(array.ptr, int.from_bytes(raw, "little"), array.size, stream)
    else:
        z = dtype_to_ctype(array.dtype)
        _kernel((f"{z} *z", f"{z} v"), "z[i] = v")(array, scalar[()], stream=stream)


def cast_into(out: Any, source: Any, stream: Any = None) -> None:
    """``out[i] = source[i]`` converted to ``out``'s dtype (both contiguous, equal sizes)."""
    z, x = dtype_to_ctype(out.dtype), dtype_to_ctype(source.dtype)
    _kernel((f"{z} *z", f"{x} *x"), f"z[i] = ({z})x[i]")(out, source, stream=stream)


def arange_into(out: Any, start: Any, step: Any, stream: Any = None) -> None:
    """``out[i] = start + i * step`` in ``out``'s dtype."""
    z = dtype_to_ctype(out.dtype)
    kernel = _kernel((f"{z} *z", f"{z} start", f"{z} step"), f"z[i] = start + ({z})i * step")
    kind = out.dtype.type
    kernel(out, kind(start), kind(step), stream=stream)

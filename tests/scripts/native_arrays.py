"""Bound ``__half`` / ``__nv_bfloat16`` functions on arrays of numba-cuda's own ``float16`` /
``bfloat16`` (NumPy float16, ml_dtypes or PyTorch bfloat16 arrays), for the scripts that bind
cuda_fp16.h / cuda_bf16.h: dynamically (cuda_fp_headers.py), statically, and through the import
system (builtin_formats.py).

The kernel computes the same values twice: from the arrays' elements directly (numba-cuda's type
converts to the bound struct and back: ``out[i] = hsin(__hadd(a[i], b[i]))``; ``a[i] + b[i]``
is numba-cuda's own addition, which compiles numba-cuda's shims with NVRTC, so it stays out of
the warm-import test), and from the raw bits
through the bound struct alone. The two must agree bit for bit, and ``hsin`` within two units in
the last place of NumPy's sine.
"""

from __future__ import annotations

import numpy as np
from numba import cuda
from numba.cuda import types

ROWS = 3


def make_native_array_kernel(lib, struct_name: str):
    make, raw = getattr(lib, struct_name), getattr(lib, struct_name + "_raw")
    hsin, hmul, hadd = lib.hsin, lib.__hmul, lib.__hadd

    def kernel(a, b, out, a_bits, b_bits, ref_bits):
        i = cuda.grid(1)
        if i < a.size:
            out[0, i] = hsin(hadd(a[i], b[i]))  # elements in, bound result stored into the array
            out[1, i] = hmul(a[i], b[i])
            total = hadd(a[i], make(raw(b_bits[i])))  # numba-cuda's type beside the bound one
            out[2, i] = total
            x, y = make(raw(a_bits[i])), make(raw(b_bits[i]))  # the same values, bits only
            ref_bits[0, i] = raw(hsin(hadd(x, y))).x
            ref_bits[1, i] = raw(hmul(x, y)).x
            ref_bits[2, i] = raw(hadd(x, y)).x

    return kernel


def native_signature(element: types.Type) -> tuple:
    return (
        element[:],
        element[:],
        element[:, :],
        types.uint16[:],
        types.uint16[:],
        types.uint16[:, :],
    )


def _to_device(array: np.ndarray):
    """A device copy of a 16-bit float array. Copied as its bits: numba-cuda copies through the
    buffer protocol, which has no code for ml_dtypes' bfloat16."""
    return cuda.to_device(array.view(np.uint16)).view(array.dtype)


def check_native_arrays(name: str, dtype, kernel, n: int = 2000) -> list[str]:
    """Launch ``kernel`` (from make_native_array_kernel) on ``dtype`` arrays; the problems."""
    rng = np.random.default_rng(5)
    a = rng.uniform(-2.0, 2.0, n).astype(dtype)
    b = rng.uniform(-2.0, 2.0, n).astype(dtype)
    out = _to_device(np.zeros((ROWS, n), dtype=dtype))
    ref_bits = cuda.to_device(np.zeros((ROWS, n), dtype=np.uint16))
    launch = cuda.jit(kernel)[(n + 127) // 128, 128]
    launch(
        _to_device(a),
        _to_device(b),
        out,
        cuda.to_device(a.view(np.uint16)),
        cuda.to_device(b.view(np.uint16)),
        ref_bits,
    )
    got = out.view(np.uint16).copy_to_host().view(dtype)
    want = ref_bits.copy_to_host()
    problems = []
    for row, what in enumerate(("hsin(__hadd(a, b))", "__hmul(a, b)", "__hadd(a, b)")):
        bad = np.flatnonzero(got[row].view(np.uint16) != want[row])
        if bad.size:
            problems.append(
                f"{name} {what} on {np.dtype(dtype).name} arrays differs from the bound struct's "
                f"bits at {bad[:3].tolist()}: {got[row][bad[:3]].tolist()}"
            )
    total = (a.astype(np.float32) + b.astype(np.float32)).astype(dtype)
    reference = np.sin(total.astype(np.float64)).astype(dtype)
    distance = np.abs(
        got[0].view(np.int16).astype(np.int64) - reference.view(np.int16).astype(np.int64)
    )
    same_sign = np.signbit(got[0].astype(np.float32)) == np.signbit(reference.astype(np.float32))
    if not (same_sign | (reference.astype(np.float32) == 0)).all() or distance.max() > 2:
        problems.append(f"{name} hsin(__hadd(a, b)) is more than 2 ulp from NumPy's sine")
    exact = {1: a.astype(np.float32) * b.astype(np.float32), 2: total.astype(np.float32)}
    for row, value in exact.items():  # one rounding of the exact float32 result
        if not np.array_equal(got[row], value.astype(dtype)):
            problems.append(f"{name} row {row} is not the correctly rounded result")
    return problems

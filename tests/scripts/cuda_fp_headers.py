"""Bind the CUDA toolkit's cuda_fp16.h, cuda_bf16.h and cuda_fp8.h dynamically and check them.

Run as a script (its own process: binding ``__half`` and ``__nv_bfloat16`` as new types changes
the process-wide C++ -> Numba type table, which other tests must not see):

    python cuda_fp_headers.py link   # compile and link every kernel to an sm_90 cubin (no GPU)
    python cuda_fp_headers.py run    # launch them and compare with numpy / ml_dtypes

Arithmetic, comparisons and conversions must match the reference exactly; the math functions
(hsqrt, hexp, ...) within one unit in the last place of the format.
"""

from __future__ import annotations

import os
import sys
import warnings

import numpy as np
from numba import cuda
from numba.cuda import types
from numba.cuda.datamodel.models import PrimitiveModel

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from scripts.native_arrays import (  # noqa: E402
    check_native_arrays,
    make_native_array_kernel,
    native_signature,
)
from support import link_kernel_to_cubin  # noqa: E402

from ast_canopy.toolkit import cudart_include_dir  # noqa: E402
from numbast import bind_header  # noqa: E402

# Unary math functions checked to within one ulp, with their numpy reference.
MATH = {
    "hsqrt": np.sqrt,
    "hexp": np.exp,
    "hexp2": np.exp2,
    "hlog": np.log,
    "hlog2": np.log2,
    "hsin": np.sin,
    "hcos": np.cos,
    "hrcp": lambda v: 1.0 / v,
    "hfloor": np.floor,
    "hceil": np.ceil,
    "htrunc": np.trunc,
    "__habs": np.abs,
    "__hneg": np.negative,
}
EXACT_BINARY = ["add", "sub", "mul", "max", "min", "fma"]
COMPARE = ["lt", "le", "eq", "ne", "gt", "ge"]


def bind_format(header: str, hpp: str, struct: str):
    inc = cudart_include_dir()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return bind_header(
            os.path.join(inc, header),
            retain=[os.path.join(inc, hpp)],
            parent_types={struct: types.Number},
            data_models={struct: PrimitiveModel},
        )


def make_half_kernel(lib, struct: str):
    """One kernel per 16-bit format: conversions, operators, comparisons, math functions."""
    make = getattr(lib, struct)
    hfma, hmax, hmin = lib.__hfma, lib.__hmax, lib.__hmin
    f = [lib.functions[name] for name in MATH]
    f0, f1, f2, f3, f4, f5, f6, f7, f8, f9, f10, f11, f12 = f

    def kernel(x, y, out, flags):
        i = cuda.grid(1)
        if i >= x.size:
            return
        a = make(x[i])  # constructor from float
        b = make(y[i])
        out[0, i] = float(a)  # conversion operator
        out[1, i] = float(a + b)
        out[2, i] = float(a - b)
        out[3, i] = float(a * b)
        out[4, i] = float(hmax(a, b))
        out[5, i] = float(hmin(a, b))
        out[6, i] = float(hfma(a, b, a))
        c = make(x[i])
        c += b  # compound assignment updates c
        out[7, i] = float(c)
        out[8, i] = float(-a)  # unary minus
        out[9, i] = float(a / b)
        out[10, i] = float(f0(a))
        out[11, i] = float(f1(a))
        out[12, i] = float(f2(a))
        out[13, i] = float(f3(a))
        out[14, i] = float(f4(a))
        out[15, i] = float(f5(a))
        out[16, i] = float(f6(a))
        out[17, i] = float(f7(a))
        out[18, i] = float(f8(a))
        out[19, i] = float(f9(a))
        out[20, i] = float(f10(a))
        out[21, i] = float(f11(a))
        out[22, i] = float(f12(a))
        flags[0, i] = a < b
        flags[1, i] = a <= b
        flags[2, i] = a == b
        flags[3, i] = a != b
        flags[4, i] = a > b
        flags[5, i] = a >= b

    return kernel


def make_fp8_kernel(lib):
    e4m3, e5m2 = lib.__nv_fp8_e4m3, lib.__nv_fp8_e5m2

    def kernel(x, out):
        i = cuda.grid(1)
        if i < x.size:
            out[0, i] = float(e4m3(x[i]))  # explicit constructor, explicit conversion
            out[1, i] = float(e5m2(x[i]))
            out[2, i] = float(e4m3(np.float64(x[i])))

    return kernel


HALF_SIG = (types.float32[:], types.float32[:], types.float64[:, :], types.boolean[:, :])
FP8_SIG = (types.float32[:], types.float64[:, :])


def ulps(got: np.ndarray, ref: np.ndarray, dtype) -> np.ndarray:
    bits = {2: np.int16, 1: np.int8}[np.dtype(dtype).itemsize]
    g = got.astype(dtype).view(bits).astype(np.int64)
    r = ref.astype(dtype).view(bits).astype(np.int64)
    return np.abs(g - r)


def check_half(name, dtype, kernel, n=4000) -> list[str]:
    rng = np.random.default_rng(1)
    x = rng.uniform(0.1, 4.0, n).astype(np.float32)
    y = rng.uniform(0.5, 3.0, n).astype(np.float32)
    y[:16] = x[:16]  # some equal pairs for == / <=
    out = cuda.to_device(np.zeros((23, n)))
    flags = cuda.to_device(np.zeros((6, n), dtype=np.bool_))
    cuda.jit(kernel)[(n + 127) // 128, 128](cuda.to_device(x), cuda.to_device(y), out, flags)
    out, flags = out.copy_to_host(), flags.copy_to_host()
    a, b = x.astype(dtype), y.astype(dtype)
    a32, b32 = a.astype(np.float32), b.astype(np.float32)
    exact = {
        0: a32,
        1: a32 + b32,
        2: a32 - b32,
        3: a32 * b32,
        4: np.maximum(a32, b32),
        5: np.minimum(a32, b32),
        6: a32 * b32 + a32,  # products of 8/11-bit significands are exact in float32
        7: a32 + b32,
        8: -a32,
    }
    problems = []
    for row, ref in exact.items():
        if not np.array_equal(out[row].astype(dtype), ref.astype(dtype)):
            bad = np.flatnonzero(out[row].astype(dtype) != ref.astype(dtype))[:3]
            problems.append(
                f"{name}: row {row} differs at {bad.tolist()}: got {out[row][bad].tolist()}, "
                f"want {ref[bad].astype(np.float64).tolist()} (a={a32[bad].tolist()}, "
                f"b={b32[bad].tolist()})"
            )
    if ulps(out[9], a32.astype(np.float64) / b32, dtype).max() > 1:
        problems.append(f"{name}: division off by more than one ulp")
    for offset, (fname, fn) in enumerate(MATH.items()):
        ref = fn(a.astype(np.float64))
        worst = ulps(out[10 + offset], ref, dtype).max()
        if worst > 1:
            problems.append(f"{name}: {fname} off by {worst} ulp")
    for row, op in enumerate(COMPARE):
        ref = getattr(
            np,
            {
                "lt": "less",
                "le": "less_equal",
                "eq": "equal",
                "ne": "not_equal",
                "gt": "greater",
                "ge": "greater_equal",
            }[op],
        )(a32, b32)
        if not np.array_equal(flags[row], ref):
            bad = np.flatnonzero(flags[row] != ref)[:3]
            problems.append(
                f"{name}: comparison {op} differs at {bad.tolist()}: got "
                f"{flags[row][bad].tolist()} for a={a32[bad].tolist()}, b={b32[bad].tolist()}"
            )
    return problems


def check_fp8(kernel, n=2000) -> list[str]:
    import ml_dtypes

    rng = np.random.default_rng(2)
    x = rng.uniform(-200.0, 200.0, n).astype(np.float32)
    out = cuda.to_device(np.zeros((3, n)))
    cuda.jit(kernel)[(n + 127) // 128, 128](cuda.to_device(x), out)
    out = out.copy_to_host()
    problems = []
    e4 = x.astype(ml_dtypes.float8_e4m3fn).astype(np.float64)
    e5 = x.astype(ml_dtypes.float8_e5m2).astype(np.float64)
    if not np.array_equal(out[0], e4):
        problems.append("fp8 e4m3 from float differs from ml_dtypes")
    if not np.array_equal(out[1], e5):
        problems.append("fp8 e5m2 from float differs from ml_dtypes")
    if not np.array_equal(out[2], e4):
        problems.append("fp8 e4m3 from double differs from ml_dtypes")
    return problems


def main(mode: str) -> int:
    import ml_dtypes

    fp16 = bind_format("cuda_fp16.h", "cuda_fp16.hpp", "__half")
    bf16 = bind_format("cuda_bf16.h", "cuda_bf16.hpp", "__nv_bfloat16")
    fp8 = bind_format("cuda_fp8.h", "cuda_fp8.hpp", "__nv_fp8_e4m3")
    kernels = {
        "fp16": (make_half_kernel(fp16, "__half"), HALF_SIG, np.float16),
        "bf16": (make_half_kernel(bf16, "__nv_bfloat16"), HALF_SIG, ml_dtypes.bfloat16),
    }
    fp8_kernel = make_fp8_kernel(fp8)
    native = {
        "fp16": (make_native_array_kernel(fp16, "__half"), types.float16, np.float16),
        "bf16": (
            make_native_array_kernel(bf16, "__nv_bfloat16"),
            types.bfloat16,
            ml_dtypes.bfloat16,
        ),
    }
    if mode == "link":
        for name, (kernel, sig, _) in kernels.items():
            size = len(link_kernel_to_cubin(kernel, sig))
            print(f"{name}: linked to an sm_90 cubin ({size} bytes)")
        for name, (kernel, element, dtype) in native.items():
            size = len(link_kernel_to_cubin(kernel, native_signature(element)))
            print(f"{name} on {np.dtype(dtype).name} arrays: linked ({size} bytes)")
        print(f"fp8: linked ({len(link_kernel_to_cubin(fp8_kernel, FP8_SIG))} bytes)")
        return 0
    problems = []
    for name, (kernel, _, dtype) in kernels.items():
        found = check_half(name, dtype, kernel)
        problems += found
        print(
            f"{name}: {'OK' if not found else 'MISMATCH'} (9 exact ops, division, "
            f"{len(MATH)} math functions, 6 comparisons)"
        )
    for name, (kernel, _, dtype) in native.items():
        found = check_native_arrays(name, dtype, kernel)
        problems += found
        print(f"{name} on {np.dtype(dtype).name} arrays: {'OK' if not found else 'MISMATCH'}")
    found = check_fp8(fp8_kernel)
    problems += found
    print(f"fp8: {'OK' if not found else 'MISMATCH'} (e4m3/e5m2 conversions)")
    for p in problems:
        print("  ", p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "run"))

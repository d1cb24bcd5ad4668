"""The built-in modules numbast.headers.cufp16, cubf16, cufp8, cufp6, cufp4 and cucomplex, through
the import system, in kernels.

Run as a script in its own process (the modules register types process-wide), in a project with
the cache where the caller wants it:

    python builtin_formats.py link   # compile and link every kernel to an sm_90 cubin (no GPU;
                                     # run with NUMBAST_IMPORT_ARCH=sm_90)
    python builtin_formats.py run    # launch them and check the numbers

``run`` checks: fp16 / bf16 / fp8 values, raw structs and the types the modules share (fp8 and
bf16 take cufp16's ``__half``); fp6 and fp4 conversions of every representable value, of
midpoints and of random values against ml_dtypes (round to nearest even, saturation), the other
rounding modes against the representable values, and NaN against the bit pattern the headers
document (positive MAXNORM); cuComplex against numpy complex (float32 within a few ulps of the
operands' scale, float64 exact where one IEEE operation decides the result).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import numpy as np
from numba import cuda
from numba.cuda import types

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from scripts.native_arrays import (  # noqa: E402
    check_native_arrays,
    make_native_array_kernel,
    native_signature,
)

import numbast.headers.cubf16 as bf16  # noqa: E402
import numbast.headers.cucomplex as cx  # noqa: E402
import numbast.headers.cufp4 as fp4  # noqa: E402
import numbast.headers.cufp6 as fp6  # noqa: E402
import numbast.headers.cufp8 as fp8  # noqa: E402
import numbast.headers.cufp16 as fp16  # noqa: E402

half, half_raw = fp16.__half, fp16.__half_raw
bfloat16, bfloat16_raw = bf16.__nv_bfloat16, bf16.__nv_bfloat16_raw


# -- fp16, bf16, fp8: values, raw structs, shared types -----------------------------------------


def fp16_kernel(x, out):
    a = half(x[0])
    out[0] = float(fp16.__hfma(fp16.hsqrt(a), a, a + a))
    raw = half_raw(a)  # operator __half_raw(): the bits
    out[1] = raw.x
    out[2] = float(half(half_raw(raw.x)))  # aggregate initialization, then __half(__half_raw)


def bf16_kernel(x, out):
    a = bfloat16(x[0])
    out[0] = float(bf16.__hfma(bf16.hsqrt(a), a, a + a))
    raw = bfloat16_raw(a)
    out[1] = raw.x
    out[2] = float(bfloat16(bfloat16_raw(raw.x)))
    out[3] = float(bfloat16(half(x[0])))  # explicit __nv_bfloat16(__half): cufp16's __half


def fp8_kernel(x, out):
    a = half(x[0])
    out[0] = float(fp8.__nv_fp8_e4m3(a))  # the constructor from cufp16's __half
    bits = fp8.__nv_cvt_halfraw_to_fp8(half_raw(a), fp8.__NV_SATFINITE, fp8.__NV_E4M3)
    out[1] = bits
    out[2] = float(half(fp8.__nv_cvt_fp8_to_halfraw(bits, fp8.__NV_E4M3)))
    out[3] = fp8.__nv_cvt_float_to_e8m0(x[0], fp8.__NV_SATFINITE, fp8.cudaRoundPosInf)


SCALAR_KERNELS = {
    # name: (kernel, output length, expected for x = 2.25)
    "cufp16": (fp16_kernel, 3, [7.875, 0x4080, 2.25]),
    "cubf16": (bf16_kernel, 4, [7.875, 0x4010, 2.25, 2.25]),
    # e4m3(2.25) = 0 1000 001; e8m0 rounding 2.25 up: 2**2, biased exponent 129
    "cufp8": (fp8_kernel, 4, [2.25, 0x41, 2.25, 129]),
}

# numba-cuda's own float16 / bfloat16 arrays with the bound functions: name -> (module, struct,
# numba-cuda's type, NumPy dtype name; ml_dtypes' for bfloat16)
NATIVE_ARRAYS = {
    "cufp16": (fp16, "__half", types.float16, "float16"),
    "cubf16": (bf16, "__nv_bfloat16", types.bfloat16, "bfloat16"),
}


def native_dtype(name: str):
    import ml_dtypes

    return getattr(ml_dtypes, name) if name == "bfloat16" else np.dtype(name)


# -- fp6 and fp4: conversions ------------------------------------------------------------------

ROUNDINGS = ("cudaRoundNearest", "cudaRoundZero", "cudaRoundPosInf", "cudaRoundMinInf")
# module, interpretation enumerator, storage struct, ml_dtypes type name, bits
SMALL_FORMATS = {
    "e2m3": (fp6, "__NV_E2M3", "__nv_fp6_e2m3", "float6_e2m3fn", 6),
    "e3m2": (fp6, "__NV_E3M2", "__nv_fp6_e3m2", "float6_e3m2fn", 6),
    "e2m1": (fp4, "__NV_E2M1", "__nv_fp4_e2m1", "float4_e2m1fn", 4),
}


def directed_roundings(module) -> bool:
    """Whether the toolkit's header converts with rounding toward +inf and -inf: CUDA 13.0's
    cuda_fp6.hpp / cuda_fp4.hpp assert nearest or zero (a device assert), later ones round."""
    header = Path(module.__cuda_header__).with_suffix(".hpp")
    restriction = "(rounding == cudaRoundNearest) || (rounding == cudaRoundZero)"
    return restriction not in header.read_text(errors="replace")


def make_small_format_kernel(format_name: str, directed: bool = True):
    module, interpretation_name, struct_name, _ml, _bits = SMALL_FORMATS[format_name]
    interpretation = getattr(module, interpretation_name)
    storage_struct = getattr(module, struct_name)
    if module is fp6:
        to_bits, to_halfraw = fp6.__nv_cvt_float_to_fp6, fp6.__nv_cvt_fp6_to_halfraw
    else:
        to_bits, to_halfraw = fp4.__nv_cvt_float_to_fp4, fp4.__nv_cvt_fp4_to_halfraw
    nearest, zero = fp8.cudaRoundNearest, fp8.cudaRoundZero  # cudaRoundMode is cufp8's
    up, down = fp8.cudaRoundPosInf, fp8.cudaRoundMinInf

    def kernel(x, bits, back, via_struct):
        i = cuda.grid(1)
        if i < x.size:
            bits[0, i] = to_bits(x[i], interpretation, nearest)
            bits[1, i] = to_bits(x[i], interpretation, zero)
            if directed:
                bits[2, i] = to_bits(x[i], interpretation, up)
                bits[3, i] = to_bits(x[i], interpretation, down)
            back[i] = float(half(to_halfraw(bits[0, i], interpretation)))  # to __half_raw
            via_struct[i] = float(storage_struct(x[i]))  # the storage type's constructor

    return kernel


# -- cuComplex ---------------------------------------------------------------------------------


def make_complex_kernel(double: bool):
    if double:
        add, sub, mul, div, conj = cx.cuCadd, cx.cuCsub, cx.cuCmul, cx.cuCdiv, cx.cuConj
        fma, absolute, make = cx.cuCfma, cx.cuCabs, cx.make_cuDoubleComplex
        real, imag = cx.cuCreal, cx.cuCimag
    else:
        add, sub, mul, div, conj = cx.cuCaddf, cx.cuCsubf, cx.cuCmulf, cx.cuCdivf, cx.cuConjf
        fma, absolute, make = cx.cuCfmaf, cx.cuCabsf, cx.make_cuFloatComplex
        real, imag = cx.cuCrealf, cx.cuCimagf
    to_complex, from_complex = cx.to_complex, cx.from_complex

    def kernel(a, b, d, out):
        i = cuda.grid(1)
        if i < a.size:
            x, y, z = a[i], b[i], d[i]
            out[0, i] = add(x, y)  # complex arguments and results convert implicitly
            out[1, i] = sub(x, y)
            out[2, i] = mul(x, y)
            out[3, i] = div(x, y)
            out[4, i] = conj(x)
            out[5, i] = fma(x, y, z)
            out[6, i] = make(real(x), imag(y))
            out[7, i] = absolute(x)
            out[8, i] = to_complex(conj(from_complex(y)))  # explicit conversions

    return kernel


COMPLEX_ROWS = 9


def complex_signature(double: bool):
    element = types.complex128 if double else types.complex64
    return (element[:], element[:], element[:], element[:, :])


# -- link: every kernel to an sm_90 cubin ----------------------------------------------------


def link() -> None:
    from support import link_kernel_to_cubin

    for name, (kernel, _length, _expected) in SCALAR_KERNELS.items():
        link_kernel_to_cubin(kernel, (types.float32[:], types.float32[:]))
        print("linked", name)
    for name, (module, struct, element, dtype) in NATIVE_ARRAYS.items():
        link_kernel_to_cubin(make_native_array_kernel(module, struct), native_signature(element))
        print("linked", name, "on", dtype, "arrays")
    for name in SMALL_FORMATS:
        signature = (types.float32[:], types.uint8[:, :], types.float32[:], types.float32[:])
        link_kernel_to_cubin(make_small_format_kernel(name), signature)
        print("linked", name)
    for double in (False, True):
        link_kernel_to_cubin(make_complex_kernel(double), complex_signature(double))
        print("linked", "cucomplex", "double" if double else "float")
    print("clang loaded:", "clang.cindex" in sys.modules)


# -- run: the numbers --------------------------------------------------------------------------


def run_scalars() -> None:
    x = cuda.to_device(np.array([2.25], dtype=np.float32))
    for name, (kernel, length, expected) in SCALAR_KERNELS.items():
        out = cuda.to_device(np.zeros(length, dtype=np.float32))
        cuda.jit(kernel)[1, 1](x, out)
        np.testing.assert_array_equal(out.copy_to_host(), np.array(expected, np.float32), name)
        print("ok", name)


def run_native_arrays() -> None:
    for name, (module, struct, _element, dtype) in NATIVE_ARRAYS.items():
        kernel = make_native_array_kernel(module, struct)
        problems = check_native_arrays(name, native_dtype(dtype), kernel)
        assert not problems, "\n".join(problems)
        print("ok", name, "on", dtype, "arrays")


def _representable(ml_type) -> np.ndarray:
    bits = 6 if "float6" in ml_type.__name__ else 4
    values = np.arange(2**bits, dtype=np.uint8).view(ml_type).astype(np.float32)
    return np.unique(values)  # sorted; +0 and -0 are one value


def _directed(x: np.ndarray, values: np.ndarray, mode: str) -> np.ndarray:
    """Rounding toward zero / +inf / -inf onto ``values`` (sorted), saturated."""
    top = values.max()
    clipped = np.clip(x, -top, top)
    below = values[np.searchsorted(values, clipped, side="right") - 1]
    above = values[np.searchsorted(values, clipped, side="left")]
    if mode == "cudaRoundPosInf":
        chosen = above
    elif mode == "cudaRoundMinInf":
        chosen = below
    else:
        chosen = np.where(clipped >= 0, below, above)
    return chosen.astype(np.float32)


def run_small_formats() -> None:
    import ml_dtypes

    rng = np.random.default_rng(13)
    for name, (module, _interp, _struct, ml_name, bits) in SMALL_FORMATS.items():
        ml_type = getattr(ml_dtypes, ml_name)
        values = _representable(ml_type)
        midpoints = (values[1:] + values[:-1]) / 2  # ties: to even
        top = float(values.max())
        x = np.concatenate(
            [
                values,
                -values,
                midpoints,
                -midpoints,
                rng.uniform(-1.25 * top, 1.25 * top, 4000),  # beyond the range: saturates
                [np.nan],
            ]
        ).astype(np.float32)
        finite = ~np.isnan(x)
        out_bits = cuda.to_device(np.zeros((4, x.size), dtype=np.uint8))
        back = cuda.to_device(np.zeros(x.size, dtype=np.float32))
        via_struct = cuda.to_device(np.zeros(x.size, dtype=np.float32))
        directed = directed_roundings(module)
        kernel = cuda.jit(make_small_format_kernel(name, directed))
        kernel[(x.size + 127) // 128, 128](cuda.to_device(x), out_bits, back, via_struct)
        got = out_bits.copy_to_host()
        nearest = x[finite].astype(ml_type)
        np.testing.assert_array_equal(got[0][finite], nearest.view(np.uint8), f"{name} nearest")
        for row, mode in enumerate(ROUNDINGS[1:] if directed else ROUNDINGS[1:2], start=1):
            # Compared as values: the headers do not say which zero a rounded-away value gets.
            decoded = got[row][finite].view(ml_type).astype(np.float32)
            want = _directed(x[finite], values, mode)
            np.testing.assert_array_equal(decoded, want, f"{name} {mode}")
        maxnorm = (1 << (bits - 1)) - 1  # the header: NaN converts to positive MAXNORM
        rows = 4 if directed else 2
        assert (got[:rows, ~finite] == maxnorm).all(), (name, got[:, ~finite])
        np.testing.assert_array_equal(
            back.copy_to_host()[finite], nearest.astype(np.float32), f"{name} back to half"
        )
        np.testing.assert_array_equal(
            via_struct.copy_to_host()[finite], nearest.astype(np.float32), f"{name} struct"
        )
        print("ok", name, "" if directed else "(this toolkit rounds to nearest and zero only)")


def _assert_close(got, want, scale, ulps: float, what: str) -> None:
    """|got - want| <= ulps * eps * scale, per component (scale: the operands' magnitude)."""
    eps = np.finfo(got.real.dtype).eps
    for part in ("real", "imag"):
        error = np.abs(getattr(got, part).astype(np.float64) - getattr(want, part))
        bound = ulps * eps * scale
        worst = np.argmax(error - bound)
        assert (error <= bound).all(), (what, part, got[worst], want[worst], bound[worst])


def run_complex() -> None:
    rng = np.random.default_rng(5)
    n = 10000
    for double in (False, True):
        dtype = np.complex128 if double else np.complex64

        a, b, d = ((rng.normal(size=n) + 1j * rng.normal(size=n)).astype(dtype) for _ in "abd")
        out = cuda.to_device(np.zeros((COMPLEX_ROWS, n), dtype=dtype))
        kernel = cuda.jit(make_complex_kernel(double))
        kernel[(n + 127) // 128, 128](cuda.to_device(a), cuda.to_device(b), cuda.to_device(d), out)
        got = out.copy_to_host()
        what = "complex128" if double else "complex64"
        # One IEEE operation per component: exact.
        np.testing.assert_array_equal(got[0], a + b, f"{what} add")
        np.testing.assert_array_equal(got[1], a - b, f"{what} sub")
        np.testing.assert_array_equal(got[4], np.conj(a), f"{what} conj")
        np.testing.assert_array_equal(got[6], (a.real + 1j * b.imag).astype(dtype), f"{what} make")
        np.testing.assert_array_equal(got[8], np.conj(b), f"{what} to/from_complex")
        # Several operations (fused on the GPU): within a few ulps of the operands' scale.
        wide = [v.astype(np.complex128) for v in (a, b, d)]
        _assert_close(got[2], wide[0] * wide[1], np.abs(wide[0]) * np.abs(wide[1]), 4, "mul")
        _assert_close(got[3], wide[0] / wide[1], np.abs(wide[0]) / np.abs(wide[1]), 8, "div")
        scale = np.abs(wide[0]) * np.abs(wide[1]) + np.abs(wide[2])
        _assert_close(got[5], wide[0] * wide[1] + wide[2], scale, 4, "fma")
        _assert_close(got[7], np.abs(wide[0]).astype(np.complex128), np.abs(wide[0]), 4, "abs")
        print("ok", what)


if __name__ == "__main__":
    if sys.argv[1:] == ["link"]:
        link()
    elif sys.argv[1:] == ["run"]:
        run_scalars()
        run_native_arrays()
        run_small_formats()
        run_complex()
    else:
        sys.exit("usage: builtin_formats.py link|run")

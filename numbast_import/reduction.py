"""PyCUDA's ``pycuda.reduction``: a map expression over some arrays, reduced to one value.

    from numbast_import.reduction import ReductionKernel
    dot = ReductionKernel(np.float32, neutral="0", reduce_expr="a+b",
                          map_expr="x[i]*y[i]", arguments="float *x, float *y")
    result = dot(x_gpu, y_gpu).get()          # a 0-d GPUArray

Two stages in one compiled module (through SourceModule, so cached): each block of the
first reduces a contiguous run of the map's values in shared memory to one partial value;
the second reduces the partial values in one block.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from numbast_import.rtc.dtypes import VectorArg, dtype_to_ctype, needs_headers, parse_c_args

__all__ = ["ReductionKernel", "get_dot_kernel", "get_minmax_kernel", "get_sum_kernel"]

BLOCK = 512
MAX_BLOCKS = 512  # the second stage reduces at most this many partial values in one block

_SOURCE = """{headers}
{preamble}

typedef {out_type} numbast_out_t;

__device__ inline numbast_out_t numbast_reduce(numbast_out_t a, numbast_out_t b)
{{
  return ({reduce_expr});
}}

template <class Map>
__device__ inline void numbast_reduce_block(numbast_out_t *out, size_t n, unsigned int per_thread,
                                            Map map)
{{
  __shared__ numbast_out_t partial[{block}];
  const unsigned int tid = threadIdx.x;
  size_t i = (size_t)blockIdx.x * {block} * per_thread + tid;
  numbast_out_t acc = ({neutral});
  for (unsigned int k = 0; k < per_thread && i < n; ++k, i += {block})
    acc = numbast_reduce(acc, map(i));
  partial[tid] = acc;
  __syncthreads();
  for (unsigned int active = {block} / 2; active > 0; active /= 2)
  {{
    if (tid < active)
      partial[tid] = numbast_reduce(partial[tid], partial[tid + active]);
    __syncthreads();
  }}
  if (tid == 0)
    out[blockIdx.x] = partial[0];
}}

extern "C" __global__ void {name}_stage1(numbast_out_t *out, {arguments}{comma}size_t n,
                                         unsigned int per_thread)
{{
  auto map = [&](size_t i) -> numbast_out_t {{ return ({map_expr}); }};
  numbast_reduce_block(out, n, per_thread, map);
}}

extern "C" __global__ void {name}_stage2(numbast_out_t *out, const numbast_out_t *in, size_t n,
                                         unsigned int per_thread)
{{
  numbast_reduce_block(out, n, per_thread, [&](size_t i) -> numbast_out_t {{ return in[i]; }});
}}
"""


class ReductionKernel:
    """``reduce_expr`` (of ``a`` and ``b``) folded over ``map_expr`` (of ``i`` and the
    ``arguments``; ``in[i]`` of one input array when not given), starting from ``neutral``.
    Calling it with the arguments returns a 0-d GPUArray of ``dtype_out``."""

    def __init__(
        self,
        dtype_out: Any,
        neutral: Any,
        reduce_expr: str,
        map_expr: str | None = None,
        arguments: Any = None,
        name: str = "reduce_kernel",
        keep: bool = False,
        options: Sequence[str] | None = None,
        preamble: str = "",
        allocator: Any = None,
    ) -> None:
        from numbast_import.compiler import SourceModule

        self.dtype_out = np.dtype(dtype_out)
        if map_expr is None:
            map_expr = "in[i]"
            arguments = arguments or f"const {dtype_to_ctype(self.dtype_out)} *in"
        self.arguments = parse_c_args(arguments or [])
        self._vector_flags = tuple(isinstance(a, VectorArg) for a in self.arguments)
        if not any(self._vector_flags):
            raise ValueError("ReductionKernel needs at least one vector (pointer) argument")
        self.source = reduction_source(
            self.dtype_out, neutral, reduce_expr, map_expr, self.arguments, name, preamble
        )
        self.module = SourceModule(self.source, options=options, keep=keep, no_extern_c=True)
        size_t = np.dtype(np.uintp).char
        self.stage1 = self.module.get_function(f"{name}_stage1")
        self.stage1.prepare("P" + "".join(a.struct_char for a in self.arguments) + size_t + "I")
        self.stage2 = self.module.get_function(f"{name}_stage2")
        self.stage2.prepare("PP" + size_t + "I")
        self.allocator = allocator

    def __call__(
        self, *args: Any, stream: Any = None, out: Any = None, allocator: Any = None
    ) -> Any:
        from numbast_import.elementwise import _size_of, vector_pointer
        from numbast_import.rtc.gpu_array import GPUArray

        if len(args) != len(self.arguments):
            raise TypeError(
                f"this reduction takes {len(self.arguments)} arguments, got {len(args)}"
            )
        values = [
            vector_pointer(arg) if is_vector else arg
            for arg, is_vector in zip(args, self._vector_flags, strict=True)
        ]
        n = _size_of(args[self._vector_flags.index(True)])
        allocator = allocator or self.allocator
        extra = {} if allocator is None else {"allocator": allocator}
        if out is None:
            out = GPUArray((), self.dtype_out, **extra)
        blocks = max(1, min(MAX_BLOCKS, -(-n // BLOCK)))
        per_thread = max(1, -(-n // (blocks * BLOCK)))
        if blocks == 1:
            self.stage1.prepared_async_call(
                (1, 1), (BLOCK, 1, 1), stream, out.ptr, *values, n, per_thread
            )
            return out
        partial = GPUArray((blocks,), self.dtype_out, **extra)
        self.stage1.prepared_async_call(
            (blocks, 1), (BLOCK, 1, 1), stream, partial.ptr, *values, n, per_thread
        )
        self.stage2.prepared_async_call(
            (1, 1), (BLOCK, 1, 1), stream, out.ptr, partial.ptr, blocks, 1
        )
        return out


def reduction_source(
    dtype_out: Any,
    neutral: Any,
    reduce_expr: str,
    map_expr: str,
    arguments: Any,
    name: str = "reduce_kernel",
    preamble: str = "",
) -> str:
    """The source ReductionKernel compiles: kernels ``<name>_stage1`` and ``<name>_stage2``."""
    arguments = parse_c_args(arguments)
    dtype_out = np.dtype(dtype_out)
    return _SOURCE.format(
        headers="\n".join(needs_headers([dtype_out, *(a.dtype for a in arguments)])),
        preamble=preamble,
        out_type=dtype_to_ctype(dtype_out),
        reduce_expr=reduce_expr,
        neutral=neutral,
        block=BLOCK,
        name=name,
        map_expr=map_expr,
        arguments=", ".join(a.declarator() for a in arguments),
        comma=", " if arguments else "",
    )


_kernels: dict[tuple, ReductionKernel] = {}


def _memoized(key: tuple, make: Any) -> ReductionKernel:
    from numbast_import.rtc.memoize import current_context_key

    key = (current_context_key(), *key)
    found = _kernels.get(key)
    if found is None:
        found = _kernels[key] = make()
    return found


def get_sum_kernel(dtype_out: Any, dtype_in: Any) -> ReductionKernel:
    dtype_out = np.dtype(dtype_out)
    return _memoized(
        ("sum", dtype_out, np.dtype(dtype_in)),
        lambda: ReductionKernel(
            dtype_out,
            "0",
            "a+b",
            f"({dtype_to_ctype(dtype_out)})in[i]",
            f"const {dtype_to_ctype(dtype_in)} *in",
            name="numbast_sum",
        ),
    )


def get_dot_kernel(dtype_out: Any, dtype_a: Any, dtype_b: Any) -> ReductionKernel:
    out = dtype_to_ctype(dtype_out)
    return _memoized(
        ("dot", np.dtype(dtype_out), np.dtype(dtype_a), np.dtype(dtype_b)),
        lambda: ReductionKernel(
            dtype_out,
            "0",
            "a+b",
            f"({out})a_vec[i] * ({out})b_vec[i]",
            f"const {dtype_to_ctype(dtype_a)} *a_vec, const {dtype_to_ctype(dtype_b)} *b_vec",
            name="numbast_dot",
        ),
    )


def _extreme(what: str, dtype: np.dtype) -> str:
    """The neutral element of min (the largest value) or max (the smallest), in C."""
    if dtype.kind == "f":
        if dtype.itemsize <= 4:  # +inf / -inf from their bits
            return f"__int_as_float((int){'0x7f800000' if what == 'min' else '0xff800000'}u)"
        bits = "0x7ff0000000000000" if what == "min" else "0xfff0000000000000"
        return f"__longlong_as_double((long long){bits}ull)"
    info = np.iinfo(dtype)
    value = int(info.max if what == "min" else info.min)
    if value >= 0:
        return f"({dtype_to_ctype(dtype)}){value}ull"
    return f"({dtype_to_ctype(dtype)})({value + 1}ll - 1)"  # -2**63 has no literal


def get_minmax_kernel(what: str, dtype: Any) -> ReductionKernel:
    """min or max of an array; a NaN anywhere gives NaN, as numpy's."""
    dtype = np.dtype(dtype)
    pick = "<" if what == "min" else ">"
    expression = f"(a != a) ? a : ((b != b) ? b : ((a {pick} b) ? a : b))"
    return _memoized(
        (what, dtype),
        lambda: ReductionKernel(
            dtype,
            _extreme(what, dtype),
            expression,
            "in[i]",
            f"const {dtype_to_ctype(dtype)} *in",
            name=f"numbast_{what}",
        ),
    )

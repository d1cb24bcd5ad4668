"""PyCUDA's ``pycuda.elementwise``: one operation applied at every index of some arrays, as a
kernel compiled from a C snippet (through SourceModule, so cached on disk like any source).

    from numbast_import.elementwise import ElementwiseKernel
    lin_comb = ElementwiseKernel("float a, float *x, float b, float *y, float *z",
                                 "z[i] = a*x[i] + b*y[i]", "linear_combination")
    lin_comb(np.float32(5), x_gpu, np.float32(6), y_gpu, z_gpu)

The snippet sees the loop index ``i`` (and ``tid``, ``total_threads``, ``cta_start``); the
kernel gets the element count ``n`` (or ``start``, ``stop``, ``step`` with ``range=`` /
``slice=``) after the given arguments. Vector arguments take GPUArrays or anything with
``__cuda_array_interface__`` (CuPy, Numba, PyTorch arrays). See docs/rtc.md.
"""

from __future__ import annotations

import builtins
from collections.abc import Sequence
from typing import Any

import numpy as np

from numbast_import.rtc import launch_shapes
from numbast_import.rtc.array_operators import ArrayOperators
from numbast_import.rtc.dtypes import (
    Argument,
    ScalarArg,
    VectorArg,
    needs_headers,
    parse_c_args,
)
from numbast_import.rtc.linear_combination import get_linear_combination_kernel

__all__ = [
    "ElementwiseKernel",
    "ScalarArg",
    "VectorArg",
    "get_elwise_kernel",
    "get_elwise_kernel_and_types",
    "get_elwise_module",
    "get_elwise_range_module",
    "get_linear_combination_kernel",
]

# The loop runs over i; the names tid, total_threads and cta_start are PyCUDA's, and snippets
# written for it use them in loop_prep and after_loop.
_KERNEL = """{headers}
{preamble}

extern "C" __global__ void {name}({parameters})
{{
  const size_t tid = threadIdx.x;
  const size_t total_threads = (size_t)gridDim.x * blockDim.x;
  const size_t cta_start = (size_t)blockDim.x * blockIdx.x;
  {index_type} i;
  {loop_prep};
{loops}
  {after_loop};
}}
"""
_COUNTED_LOOP = """  for (i = cta_start + tid; i < n; i += total_threads)
  {{
    {operation};
  }}"""
_RANGE_LOOP = """  const long long first = start + (long long)(cta_start + tid) * step;
  const long long stride = (long long)total_threads * step;
  if (step < 0)
  {{
    for (i = first; i > stop; i += stride)
    {{
      {operation};
    }}
  }}
  else
  {{
    for (i = first; i < stop; i += stride)
    {{
      {operation};
    }}
  }}"""


def _source(
    arguments: Sequence[Argument],
    operation: str,
    name: str,
    preamble: str,
    loop_prep: str,
    after_loop: str,
    use_range: bool,
) -> str:
    loop = _RANGE_LOOP if use_range else _COUNTED_LOOP
    return _KERNEL.format(
        headers="\n".join(needs_headers(a.dtype for a in arguments)),
        preamble=preamble,
        name=name,
        parameters=", ".join(argument.declarator() for argument in arguments),
        index_type="long long" if use_range else "size_t",
        loop_prep=loop_prep,
        loops=loop.format(operation=operation),
        after_loop=after_loop,
    )


def _module(arguments, operation, name, keep, options, preamble, loop_prep, after_loop, ranged):
    from numbast_import.compiler import SourceModule

    source = _source(
        parse_c_args(arguments), operation, name, preamble, loop_prep, after_loop, ranged
    )
    return SourceModule(source, options=options, keep=keep, no_extern_c=True)


def with_loop_arguments(arguments: Any, use_range: bool) -> list[Argument]:
    """``arguments`` and what the loop runs over: ``n``, or ``start``, ``stop``, ``step``."""
    arguments = parse_c_args(arguments)
    if use_range:
        return [*arguments, *(ScalarArg(np.intp, name) for name in ("start", "stop", "step"))]
    return [*arguments, ScalarArg(np.uintp, "n")]


def elementwise_source(
    arguments: Any, operation: str, name: str = "kernel", use_range: bool = False, **kwargs: Any
) -> str:
    """The source get_elwise_kernel_and_types compiles (``n`` or the range appended)."""
    arguments = with_loop_arguments(arguments, use_range)
    parts = {"preamble": "", "loop_prep": "", "after_loop": ""}
    parts.update((k, v) for k, v in kwargs.items() if k in parts)
    return _source(arguments, operation, name, use_range=use_range, **parts)


def get_elwise_module(
    arguments: Any,
    operation: str,
    name: str = "kernel",
    keep: bool = False,
    options: Sequence[str] | None = None,
    preamble: str = "",
    loop_prep: str = "",
    after_loop: str = "",
) -> Any:
    """A SourceModule with kernel ``name(arguments)`` running ``operation`` for ``i`` below
    ``n``, which must be one of ``arguments``."""
    return _module(
        arguments, operation, name, keep, options, preamble, loop_prep, after_loop, False
    )


def get_elwise_range_module(
    arguments: Any,
    operation: str,
    name: str = "kernel",
    keep: bool = False,
    options: Sequence[str] | None = None,
    preamble: str = "",
    loop_prep: str = "",
    after_loop: str = "",
) -> Any:
    """As get_elwise_module, for ``i`` from ``start`` to ``stop`` by ``step`` (arguments)."""
    return _module(arguments, operation, name, keep, options, preamble, loop_prep, after_loop, True)


def get_elwise_kernel_and_types(
    arguments: Any,
    operation: str,
    name: str = "kernel",
    keep: bool = False,
    options: Sequence[str] | None = None,
    use_range: bool = False,
    **kwargs: Any,
) -> tuple[Any, Any, list[Argument]]:
    """(module, prepared Function, arguments): ``n`` (or start, stop, step) appended."""
    arguments = with_loop_arguments(arguments, use_range)
    builder = get_elwise_range_module if use_range else get_elwise_module
    module = builder(arguments, operation, name, keep, options, **kwargs)
    function = module.get_function(name)
    function.prepare("".join(argument.struct_char for argument in arguments))
    return module, function, arguments


def get_elwise_kernel(
    arguments: Any,
    operation: str,
    name: str = "kernel",
    keep: bool = False,
    options: Sequence[str] | None = None,
    **kwargs: Any,
) -> Any:
    """A prepared Function taking ``arguments`` and then the element count."""
    return get_elwise_kernel_and_types(arguments, operation, name, keep, options, **kwargs)[1]


def vector_pointer(array: Any) -> int:
    """The device address of a vector argument: a GPUArray, an int, or anything with
    ``__cuda_array_interface__``; non-contiguous arrays are refused."""
    if isinstance(array, ArrayOperators):  # a GPUArray: contiguity known since it was made
        if not array._contiguous:
            raise ValueError("elementwise kernels cannot deal with non-contiguous arrays")
        return array._pointer
    from numbast_import.rtc.memory import device_pointer

    interface = getattr(array, "__cuda_array_interface__", None)
    if interface is not None and interface.get("strides") is not None:
        from numbast_import.gpuarray import as_gpuarray

        return vector_pointer(as_gpuarray(array))  # checks contiguity
    return device_pointer(array)


def _size_of(array: Any) -> int:
    size = getattr(array, "size", None)
    if size is not None:
        return int(size)
    interface = array.__cuda_array_interface__
    return int(np.prod(interface["shape"]))


class ElementwiseKernel:
    """``operation`` at every index of the arrays among ``arguments`` (a C parameter list
    as a string, or VectorArg / ScalarArg objects). Compiled when first called."""

    def __init__(
        self,
        arguments: Any,
        operation: str,
        name: str = "kernel",
        keep: bool = False,
        options: Sequence[str] | None = None,
        **kwargs: Any,
    ) -> None:
        self.arguments = parse_c_args(arguments)
        if not any(isinstance(argument, VectorArg) for argument in self.arguments):
            raise ValueError("ElementwiseKernel needs at least one vector (pointer) argument")
        self.gen_kwargs = dict(
            kwargs,
            arguments=self.arguments,
            operation=operation,
            name=name,
            keep=keep,
            options=options,
        )
        self._vector_flags = tuple(isinstance(a, VectorArg) for a in self.arguments)
        self._first_vector = self._vector_flags.index(True)
        self._kernels: dict[bool, Any] = {}

    def _kernel(self, use_range: bool) -> Any:
        # One kernel per form for every context: a module loads as a context-independent
        # library (cuLibraryLoad), as PyCUDA's ElementwiseKernel keeps one per instance.
        found = self._kernels.get(use_range)
        if found is None:
            kwargs = dict(self.gen_kwargs, arguments=list(self.arguments))
            found = self._kernels[use_range] = get_elwise_kernel_and_types(
                use_range=use_range, **kwargs
            )
        return found

    def source(self, use_range: bool = False) -> str:
        """The source text this kernel compiles (without or with ``range=``)."""
        kwargs = {k: v for k, v in self.gen_kwargs.items() if k not in ("keep", "options")}
        return elementwise_source(
            use_range=use_range, **dict(kwargs, arguments=list(self.arguments))
        )

    def generate_stride_kernel_and_types(self, use_range: bool) -> tuple[Any, Any, list]:
        return self._kernel(use_range)

    def get_texref(self, name: str, use_range: bool = False) -> Any:
        return self._kernel(use_range)[0].get_texref(name)

    def __call__(
        self, *args: Any, range: Any = None, slice: Any = None, stream: Any = None
    ) -> None:
        if len(args) != len(self._vector_flags):
            raise TypeError(
                f"this kernel takes {len(self._vector_flags)} arguments, got {len(args)}"
            )
        values = [
            vector_pointer(arg) if is_vector else arg
            for arg, is_vector in zip(args, self._vector_flags, strict=True)
        ]
        first = args[self._first_vector]
        if slice is not None:
            if range is not None:
                raise TypeError("give range= or slice=, not both")
            range = builtins.slice(*slice.indices(_size_of(first)))
        if range is None:
            _module, function, _arguments = self._kernel(False)
            grid, block = launch_shape(first)
            values.append(_size_of(first))
        else:
            _module, function, _arguments = self._kernel(True)
            step = 1 if range.step is None else range.step
            count = max(0, -(-(range.stop - range.start) // step))
            grid, block = splay(count)
            values += [range.start, range.stop, step]
        function.prepared_async_call(grid, block, stream, *values)


def launch_shape(array: Any) -> tuple[tuple[int, int], tuple[int, int, int]]:
    """(grid, block) for an elementwise kernel over ``array`` (a GPUArray's own, or splay)."""
    grid = getattr(array, "_grid", None)
    if grid is not None:
        return grid, array._block
    return splay(_size_of(array))


def splay(n: int, dev: Any = None) -> tuple[tuple[int, int], tuple[int, int, int]]:
    """(grid, block) that cover ``n`` elements with a grid-stride loop."""
    return launch_shapes.splay(n)

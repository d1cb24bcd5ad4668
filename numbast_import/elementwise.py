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
from numbast_import.rtc.array_layout import is_contiguous
from numbast_import.rtc.dtypes import ScalarArg, VectorArg, parse_c_args
from numbast_import.rtc.elementwise_modules import (
    elementwise_source,
    get_elwise_kernel,
    get_elwise_kernel_and_types,
    get_elwise_module,
    get_elwise_range_module,
)
from numbast_import.rtc.linear_combination import get_linear_combination_kernel
from numbast_import.rtc.memory import device_pointer, wait_for_producer

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


def vector_pointer(array: Any) -> int:
    """The device address of a vector argument: a GPUArray, an int, or anything with
    ``__cuda_array_interface__``; non-contiguous arrays are refused."""
    contiguous = getattr(array, "_contiguous", None)  # a GPUArray's, known since it was made
    if contiguous is not None:
        if not contiguous:
            raise ValueError("elementwise kernels cannot deal with non-contiguous arrays")
        return array._pointer
    interface = getattr(array, "__cuda_array_interface__", None)
    if interface is not None and interface.get("strides") is not None:
        shape, strides = tuple(interface["shape"]), tuple(interface["strides"])
        itemsize = np.dtype(interface["typestr"]).itemsize
        if not (
            is_contiguous(shape, strides, itemsize, "C")
            or is_contiguous(shape, strides, itemsize, "F")
        ):
            raise ValueError("elementwise kernels cannot deal with non-contiguous arrays")
        wait_for_producer(interface)
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

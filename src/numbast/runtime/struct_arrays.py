"""Device arrays of bound C++ structs: ``numbast.struct_array(T, n)``, ``numbast.struct_dtype(T)``.

A kernel that keeps one cuRAND state per thread needs an array whose elements *are* the bound
struct type, so that ``states[i]`` is a ``curandStateXORWOW`` it can pass to ``curand_uniform``.
Numba types a device array from its NumPy dtype, and no NumPy dtype stands for a C++ struct, so
``struct_array`` returns a device array that tells Numba its element type itself (the
``_numba_type_`` that Numba asks every argument for). On the host its dtype is
``struct_dtype(T)``: opaque words of the struct's size, enough to copy the bytes to and from
NumPy arrays.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np
from numba import cuda
from numba.cuda import types
from numba.cuda.cudadrv.devicearray import DeviceNDArray


def _struct_type(struct: Any) -> types.Type:
    numba_type = getattr(struct, "_numba_type_", struct)
    if not isinstance(numba_type, types.Type) or getattr(numba_type, "sizeof_", None) is None:
        raise TypeError(
            f"{struct!r} is not a bound C++ struct: pass the struct a bindings module exports "
            "(e.g. numbast.headers.curand.curandState)"
        )
    return numba_type


def struct_dtype(struct: Any) -> np.dtype:
    """The NumPy dtype of ``struct`` (a bound struct or its Numba type) on the host: its size,
    as unsigned words of its alignment (at most 8 bytes: NumPy has no wider word), in one field
    named ``bytes``. Device allocations are 256-byte aligned, so every element of a device array
    is aligned as C++ requires."""
    numba_type = _struct_type(struct)
    size, align = numba_type.sizeof_, numba_type.alignof_ or 1
    word = next(w for w in (8, 4, 2, 1) if align % w == 0 and size % w == 0)
    return np.dtype([("bytes", f"u{word}", (size // word,))], align=True)


class StructDeviceArray(DeviceNDArray):
    """A device array whose elements kernels see as a bound C++ struct."""

    element_type: types.Type  # set by each struct's subclass

    @property
    def _numba_type_(self) -> types.Array:
        return super()._numba_type_.copy(dtype=self.element_type)


@functools.cache
def _array_class(numba_type: types.Type) -> type[StructDeviceArray]:
    # A class per struct: slicing and copies make arrays of the same class.
    name = f"{numba_type.cxx_qual_name.replace('::', '_')}_DeviceArray"
    return type(name, (StructDeviceArray,), {"element_type": numba_type})


def struct_array(struct: Any, shape: int | tuple[int, ...], stream: Any = 0) -> StructDeviceArray:
    """A new (uninitialized) C-ordered device array of ``shape`` elements of ``struct``; in a
    kernel, ``arr[i]`` is the struct. Initialize the elements in a kernel (e.g. ``curand_init``)
    or copy bytes in with ``copy_to_device`` from a NumPy array of ``struct_dtype(struct)``."""
    numba_type = _struct_type(struct)
    plain = cuda.device_array(shape, dtype=struct_dtype(numba_type), stream=stream)
    return _array_class(numba_type)(
        plain.shape, plain.strides, plain.dtype, stream=stream, gpu_data=plain.gpu_data
    )

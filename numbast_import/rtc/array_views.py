"""GPUArray's views: indexing, reshape, ravel, view, squeeze, transpose (a mixin of
GPUArray; the arithmetic of strides is ``array_layout``'s)."""

from __future__ import annotations

from typing import Any

import numpy as np

from numbast_import.rtc import array_ops
from numbast_import.rtc.array_layout import basic_index, contiguous_strides, reshaped


class ArrayViews:
    """Views of GPUArray: new shapes and strides over the same memory."""

    def __getitem__(self, index: Any) -> Any:
        shape, strides, offset = basic_index(index, self.shape, self.strides)
        return self._view(shape, strides, offset)

    def __setitem__(self, index: Any, value: Any) -> None:
        target = self[index]
        if hasattr(value, "__cuda_array_interface__"):
            source = self._adopt(value)
            if source.shape != target.shape or not (source._contiguous and target._contiguous):
                raise ValueError("assigning a GPUArray needs equal shapes, both contiguous")
            array_ops.cast_into(target, source)
        elif np.ndim(value) == 0:
            if not target._contiguous:
                raise ValueError("assigning a scalar needs a contiguous selection")
            target.fill(value)
        else:
            target.set(np.broadcast_to(np.asarray(value, self.dtype), target.shape))

    def reshape(self, *shape: Any, order: str = "C") -> Any:
        new = reshaped(self.shape, self.size, shape)
        if new == self.shape:
            return self
        want = "F" if order == "F" else "C"
        if not (self.flags.f_contiguous if want == "F" else self.flags.c_contiguous):
            raise ValueError(f"reshape in order {want!r} needs an array contiguous that way")
        return self._view(new, contiguous_strides(new, self.dtype.itemsize, want))

    def ravel(self) -> Any:
        return self.reshape(self.size)

    def view(self, dtype: Any = None) -> Any:
        dtype = self.dtype if dtype is None else np.dtype(dtype)
        if dtype.itemsize == self.dtype.itemsize:
            return self._view(self.shape, self.strides, dtype=dtype)
        if not self.flags.c_contiguous or not self.shape:
            raise ValueError("a view with another itemsize needs a C-contiguous array")
        last = self.shape[-1] * self.dtype.itemsize
        if last % dtype.itemsize:
            raise ValueError(f"the last axis ({last} bytes) does not divide into {dtype}")
        shape = (*self.shape[:-1], last // dtype.itemsize)
        return self._view(shape, contiguous_strides(shape, dtype.itemsize, "C"), dtype=dtype)

    def squeeze(self) -> Any:
        kept = [(n, s) for n, s in zip(self.shape, self.strides, strict=True) if n != 1]
        return self._view(tuple(n for n, _ in kept), tuple(s for _, s in kept))

    def transpose(self, axes: Any = None) -> Any:
        axes = tuple(reversed(range(self.ndim))) if axes is None else tuple(axes)
        return self._view(tuple(self.shape[a] for a in axes), tuple(self.strides[a] for a in axes))

    @property
    def T(self) -> Any:  # noqa: N802 - numpy's name
        return self.transpose()

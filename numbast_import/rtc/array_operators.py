"""GPUArray's arithmetic, comparisons, fill and astype (a mixin of GPUArray): each is an
elementwise kernel of ``array_ops``."""

from __future__ import annotations

from typing import Any

import numpy as np

from numbast_import.rtc import array_ops


class ArrayOperators:
    """Elementwise operations of GPUArray (which provides ``_new_like_me``, ``copy`` and
    ``_adopt``, its view of another library's device array)."""

    def _operand(self, value: Any) -> Any:
        """A GPUArray for device arrays of other libraries (``__cuda_array_interface__``);
        numbers and GPUArrays stay as they are."""
        if isinstance(value, ArrayOperators) or not hasattr(value, "__cuda_array_interface__"):
            return value
        return self._adopt(value)

    def fill(self, value: Any, stream: Any = None) -> Any:
        array_ops.fill(self, value, stream)
        return self

    def astype(self, dtype: Any, stream: Any = None) -> Any:
        dtype = np.dtype(dtype)
        if dtype == self.dtype:
            return self.copy()
        out = self._new_like_me(dtype)
        array_ops.cast_into(out, self, stream)
        return out

    def __add__(self, other: Any) -> Any:
        return array_ops.binary("+", self, self._operand(other))

    def __radd__(self, other: Any) -> Any:
        return array_ops.binary("+", self._operand(other), self)

    def __sub__(self, other: Any) -> Any:
        return array_ops.binary("-", self, self._operand(other))

    def __rsub__(self, other: Any) -> Any:
        return array_ops.binary("-", self._operand(other), self)

    def __mul__(self, other: Any) -> Any:
        return array_ops.binary("*", self, self._operand(other))

    def __rmul__(self, other: Any) -> Any:
        return array_ops.binary("*", self._operand(other), self)

    def __truediv__(self, other: Any) -> Any:
        return array_ops.binary("/", self, self._operand(other))

    def __rtruediv__(self, other: Any) -> Any:
        return array_ops.binary("/", self._operand(other), self)

    def __pow__(self, other: Any) -> Any:
        return array_ops.binary("**", self, self._operand(other))

    def __rpow__(self, other: Any) -> Any:
        return array_ops.binary("**", self._operand(other), self)

    def __iadd__(self, other: Any) -> Any:
        return array_ops.binary("+", self, self._operand(other), out=self)

    def __isub__(self, other: Any) -> Any:
        return array_ops.binary("-", self, self._operand(other), out=self)

    def __imul__(self, other: Any) -> Any:
        return array_ops.binary("*", self, self._operand(other), out=self)

    def __itruediv__(self, other: Any) -> Any:
        return array_ops.binary("/", self, self._operand(other), out=self)

    def __neg__(self) -> Any:
        return array_ops.negative(self)

    def __pos__(self) -> Any:
        return self

    def __abs__(self) -> Any:
        return array_ops.absolute(self)

    def _compare(self, op: str, other: Any) -> Any:
        return array_ops.binary(op, self, self._operand(other))

    def __eq__(self, other: Any) -> Any:  # type: ignore[override]
        return self._compare("==", other)

    def __ne__(self, other: Any) -> Any:  # type: ignore[override]
        return self._compare("!=", other)

    def __lt__(self, other: Any) -> Any:
        return self._compare("<", other)

    def __le__(self, other: Any) -> Any:
        return self._compare("<=", other)

    def __gt__(self, other: Any) -> Any:
        return self._compare(">", other)

    def __ge__(self, other: Any) -> Any:
        return self._compare(">=", other)

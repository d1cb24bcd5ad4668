"""Shapes, strides and indexing of strided arrays, as numpy defines them (plain arithmetic,
no device memory): what GPUArray's views, reshapes and copies are computed with."""

from __future__ import annotations

import math
from typing import Any

import numpy as np


def normalize_shape(shape: Any) -> tuple[int, ...]:
    if isinstance(shape, (int, np.integer)):
        return (int(shape),)
    return tuple(int(extent) for extent in shape)


def contiguous_strides(shape: tuple[int, ...], itemsize: int, order: str) -> tuple[int, ...]:
    strides = [0] * len(shape)
    step = itemsize
    axes = range(len(shape)) if order == "F" else reversed(range(len(shape)))
    for axis in axes:
        strides[axis] = step
        step *= max(shape[axis], 1)
    return tuple(strides)


def is_contiguous(shape: tuple[int, ...], strides: tuple[int, ...], itemsize: int, order: str):
    """Whether the layout is C (or F) contiguous; axes of extent 1 may have any stride."""
    if math.prod(shape) <= 1:
        return True
    expected = contiguous_strides(shape, itemsize, order)
    return all(e == s or n == 1 for e, s, n in zip(expected, strides, shape, strict=True))


def byte_span(shape: tuple[int, ...], strides: tuple[int, ...], itemsize: int) -> tuple[int, int]:
    """(lowest, highest + itemsize) byte offsets the elements occupy (0, 0 when empty)."""
    if math.prod(shape) == 0:
        return 0, 0
    low = sum((n - 1) * s for n, s in zip(shape, strides, strict=True) if s < 0)
    high = sum((n - 1) * s for n, s in zip(shape, strides, strict=True) if s > 0)
    return low, high + itemsize


def basic_index(
    index: Any, shape: tuple[int, ...], strides: tuple[int, ...]
) -> tuple[tuple[int, ...], tuple[int, ...], int]:
    """(shape, strides, byte offset) of ``array[index]`` for ints, slices, ``...`` and
    ``None``; other indices (arrays, masks) raise IndexError."""
    items = index if isinstance(index, tuple) else (index,)
    explicit = sum(1 for item in items if item is not None and item is not Ellipsis)
    if explicit > len(shape):
        raise IndexError(f"too many indices for an array of {len(shape)} dimensions")
    if sum(1 for item in items if item is Ellipsis) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    new_shape: list[int] = []
    new_strides: list[int] = []
    offset = 0
    axis = 0
    for item in items:
        if item is Ellipsis:
            for _ in range(len(shape) - explicit):
                new_shape.append(shape[axis])
                new_strides.append(strides[axis])
                axis += 1
        elif item is None:
            new_shape.append(1)
            new_strides.append(0)
        elif isinstance(item, slice):
            start, stop, step = item.indices(shape[axis])
            new_shape.append(len(range(start, stop, step)))
            new_strides.append(strides[axis] * step)
            offset += start * strides[axis]
            axis += 1
        elif isinstance(item, (int, np.integer)):
            position = int(item) + (shape[axis] if item < 0 else 0)
            if not 0 <= position < shape[axis]:
                raise IndexError(
                    f"index {item} is out of bounds for axis {axis} of size {shape[axis]}"
                )
            offset += position * strides[axis]
            axis += 1
        else:
            raise IndexError(
                f"GPUArray indices are ints, slices, ... and None, not {type(item).__name__}"
            )
    new_shape += shape[axis:]
    new_strides += strides[axis:]
    return tuple(new_shape), tuple(new_strides), offset


def reshaped(shape: tuple[int, ...], size: int, new: Any) -> tuple[int, ...]:
    """``new`` (which may hold one -1) checked against ``size`` elements."""
    if len(new) == 1 and not isinstance(new[0], (int, np.integer)):
        new = tuple(new[0])
    new = tuple(int(n) for n in new)
    unknown = [i for i, n in enumerate(new) if n == -1]
    if len(unknown) > 1:
        raise ValueError("can only specify one unknown dimension")
    if unknown:
        known = math.prod(n for n in new if n != -1)
        if known == 0 or size % known:
            raise ValueError(f"cannot reshape an array of size {size} into shape {new}")
        new = tuple(size // known if n == -1 else n for n in new)
    if math.prod(new) != size:
        raise ValueError(f"cannot reshape an array of size {size} into shape {new}")
    return new

"""Kernel arguments to the driver's ``kernelParams``: an array of pointers, one per
parameter, each pointing at that parameter's bytes.

A call's arguments become struct codes (native sizes, as PyCUDA's ``struct.pack``): numpy
scalars by their type, ints, DeviceAllocations and device arrays (``__cuda_array_interface__``)
as pointers (``P``), numpy arrays and structured scalars (``np.void``, for struct parameters) by
value as their bytes, and ``In`` / ``Out`` / ``InOut`` host arrays as pointers to device copies.
A ``Layout`` per tuple of codes holds one buffer per thread: ``[pointer array | values]``,
the pointer array written once, so a launch only packs the values (``struct.pack_into``).
"""

from __future__ import annotations

import ctypes
import struct
import threading
from collections.abc import Sequence
from typing import Any

import numpy as np

from numbast_import.rtc import memory

# Exact numpy scalar types -> struct codes; other numpy scalars go through _numpy_code.
_SCALAR_CODES: dict[type, str] = {
    np.bool_: "?", np.int8: "b", np.uint8: "B", np.int16: "h", np.uint16: "H",
    np.int32: "i", np.uint32: "I", np.int64: "q", np.uint64: "Q", np.longlong: "q",
    np.ulonglong: "Q", np.float16: "e", np.float32: "f", np.float64: "d",
}  # fmt: skip
_STRUCT_CHARS = set("?bBhHiIlLqQnNefdP")
# Argument types whose code follows from the type alone and that struct packs as they are
# (DeviceAllocation through __index__): a call with only these needs no conversion.
_PACKED_AS_IS = frozenset(_SCALAR_CODES) | {int, memory.DeviceAllocation}


def packs_as_is(kinds: Sequence[type]) -> bool:
    """Whether arguments of these exact types always get the same codes and pack unchanged."""
    return all(kind in _PACKED_AS_IS for kind in kinds)


class ArgumentHandler:
    """A host numpy array passed to a kernel through a device copy made for the call."""

    copy_in = False
    copy_out = False

    def __init__(self, array: Any) -> None:
        self.array = array
        self.device_alloc: memory.DeviceAllocation | None = None

    def get_device_alloc(self) -> memory.DeviceAllocation:
        if self.device_alloc is None:
            self.device_alloc = memory.mem_alloc(self.array.nbytes)
        return self.device_alloc

    def pre_call(self, stream: Any) -> None:
        if self.copy_in:
            if stream is None:
                memory.memcpy_htod(self.get_device_alloc(), self.array)
            else:
                memory.memcpy_htod_async(self.get_device_alloc(), self.array, stream)

    def post_call(self, stream: Any) -> None:
        if self.copy_out:
            if stream is None:
                memory.memcpy_dtoh(self.array, self.get_device_alloc())
            else:
                memory.memcpy_dtoh_async(self.array, self.get_device_alloc(), stream)
                from numbast_import.rtc.streams import stream_handle

                memory.check(memory.driver().cuStreamSynchronize(stream_handle(stream)), "sync")


class In(ArgumentHandler):
    """Copied to the device before the launch."""

    copy_in = True


class Out(ArgumentHandler):
    """Copied back to the host after the launch."""

    copy_out = True


class InOut(ArgumentHandler):
    """Copied to the device before and back after the launch."""

    copy_in = True
    copy_out = True


class Layout:
    """Where each parameter's bytes go for one tuple of struct codes."""

    def __init__(self, codes: Sequence[str]) -> None:
        self.codes = tuple(codes)
        self.count = len(self.codes)
        self.values = struct.Struct("@" + "".join(self.codes))
        self.sizes = tuple(struct.calcsize("@" + code) for code in self.codes)
        prefix = "@"
        offsets = []
        for code, size in zip(self.codes, self.sizes, strict=True):
            offsets.append(struct.calcsize(prefix + code) - size)
            prefix += code
        self.values_offset = 8 * self.count
        self.offsets = tuple(self.values_offset + o for o in offsets)
        self.size = max(self.values_offset + self.values.size, 8)
        self._buffers: dict[int, tuple[Any, int]] = {}

    def buffer(self) -> tuple[Any, int]:
        """This thread's (buffer, address); the address is the ``kernelParams`` to pass."""
        ident = threading.get_ident()
        found = self._buffers.get(ident)
        if found is None:
            buf = ctypes.create_string_buffer(self.size)
            base = ctypes.addressof(buf)
            struct.pack_into(f"@{self.count}P", buf, 0, *(base + o for o in self.offsets))
            found = self._buffers[ident] = (buf, base)
        return found

    def pack(self, values: Sequence[Any]) -> int:
        """Pack ``values`` into this thread's buffer; returns the ``kernelParams`` address."""
        buf, base = self.buffer()
        self.values.pack_into(buf, self.values_offset, *values)
        return base

    def describe(self) -> str:
        return ", ".join(f"{c} ({s} bytes)" for c, s in zip(self.codes, self.sizes, strict=True))


_layouts: dict[tuple[str, ...], Layout] = {}


def layout_for(codes: tuple[str, ...]) -> Layout:
    found = _layouts.get(codes)
    if found is None:
        found = _layouts[codes] = Layout(codes)
    return found


def _numpy_code(value: Any) -> str:
    char = value.dtype.char
    if char in _STRUCT_CHARS:
        return char
    return f"{value.dtype.itemsize}s"  # complex, structured (np.void), ...


def convert_call_arguments(
    args: Sequence[Any], stream: int
) -> tuple[tuple[str, ...], list[Any], list[ArgumentHandler]]:
    """(struct codes, values to pack, handlers) for ``Function.__call__``'s ``args``;
    ``stream`` (the launch's stream handle) orders arrays produced on other streams."""
    codes: list[str] = []
    values: list[Any] = []
    handlers: list[ArgumentHandler] = []
    for index, arg in enumerate(args):
        kind = type(arg)
        code = _SCALAR_CODES.get(kind)
        if code is not None:
            codes.append(code)
            values.append(arg)
        elif kind is int or kind is memory.DeviceAllocation:
            codes.append("P")
            values.append(int(arg))
        elif isinstance(arg, ArgumentHandler):
            handlers.append(arg)
            codes.append("P")
            values.append(int(arg.get_device_alloc()))
        elif isinstance(arg, np.generic):
            code = _numpy_code(arg)
            codes.append(code)
            values.append(arg if code[-1] != "s" else arg.tobytes())
        elif isinstance(arg, np.ndarray):
            codes.append(f"{arg.nbytes}s")
            values.append(arg.tobytes())
        elif isinstance(arg, (bool, float, complex)):
            raise TypeError(
                f"argument {index} is a Python {kind.__name__}, whose C type is ambiguous; "
                f"pass a numpy scalar such as np.float32(x), np.int32(n) or np.bool_(b)"
            )
        else:
            codes.append("P")
            values.append(_device_pointer(arg, index, stream))
    return tuple(codes), values, handlers


def _device_pointer(arg: Any, index: int, stream: int) -> int:
    interface = getattr(arg, "__cuda_array_interface__", None)
    if interface is not None:
        producer = interface.get("stream")
        if producer is not None and producer != stream and not (producer in (1, 2) and stream == 0):
            # CUDA array interface v3: order the producer's work before this launch.
            memory.check(memory.driver().cuStreamSynchronize(producer), "cuStreamSynchronize")
        return int(interface["data"][0])
    try:
        return memory.device_pointer(arg)
    except TypeError:
        raise TypeError(
            f"argument {index} ({type(arg).__name__}) cannot be passed to a kernel: pass numpy "
            "scalars, ints (device addresses), DeviceAllocations, arrays with "
            "__cuda_array_interface__, numpy arrays wrapped in In/Out/InOut, or numpy "
            "structured scalars for struct parameters"
        ) from None


def codes_for_prepare(arg_types: str | Sequence[Any]) -> tuple[str, ...]:
    """Struct codes for ``prepare``: a struct format (``"PiP"``) or a sequence of numpy
    types / dtypes / struct characters (``[np.intp, np.int32]``)."""
    if isinstance(arg_types, str):
        import re

        codes: list[str] = []
        for count, char in re.findall(r"(\d*)([xcbB?hHiIlLqQnNefdspP])", arg_types):
            if char in "sp":
                codes.append(f"{count or 1}s")
            elif char != "x":
                codes += [char] * int(count or 1)
        return tuple(codes)
    codes = []
    for item in arg_types:
        if isinstance(item, str) and len(item) == 1 and item in _STRUCT_CHARS:
            codes.append(item)
            continue
        dtype = np.dtype(item)
        codes.append(dtype.char if dtype.char in _STRUCT_CHARS else f"{dtype.itemsize}s")
    return tuple(codes)


def convert_prepared_value(code: str, value: Any) -> Any:
    """A prepared call's value in the form struct packs (the slow path after a struct.error)."""
    if code == "P":
        return memory.device_pointer(value) if not isinstance(value, int) else value
    if code.endswith("s"):
        if isinstance(value, (bytes, bytearray)):
            return bytes(value)
        return np.asarray(value).tobytes()
    return value

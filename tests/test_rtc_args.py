"""Kernel arguments, checked in the memory the driver reads at launch (kernelParams), with a
recording stand-in for cuLaunchKernel: every argument kind, prepared calls in both of
PyCUDA's forms, and the errors for arguments that do not fit the kernel."""

from __future__ import annotations

import struct

import numpy as np
import pytest

from numbast_import import driver as drv
from numbast_import.rtc import launch, memory
from numbast_import.rtc.args import codes_for_prepare, convert_call_arguments
from numbast_import.rtc.function import Function
from tests.rtc_support import LaunchRecorder


@pytest.fixture
def kernel(monkeypatch):
    """make(sizes) -> (Function whose parameters have those sizes, LaunchRecorder)."""

    def make(sizes: tuple[int, ...]):
        recorder = LaunchRecorder(sizes)
        monkeypatch.setattr(launch, "_cu_launch_kernel", recorder)
        function = Function(0xC0FFEE, "kernel")
        function._param_sizes = sizes
        return function, recorder

    return make


class NotFreed(memory.DeviceAllocation):
    """An allocation that is not real, so nothing is freed."""

    def free(self) -> None:
        self._ptr = 0


class DeviceArrayStandIn:
    """An object with __cuda_array_interface__, as Numba, CuPy and PyTorch arrays have."""

    def __init__(self, address: int, stream: int | None = None) -> None:
        self.__cuda_array_interface__ = {
            "shape": (4,), "typestr": "<f4", "data": (address, False), "version": 3,
            "stream": stream,
        }  # fmt: skip


def test_numpy_scalars_pass_by_value_with_their_own_width(kernel):
    function, recorder = kernel((1, 2, 4, 8, 4, 8, 1, 2))
    values = (
        np.int8(-3), np.uint16(65000), np.int32(-7), np.int64(2**40), np.float32(1.5),
        np.float64(-2.25), np.bool_(True), np.float16(0.5),
    )  # fmt: skip
    function(*values, block=(32, 1, 1), grid=(2, 1))
    (launched,) = recorder.launches
    assert launched.arguments == [v.tobytes() for v in values]
    assert launched.handle == 0xC0FFEE
    assert launched.grid == (2, 1, 1) and launched.block == (32, 1, 1)
    assert launched.shared == 0 and launched.stream == 0


def test_pointers_ints_allocations_and_device_arrays(kernel):
    function, recorder = kernel((8, 8, 8, 8))
    allocation = memory.DeviceAllocation(0x7000_0000, 64)
    args = (0x1234_5678, allocation, DeviceArrayStandIn(0x9000_0000), np.uint64(7))
    function(*args, block=(1, 1, 1))
    allocation._ptr = 0  # not a real allocation: nothing to free
    pointers = [struct.unpack("Q", b)[0] for b in recorder.launches[0].arguments]
    assert pointers == [0x1234_5678, 0x7000_0000, 0x9000_0000, 7]


def test_repeated_calls_with_the_same_argument_types_pack_each_calls_values(kernel):
    # The second and third calls take the layout remembered by argument types; a call with
    # other types (a device array where an allocation was) converts again.
    function, recorder = kernel((4, 8, 8))
    first = memory.DeviceAllocation(0x7000_0000, 64)
    second = memory.DeviceAllocation(0x7100_0000, 64)
    function(np.float32(1.0), first, 5, block=(1, 1, 1))
    function(np.float32(2.0), second, 6, block=(1, 1, 1))
    function(np.float32(3.0), DeviceArrayStandIn(0x9000_0000), 7, block=(1, 1, 1))
    first._ptr = second._ptr = 0
    unpacked = [
        (struct.unpack("f", a)[0], struct.unpack("Q", b)[0], struct.unpack("q", c)[0])
        for a, b, c in (launch.arguments for launch in recorder.launches)
    ]
    assert unpacked == [(1.0, 0x7000_0000, 5), (2.0, 0x7100_0000, 6), (3.0, 0x9000_0000, 7)]
    with pytest.raises(TypeError, match="takes 3 parameters of 4, 8, 8 bytes"):
        function(np.float64(1.0), second, 5, block=(1, 1, 1))  # a new type is checked again


def test_complex_scalars_pass_as_their_bytes(kernel):
    function, recorder = kernel((8, 16))
    function(np.complex64(1 + 2j), np.complex128(3 - 4j), block=(1, 1, 1))
    assert recorder.launches[0].arguments == [
        np.complex64(1 + 2j).tobytes(),
        np.complex128(3 - 4j).tobytes(),
    ]


def test_structured_scalars_pass_struct_parameters(kernel):
    # struct Pair { int count; float scale; double offset; } -> 16 bytes with padding
    pair = np.dtype([("count", "<i4"), ("scale", "<f4"), ("offset", "<f8")], align=True)
    value = np.array((3, 0.5, -1.0), dtype=pair)[()]
    assert isinstance(value, np.void)
    function, recorder = kernel((16, 4))
    function(value, np.int32(9), block=(1, 1, 1))
    struct_bytes, count = recorder.launches[0].arguments
    assert struct.unpack("<ifd", struct_bytes) == (3, 0.5, -1.0)
    assert struct.unpack("<i", count) == (9,)


def test_numpy_arrays_pass_by_value(kernel):
    function, recorder = kernel((12,))
    values = np.array([1, 2, 3], dtype=np.int32)
    function(values, block=(1, 1, 1))
    assert recorder.launches[0].arguments == [values.tobytes()]


def test_in_out_inout_copy_around_the_launch(kernel, monkeypatch):
    events = []
    next_address = iter(range(0x1000, 0x10000, 0x100))

    def fake_alloc(nbytes):
        address = next(next_address)
        events.append(("alloc", address, nbytes))
        return NotFreed(address, nbytes)

    monkeypatch.setattr(memory, "mem_alloc", fake_alloc)
    monkeypatch.setattr(memory, "memcpy_htod", lambda d, s: events.append(("htod", int(d))))
    monkeypatch.setattr(memory, "memcpy_dtoh", lambda d, s: events.append(("dtoh", int(s))))
    function, recorder = kernel((8, 8, 8))
    recorder_launch = recorder.__call__

    def launch_and_note(*args):
        events.append(("launch",))
        return recorder_launch(*args)

    monkeypatch.setattr(launch, "_cu_launch_kernel", launch_and_note)
    a = np.zeros(4, np.float32)
    b = np.zeros(8, np.float32)
    c = np.zeros(2, np.float64)
    function(drv.Out(a), drv.In(b), drv.InOut(c), block=(4, 1, 1))
    pointers = [struct.unpack("Q", x)[0] for x in recorder.launches[0].arguments]
    assert pointers == [0x1000, 0x1100, 0x1200]
    assert events == [
        ("alloc", 0x1000, 16), ("alloc", 0x1100, 32), ("alloc", 0x1200, 16),
        ("htod", 0x1100), ("htod", 0x1200), ("launch",), ("dtoh", 0x1000), ("dtoh", 0x1200),
    ]  # fmt: skip


def test_shared_stream_and_grid_forms(kernel):
    function, recorder = kernel((8,))
    function(np.uint64(1), block=(8, 4), grid=(3,), shared=256, stream=0xABC)
    launched = recorder.launches[0]
    assert launched.block == (8, 4, 1) and launched.grid == (3, 1, 1)
    assert launched.shared == 256 and launched.stream == 0xABC


def test_streams_of_other_libraries_are_accepted(kernel):
    function, recorder = kernel(())

    class CoreStream:
        def __cuda_stream__(self):
            return (0, 0x55)

    class CupyStream:
        ptr = 0x66

    function(block=(1, 1, 1), stream=CoreStream())
    function(block=(1, 1, 1), stream=CupyStream())
    assert [x.stream for x in recorder.launches] == [0x55, 0x66]


def test_producer_stream_of_a_device_array_is_synchronized(kernel, monkeypatch):
    synced = []

    class DriverStandIn:
        def cuStreamSynchronize(self, stream):
            synced.append(stream)
            return (0,)

    monkeypatch.setattr(memory, "driver", lambda: DriverStandIn())
    function, _recorder = kernel((8, 8, 8))
    function(
        DeviceArrayStandIn(0x10, stream=0x77),  # another stream: wait for it
        DeviceArrayStandIn(0x20, stream=1),  # the legacy default stream, launching on it
        DeviceArrayStandIn(0x30, stream=None),
        block=(1, 1, 1),
    )
    assert synced == [0x77]


def test_ambiguous_python_scalars_are_refused(kernel):
    function, _recorder = kernel((4,))
    with pytest.raises(TypeError, match=r"np\.float32"):
        function(1.5, block=(1, 1, 1))
    with pytest.raises(TypeError, match="Python bool"):
        function(True, block=(1, 1, 1))


def test_arguments_that_do_not_fit_the_kernel_are_refused(kernel):
    function, recorder = kernel((8, 4))
    with pytest.raises(TypeError, match=r"takes 2 parameters of 8, 4 bytes.*d \(8 bytes\)"):
        function(0x10, np.float64(1.0), block=(1, 1, 1))
    with pytest.raises(TypeError, match="takes 2 parameters"):
        function(0x10, block=(1, 1, 1))
    assert recorder.launches == []


def test_unknown_argument_types_name_the_argument():
    with pytest.raises(TypeError, match=r"argument 1 \(object\) cannot be passed"):
        convert_call_arguments((np.int32(1), object()), 0)


def test_block_is_required(kernel):
    function, _recorder = kernel(())
    with pytest.raises(ValueError, match="block"):
        function()


@pytest.mark.parametrize(
    ("arg_types", "codes"),
    [
        ("PiP", ("P", "i", "P")),
        ("P2if", ("P", "i", "i", "f")),
        ("16sd", ("16s", "d")),
        ([np.intp, np.int32, np.float32, "P"], ("l", "i", "f", "P")),
        ([np.dtype([("a", "<i4"), ("b", "<f8")], align=True)], ("16s",)),
        ([np.complex64], ("8s",)),
    ],
)
def test_prepare_formats(arg_types, codes):
    assert codes_for_prepare(arg_types) == codes


def test_prepared_call_with_the_block_given_to_the_call(kernel):
    function, recorder = kernel((8, 4, 4))
    function.prepare("Pif")
    allocation = memory.DeviceAllocation(0x4000, 16)
    for i in range(3):
        function.prepared_call((2, 1), (64, 1, 1), allocation, np.int32(i), np.float32(i / 2))
    allocation._ptr = 0
    assert [x.block for x in recorder.launches] == [(64, 1, 1)] * 3
    assert [x.grid for x in recorder.launches] == [(2, 1, 1)] * 3
    assert [x.arguments for x in recorder.launches] == [
        [struct.pack("Q", 0x4000), struct.pack("i", i), struct.pack("f", i / 2)] for i in range(3)
    ]


def test_prepared_call_with_the_block_given_to_prepare(kernel):
    function, recorder = kernel((8, 4))
    function.prepare([np.intp, np.int32], block=(16, 2, 1))
    function.prepared_call((5, 1), 0xBEEF, 7, shared_size=64)
    (launched,) = recorder.launches
    assert launched.block == (16, 2, 1) and launched.grid == (5, 1, 1) and launched.shared == 64
    assert launched.arguments == [struct.pack("q", 0xBEEF), struct.pack("i", 7)]


def test_prepared_call_converts_device_arrays_and_structs(kernel):
    pair = np.dtype([("a", "<i4"), ("b", "<f4")])
    function, recorder = kernel((8, 8))
    function.prepare(["P", pair])
    value = np.array((1, 2.0), dtype=pair)[()]
    function.prepared_call((1, 1), (1, 1, 1), DeviceArrayStandIn(0x5000), value)
    assert recorder.launches[0].arguments == [struct.pack("Q", 0x5000), value.tobytes()]


def test_prepared_async_call_forms(kernel):
    function, recorder = kernel((4,))
    function.prepare("i")
    function.prepared_async_call((1, 1), (32, 1, 1), 0x99, np.int32(1))
    function.prepare("i", block=(8, 1, 1))
    function.prepared_async_call((1, 1), 0x98, np.int32(2))
    assert [(x.block, x.stream) for x in recorder.launches] == [
        ((32, 1, 1), 0x99),
        ((8, 1, 1), 0x98),
    ]
    assert [x.arguments for x in recorder.launches] == [
        [struct.pack("i", 1)],
        [struct.pack("i", 2)],
    ]


def test_prepare_checks_the_types_against_the_kernel(kernel):
    function, _recorder = kernel((8, 4))
    with pytest.raises(TypeError, match="takes 2 parameters"):
        function.prepare("Pd")


def test_prepared_call_without_arguments(kernel):
    function, recorder = kernel(())
    function._param_sizes = None  # a kernel without parameters is not checked
    function.prepare("", block=(4, 1, 1))
    function.prepared_call((1, 1))
    assert recorder.launches[0].block == (4, 1, 1)


def test_packing_is_per_thread(kernel):
    import threading

    function, recorder = kernel((4,))
    function.prepare("i", block=(1, 1, 1))

    def launch_some(offset):
        for i in range(50):
            function.prepared_call((1, 1), np.int32(offset + i))

    threads = [threading.Thread(target=launch_some, args=(k * 1000,)) for k in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    seen = sorted(struct.unpack("i", x.arguments[0])[0] for x in recorder.launches)
    assert seen == sorted(k * 1000 + i for k in range(4) for i in range(50))

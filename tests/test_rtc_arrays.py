"""GPUArray, ElementwiseKernel, ReductionKernel and curandom without a GPU: layouts, result
types, and every kernel they would launch compiled to an sm_90 cubin.

GPUArrays here sit on a made-up address (an allocator returning an int), and kernel calls
compile the kernel's source instead of launching it."""

from __future__ import annotations

import numpy as np
import pytest

from numbast_import import compiler, curandom, elementwise, gpuarray, reduction
from numbast_import.rtc import elementwise_modules, launch_shapes
from numbast_import.rtc.linear_combination import linear_combination_parts

FAKE_ADDRESS = 0x7F0000000000


def fake_allocator(nbytes):
    return FAKE_ADDRESS


def compile_sm90(source):
    cubin = compiler.compile(source, no_extern_c=True, arch="sm_90", cache_dir=False)
    assert cubin[:4] == b"\x7fELF"
    return cubin


@pytest.fixture
def kernel_calls(monkeypatch):
    """ElementwiseKernel calls record (kernel, arguments, source) instead of launching."""
    monkeypatch.setattr(launch_shapes, "_multiprocessors", [132])
    calls = []

    def record(self, *args, range=None, slice=None, stream=None):
        calls.append((self, args, self.source(range is not None or slice is not None)))

    monkeypatch.setattr(elementwise.ElementwiseKernel, "__call__", record)
    return calls


def array(shape, dtype, order="C"):
    return gpuarray.GPUArray(shape, dtype, allocator=fake_allocator, order=order)


# -- layout --------------------------------------------------------------------------------


def test_layout_and_interface(kernel_calls):
    a = array((4, 5), np.float32)
    assert (a.size, a.nbytes, a.mem_size, a.strides) == (20, 80, 20, (20, 4))
    assert a.flags.c_contiguous and not a.flags.f_contiguous and a.flags.forc
    interface = a.__cuda_array_interface__
    assert interface["data"] == (FAKE_ADDRESS, False)
    assert (interface["shape"], interface["strides"], interface["typestr"]) == (
        (4, 5), (20, 4), np.dtype(np.float32).str,
    )  # fmt: skip
    assert interface["stream"] is None and interface["version"] == 3
    f = array((4, 5), np.float64, order="F")
    assert f.strides == (8, 32) and f.flags.f_contiguous and not f.flags.c_contiguous


def test_views_follow_numpy(kernel_calls):
    a = array((4, 6), np.int32)
    host = np.arange(24, dtype=np.int32).reshape(4, 6)
    for index in [1, (slice(1, 3), slice(None, None, 2)), (Ellipsis, 2), (None, 2), -1,
                  (slice(None, None, -1),)]:  # fmt: skip
        view, expected = a[index], host[index]
        assert view.shape == expected.shape and view.strides == expected.strides
        offset = expected.__array_interface__["data"][0] - host.__array_interface__["data"][0]
        assert view.ptr == FAKE_ADDRESS + offset
        assert view.flags.c_contiguous == expected.flags.c_contiguous
    assert a.T.strides == host.T.strides and a.T.flags.f_contiguous
    assert a.reshape(-1, 3).shape == (8, 3) and a.ravel().shape == (24,)
    assert a.view(np.uint8).shape == (4, 24) and a.view(np.float32).dtype == np.float32
    with pytest.raises(ValueError, match="contiguous"):
        a[:, ::2].reshape(12)
    with pytest.raises(IndexError):
        a[np.array([1, 2])]


OPERATIONS = {
    "a + b": lambda a, b: a + b, "a - 1": lambda a, b: a - 1, "2 * a": lambda a, b: 2 * a,
    "a / b": lambda a, b: a / b, "b / 2": lambda a, b: b / 2, "1 - a": lambda a, b: 1 - a,
    "a ** 2": lambda a, b: a**2, "b ** 3": lambda a, b: b**3, "2.0 ** a": lambda a, b: 2.0**a,
    "a < b": lambda a, b: a < b, "a == 1.5": lambda a, b: a == 1.5, "-b": lambda a, b: -b,
    "abs(a)": lambda a, b: abs(a), "a.astype": lambda a, b: a.astype(np.float64),
    "b * int64": lambda a, b: b * np.int64(3),
}  # fmt: skip


def test_operations_have_numpys_result_types(kernel_calls):
    a, b = array((3, 4), np.float32), array((3, 4), np.int32)
    for text, make in OPERATIONS.items():
        expected = make(np.ones((3, 4), np.float32), np.ones((3, 4), np.int32))
        result = make(a, b)
        assert (result.dtype, result.shape) == (expected.dtype, expected.shape), text
        assert kernel_calls[-1][1][0] is result  # the kernel's first argument is the output
    # one compile per kind of expression (the others differ in an operator only)
    kinds = ["a / b", "b ** 3", "2.0 ** a", "a < b", "abs(a)"]
    sources = {
        text: source for text, (_k, _a, source) in zip(OPERATIONS, kernel_calls, strict=True)
    }
    for text in kinds:
        compile_sm90(sources[text])


def test_complex_and_half_operations_compile(kernel_calls):
    c, h = array((5,), np.complex64), array((5,), np.float16)
    assert (c**2).dtype == np.complex64 and abs(c).dtype == np.float32
    assert (h + h).dtype == np.float16
    for _kernel, _arguments, source in kernel_calls:
        compile_sm90(source)


def test_in_place_operations_write_into_the_array(kernel_calls):
    a = array((8,), np.float32)
    a += 1
    a *= array((8,), np.float32)
    assert all(arguments[0] is a for _k, arguments, _s in kernel_calls)


def test_zero_dimensional_operands_broadcast(kernel_calls):
    a, s = array((6,), np.float64), array((), np.float64)
    result = a * s
    assert result.shape == (6,)
    assert "y[0]" in kernel_calls[-1][2]
    with pytest.raises(ValueError, match="shapes"):
        a + array((5,), np.float64)


def test_fill_uses_memset_for_zero_and_4_byte_values(kernel_calls, monkeypatch):
    from numbast_import.rtc import memory

    memsets = []
    monkeypatch.setattr(memory, "memset_d8_async", lambda *a: memsets.append(("d8", a)))
    monkeypatch.setattr(memory, "memset_d32_async", lambda *a: memsets.append(("d32", a)))
    array((10,), np.float64).fill(0)
    array((10,), np.float32).fill(1.0)
    array((10,), np.float64).fill(2.5)  # 8-byte pattern: a kernel
    assert memsets == [
        ("d8", (FAKE_ADDRESS, 0, 80, None)),
        ("d32", (FAKE_ADDRESS, 0x3F800000, 10, None)),
    ]
    assert len(kernel_calls) == 1 and "z[i] = v" in kernel_calls[0][2]
    compile_sm90(kernel_calls[0][2])


def test_arange_and_rand_kernels_compile(kernel_calls, monkeypatch):
    from numbast_import.rtc import memory

    monkeypatch.setattr(memory, "mem_alloc", fake_allocator)
    assert gpuarray.arange(2, 20, 3, dtype=np.float32, allocator=fake_allocator).shape == (6,)
    assert gpuarray.arange(5, allocator=fake_allocator).dtype == np.arange(5).dtype
    for dtype in (np.float32, np.float64):
        assert curandom.rand((4, 4), dtype).dtype == dtype
    for _kernel, _arguments, source in kernel_calls[1:]:  # an int arange and both rands
        compile_sm90(source)
    assert "numbast_mix64" in kernel_calls[-1][2]


# -- elementwise and reduction sources ------------------------------------------------------


def test_elementwise_kernel_sources_compile_in_both_forms():
    kernel = elementwise.ElementwiseKernel(
        "float a, float *x, float b, float *y, float *z", "z[i] = a*x[i] + b*y[i]", "lin_comb",
        preamble="#define UNUSED 1", loop_prep="float unused = 0", after_loop="(void)unused",
    )  # fmt: skip
    for use_range in (False, True):
        source = kernel.source(use_range)
        assert b"lin_comb" in compile_sm90(source)
    assert "unsigned long long n)" in kernel.source(False)
    assert "long long start, long long stop, long long step)" in kernel.source(True)
    with pytest.raises(ValueError, match="vector"):
        elementwise.ElementwiseKernel("float a", "a = 1")


def test_linear_combination_kernels_compile_with_texture_scalars():
    for dtype in (np.float64, np.complex128):
        arguments, parts = linear_combination_parts(((True, dtype, dtype), (False, dtype, dtype)),
                                                    dtype)  # fmt: skip
        assert [a.name for a in arguments] == ["x0", "a1", "x1", "z", "n"]
        source = elementwise_modules._source(arguments, parts["operation"], parts["name"],
                                             parts["preamble"], parts["loop_prep"], "",
                                             False)  # fmt: skip
        assert b"linear_combination" in compiler.compile(
            source, no_extern_c=True, arch="sm_90", cache_dir=False
        )


def test_reduction_sources_compile():
    def source(dtype, neutral, reduce_expr, map_expr, arguments):
        return reduction.reduction_source(np.dtype(dtype), neutral, reduce_expr, map_expr,
                                          arguments)  # fmt: skip

    minimum = "(a != a) ? a : ((b != b) ? b : ((a < b) ? a : b))"
    sources = [
        source(np.float32, "0", "a+b", "in[i]", "const float *in"),
        source(np.float64, "0", "a+b", "x[i]*y[i]", "double *x, float *y"),
        source(np.complex64, "0", "a+b", "in[i]", "const cuda::std::complex<float> *in"),
    ]
    for dtype in (np.float64, np.int64, np.uint64):
        neutral = reduction._extreme("min", np.dtype(dtype))
        ctype = reduction.dtype_to_ctype(dtype)
        sources.append(source(dtype, neutral, minimum, "in[i]", f"const {ctype} *in"))
    for text in sources:
        cubin = compile_sm90(text)
        assert b"reduce_kernel_stage1" in cubin and b"reduce_kernel_stage2" in cubin


def test_extremes_are_the_dtypes_limits():
    assert (
        reduction._extreme("max", np.dtype(np.int64)) == "(long long)(-9223372036854775807ll - 1)"
    )
    assert reduction._extreme("min", np.dtype(np.uint64)) == (
        "(unsigned long long)18446744073709551615ull"
    )
    assert "0xff800000" in reduction._extreme("max", np.dtype(np.float32))


def test_elementwise_call_passes_pointers_counts_and_ranges(monkeypatch):
    monkeypatch.setattr(launch_shapes, "_multiprocessors", [132])
    launches = []

    class RecordingFunction:
        def prepared_async_call(self, grid, block, stream, *values):
            launches.append((grid, block, stream, values))

    kernel = elementwise.ElementwiseKernel("float a, float *x, float *y", "y[i] = a*x[i]")
    monkeypatch.setattr(kernel, "_kernel", lambda use_range: (None, RecordingFunction(), None))
    x, y = array((1000,), np.float32), array((1000,), np.float32)
    kernel(np.float32(2), x, y)
    grid, block, stream, values = launches[-1]
    assert (grid, block) == (x._grid, x._block) == ((4, 1), (256, 1, 1))
    assert values == (np.float32(2), FAKE_ADDRESS, FAKE_ADDRESS, 1000)
    kernel(np.float32(2), x, y, slice=slice(-10, None, 3), stream=7)
    assert launches[-1][2] == 7 and launches[-1][3][-3:] == (990, 1000, 3)
    kernel(np.float32(2), x, y, range=slice(900, 100, -2))
    assert launches[-1][3][-3:] == (900, 100, -2) and launches[-1][1] == (256, 1, 1)

    class Foreign:  # a CuPy-like array: pointer and size from its interface
        __cuda_array_interface__ = {"shape": (1000,), "typestr": "<f4", "data": (0x5000, False),
                                    "strides": None, "version": 3}  # fmt: skip

    kernel(np.float32(1), Foreign(), y)
    assert launches[-1][3][1] == 0x5000
    with pytest.raises(ValueError, match="non-contiguous"):
        kernel(np.float32(2), x[::2], y[::2])
    with pytest.raises(TypeError, match="takes 3 arguments"):
        kernel(x, y)


def test_reduction_call_runs_one_or_two_stages(monkeypatch):
    from numbast_import.rtc import memory

    monkeypatch.setattr(launch_shapes, "_multiprocessors", [132])
    monkeypatch.setattr(memory, "mem_alloc", fake_allocator)
    launches = []

    class RecordingFunction:
        def __init__(self, name):
            self.name = name

        def prepare(self, codes):
            self.codes = codes

        def prepared_async_call(self, grid, block, stream, *values):
            launches.append((self.name, grid, block, values))

    class CompiledOnly:
        def __init__(self, source, **kwargs):
            self.source = source

        def get_function(self, name):
            return RecordingFunction(name)

    monkeypatch.setattr(compiler, "SourceModule", CompiledOnly)
    dot = reduction.ReductionKernel(np.float32, "0", "a+b", "x[i]*y[i]", "float *x, float *y")
    assert dot.stage1.codes == "PPPLI" and dot.stage2.codes == "PPLI"
    small = array((300,), np.float32)
    out = dot(small, small)
    assert out.shape == () and out.dtype == np.float32
    assert [name for name, *_ in launches] == ["reduce_kernel_stage1"]
    assert launches[0][1:3] == ((1, 1), (512, 1, 1)) and launches[0][3][-2:] == (300, 1)
    launches.clear()
    big = array((10_000_000,), np.float32)
    dot(big, big)
    (_s1, grid1, _b1, values1), (_s2, grid2, _b2, values2) = launches
    blocks, per_thread = grid1[0], values1[-1]
    assert blocks == 512 and blocks * 512 * per_thread >= 10_000_000 > blocks * 512 * (
        per_thread - 1
    )
    assert grid2 == (1, 1) and values2[-2:] == (512, 1)

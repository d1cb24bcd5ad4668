"""GPUArray, ElementwiseKernel, ReductionKernel, curandom, the generated DynamicModule and the
driver and tools surface on a GPU, checked against numpy (and CuPy / Numba when present)."""

from __future__ import annotations

import numpy as np
import pytest

pytestmark = pytest.mark.gpu


@pytest.fixture(autouse=True, scope="module")
def cuda_context(tmp_path_factory):
    mp = pytest.MonkeyPatch()
    mp.setenv("NUMBAST_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))
    import numbast_import.autoinit  # noqa: F401

    yield
    mp.undo()


def gpuarray():
    from numbast_import import gpuarray

    return gpuarray


# -- GPUArray ------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.uint8, np.complex64])
def test_round_trip_and_arithmetic_match_numpy(dtype):
    ga = gpuarray()
    rng = np.random.default_rng(1)
    a = (np.abs(rng.standard_normal(1000)) * 10).astype(dtype)
    b = (np.abs(rng.standard_normal(1000)) * 10 + 20).astype(dtype)
    a_gpu, b_gpu = ga.to_gpu(a), ga.to_gpu(b)
    np.testing.assert_array_equal(a_gpu.get(), a)
    for got, expected in [
        (a_gpu + b_gpu, a + b), (a_gpu - 3 * b_gpu, a - 3 * b), (a_gpu * b_gpu, a * b),
        (2 * a_gpu, 2 * a), (-a_gpu, -a), (a_gpu - 1, a - 1),
    ]:  # fmt: skip
        assert got.dtype == expected.dtype
        if np.dtype(dtype).kind == "c":  # a complex product may be contracted to FMAs
            np.testing.assert_allclose(got.get(), expected, rtol=1e-6)
        else:
            np.testing.assert_array_equal(got.get(), expected)
    quotient = (a_gpu / b_gpu).get()
    # Single precision (float32, complex64: its parts are float32) to 1e-6, double to 1e-15.
    single = np.finfo(np.result_type(quotient.dtype, np.float32)).bits == 32
    np.testing.assert_allclose(quotient, a / b, rtol=1e-6 if single else 1e-15)
    if np.dtype(dtype).kind != "c":
        np.testing.assert_array_equal((a_gpu < b_gpu).get(), a < b)
        np.testing.assert_array_equal((a_gpu == a_gpu).get(), np.ones(1000, bool))


def test_pycuda_test_driver_expression():
    ga = gpuarray()
    a = np.arange(200000, dtype=np.float32)
    b = a + 17
    a_g, b_g = ga.to_gpu(a), ga.to_gpu(b)
    assert np.linalg.norm((a_g - 3 * b_g + (-a_g)).get() - (a - 3 * b + (-a))) == 0
    assert np.linalg.norm((a_g * b_g).get() - a * b) == 0


def test_pow_abs_fill_astype_arange_copy():
    ga = gpuarray()
    x = np.linspace(0.5, 3, 64).astype(np.float32)
    x_gpu = ga.to_gpu(x)
    np.testing.assert_allclose((x_gpu**2.5).get(), x**2.5, rtol=1e-6)
    n = np.arange(-5, 5, dtype=np.int32)
    np.testing.assert_array_equal((ga.to_gpu(n) ** 3).get(), n**3)
    np.testing.assert_array_equal(abs(ga.to_gpu(n)).get(), abs(n))
    np.testing.assert_array_equal(ga.zeros((3, 4), np.float64).get(), np.zeros((3, 4)))
    np.testing.assert_array_equal(ga.empty(7, np.int16).fill(-3).get(), np.full(7, -3, np.int16))
    np.testing.assert_array_equal(ga.ones((2, 2), np.float32).get(), np.ones((2, 2)))
    np.testing.assert_array_equal(x_gpu.astype(np.float64).get(), x.astype(np.float64))
    np.testing.assert_array_equal(ga.arange(3, 40, 4, dtype=np.float32).get(),
                                  np.arange(3, 40, 4, dtype=np.float32))  # fmt: skip
    copy = x_gpu.copy()
    copy += 1
    np.testing.assert_array_equal(x_gpu.get(), x)
    np.testing.assert_array_equal(copy.get(), x + 1)


def test_views_get_and_set():
    ga = gpuarray()
    host = np.arange(48, dtype=np.float64).reshape(6, 8)
    a_gpu = ga.to_gpu(host)
    np.testing.assert_array_equal(a_gpu[2].get(), host[2])
    np.testing.assert_array_equal(a_gpu[1:5, ::3].get(), host[1:5, ::3])
    np.testing.assert_array_equal(a_gpu[::-1, 2].get(), host[::-1, 2])
    np.testing.assert_array_equal(a_gpu.T.get(), host.T)
    np.testing.assert_array_equal(a_gpu.reshape(8, 6).get(), host.reshape(8, 6))
    a_gpu[3] = 0.5
    host[3] = 0.5
    np.testing.assert_array_equal(a_gpu.get(), host)
    f_host = np.asfortranarray(host)
    np.testing.assert_array_equal(ga.to_gpu(f_host).get(), f_host)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64, np.uint16])
def test_sum_dot_min_max_match_numpy(dtype):
    ga = gpuarray()
    rng = np.random.default_rng(2)
    floating = np.dtype(dtype).kind == "f"
    for size in (1, 511, 4097, 1 << 20):
        if floating:
            a = (rng.standard_normal(size) * 50).astype(dtype)
            b = (rng.standard_normal(size) * 2).astype(dtype)
        else:
            a = rng.integers(0, 100, size).astype(dtype)
            b = rng.integers(0, 3, size).astype(dtype)
        a_gpu, b_gpu = ga.to_gpu(a), ga.to_gpu(b)
        assert ga.min(a_gpu).get() == a.min() and ga.max(a_gpu).get() == a.max()
        total, dot = ga.sum(a_gpu).get(), ga.dot(a_gpu, b_gpu).get()
        assert total.dtype == a.sum().dtype and dot.dtype == np.dot(a, b).dtype
        if floating:  # summed in another order than numpy's
            assert abs(total - a.sum()) <= 1e-5 * np.abs(a).sum()
            assert abs(dot - np.dot(a, b)) <= 1e-5 * np.abs(a * b).sum()
        else:  # exact, wrapping where numpy's does (uint16 products)
            assert total == a.sum() and dot == np.dot(a, b)


def test_max_propagates_nan_as_numpy_does():
    ga = gpuarray()
    a = np.arange(1000, dtype=np.float32)
    a[517] = np.nan
    assert np.isnan(ga.max(ga.to_gpu(a)).get()) and np.isnan(ga.min(ga.to_gpu(a)).get())


def test_pooled_allocator_and_pointer_holder():
    import numbast_import.driver as drv
    from numbast_import import tools

    ga = gpuarray()
    pool = tools.DeviceMemoryPool()
    a = ga.to_gpu(np.arange(1000, dtype=np.float32), allocator=pool.allocate)
    b = (a * 2).get()
    np.testing.assert_array_equal(b, np.arange(1000) * 2)
    assert pool.active_blocks >= 1

    class Wrapped(drv.PointerHolderBase):
        def __init__(self, wrapped):
            self.wrapped = wrapped
            super().__init__()

        def get_pointer(self):
            return int(self.wrapped)

    holder = Wrapped(drv.to_device(np.arange(16, dtype=np.uint8)))
    np.testing.assert_array_equal(ga.GPUArray((16,), np.uint8, gpudata=holder).get(),
                                  np.arange(16, dtype=np.uint8))  # fmt: skip
    del a
    pool.stop_holding()


def test_cuda_array_interface_both_ways():
    ga = gpuarray()
    from numba import cuda

    host = np.arange(12, dtype=np.float32).reshape(3, 4)
    a_gpu = ga.to_gpu(host)
    as_numba = cuda.as_cuda_array(a_gpu)  # GPUArray -> Numba, no copy
    np.testing.assert_array_equal(as_numba.copy_to_host(), host)
    numba_array = cuda.to_device(host * 2)
    view = ga.as_gpuarray(numba_array)  # Numba -> GPUArray, no copy
    assert view.ptr == numba_array.__cuda_array_interface__["data"][0]
    np.testing.assert_array_equal((view + a_gpu).get(), host * 3)
    np.testing.assert_array_equal((a_gpu + numba_array).get(), host * 3)
    cupy = pytest.importorskip("cupy")
    as_cupy = cupy.asarray(a_gpu)
    assert as_cupy.data.ptr == a_gpu.ptr
    np.testing.assert_array_equal(cupy.asnumpy(as_cupy * 2), host * 2)
    np.testing.assert_array_equal(ga.to_gpu(cupy.arange(5, dtype=cupy.int32)).get(), np.arange(5))


# -- kernels -------------------------------------------------------------------------------


def test_elementwise_kernel_with_range_slice_and_foreign_arrays():
    from numbast_import.elementwise import ElementwiseKernel

    ga = gpuarray()
    lin_comb = ElementwiseKernel(
        "float a, float *x, float b, float *y, float *z", "z[i] = a*x[i] + b*y[i]", "lin_comb"
    )
    x = np.random.default_rng(3).standard_normal(5000).astype(np.float32)
    y = np.random.default_rng(4).standard_normal(5000).astype(np.float32)
    x_gpu, y_gpu, z_gpu = ga.to_gpu(x), ga.to_gpu(y), ga.zeros(5000, np.float32)
    lin_comb(np.float32(5), x_gpu, np.float32(6), y_gpu, z_gpu)
    # a*x + b*y may be contracted to fma(a, x, b*y): within a few float32 ulps of the terms'
    # magnitude (not of the sum, which cancels for some elements).
    exact = 5 * x.astype(np.float64) + 6 * y.astype(np.float64)
    scale = 5 * np.abs(x.astype(np.float64)) + 6 * np.abs(y.astype(np.float64))
    assert np.all(np.abs(z_gpu.get() - exact) <= 4 * np.finfo(np.float32).eps * scale)
    z_gpu.fill(0)
    lin_comb(np.float32(1), x_gpu, np.float32(0), y_gpu, z_gpu, range=slice(10, 4000, 3))
    expected = np.zeros(5000, np.float32)
    expected[10:4000:3] = x[10:4000:3]
    np.testing.assert_array_equal(z_gpu.get(), expected)
    z_gpu.fill(0)
    lin_comb(np.float32(1), x_gpu, np.float32(0), y_gpu, z_gpu, slice=slice(-100, None))
    assert (z_gpu.get()[-100:] == x[-100:]).all() and not z_gpu.get()[:-100].any()
    from numba import cuda

    numba_z = cuda.device_array(5000, np.float32)
    lin_comb(np.float32(2), x_gpu, np.float32(0), y_gpu, numba_z)
    np.testing.assert_allclose(numba_z.copy_to_host(), 2 * x)


def test_reduction_kernel_dot_with_map_expression():
    from numbast_import.reduction import ReductionKernel

    ga = gpuarray()
    dot = ReductionKernel(np.float32, neutral="0", reduce_expr="a+b", map_expr="x[i]*y[i]",
                          arguments="float *x, float *y")  # fmt: skip
    x = np.random.default_rng(5).standard_normal(300000).astype(np.float32)
    y = np.random.default_rng(6).standard_normal(300000).astype(np.float32)
    result = dot(ga.to_gpu(x), ga.to_gpu(y)).get()
    assert result.shape == () and abs(result - np.dot(x.astype(float), y)) < 1e-2


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_linear_combination_with_texture_scalars(dtype):
    from numbast_import.elementwise import get_linear_combination_kernel

    ga = gpuarray()
    kernel, texrefs = get_linear_combination_kernel(((True, dtype, dtype), (True, dtype, dtype)),
                                                    dtype)  # fmt: skip
    x = np.random.default_rng(7).random(10000).astype(dtype)
    y = np.random.default_rng(8).random(10000).astype(dtype)
    a, b = ga.to_gpu(np.array(5, dtype)), ga.to_gpu(np.array(7, dtype))
    x_gpu, y_gpu = ga.to_gpu(x), ga.to_gpu(y)
    z_gpu = ga.empty_like(x_gpu)
    a.bind_to_texref_ext(texrefs[0], allow_double_hack=True)
    b.bind_to_texref_ext(texrefs[1], allow_double_hack=True)
    kernel.prepared_call(x_gpu._grid, x_gpu._block, x_gpu.gpudata, y_gpu.gpudata,
                         z_gpu.gpudata, x_gpu.mem_size)  # fmt: skip
    np.testing.assert_allclose(z_gpu.get(), 5 * x + 7 * y, rtol=1e-6)


def test_rand_is_uniform_in_unit_interval():
    from numbast_import.curandom import rand

    for dtype in (np.float32, np.float64):
        values = rand((1 << 20,), dtype).get()
        assert values.dtype == dtype and values.min() >= 0 and values.max() < 1
        assert abs(values.mean() - 0.5) < 0.002 and abs(values.var() - 1 / 12) < 0.002
    assert not np.array_equal(rand(100).get(), rand(100).get())


def test_generated_dynamic_modules_run():
    import numbast_import.driver as drv
    from numbast_import.compiler import DynamicFunction, DynamicModule, DynamicSourceModule

    scale = DynamicFunction("scale", ["float *x", (np.float32, "a"), (np.int32, "n")],
                            "int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                            "if (i < n) x[i] = twice(x[i]) * a;")  # fmt: skip
    twice = DynamicFunction("twice", ["float v"], "return 2 * v;", "__device__", "float")
    module = DynamicModule()
    module.add_function(twice).add_function(scale)
    x = np.arange(100, dtype=np.float32)
    module.compile().get_function("scale")(drv.InOut(x), np.float32(3), np.int32(100),
                                           block=(128, 1, 1))  # fmt: skip
    np.testing.assert_array_equal(x, np.arange(100) * 6)
    auto = DynamicSourceModule()
    auto.add_to_preamble("#define OFFSET 1").add_function(
        DynamicFunction("bump", ["int *a"], "a[threadIdx.x] += OFFSET;")
    )
    a = np.zeros(32, np.int32)
    auto.get_function("bump")(drv.InOut(a), block=(32, 1, 1))
    assert (a == 1).all()


# -- driver and tools ----------------------------------------------------------------------


def test_host_memory_kinds_copy_asynchronously():
    import numbast_import.driver as drv

    stream = drv.Stream()
    pinned = drv.pagelocked_zeros((64, 4), np.float32)
    assert type(pinned.base).__name__ == "PinnedHostMemory" and not pinned.any()
    pinned[:] = np.arange(256).reshape(64, 4)
    aligned = drv.aligned_empty(1024, np.float64)
    assert aligned.ctypes.data % 4096 == 0
    registered = drv.register_host_memory(drv.aligned_zeros(1000, np.int64))
    registered[:] = np.arange(1000)
    device = drv.mem_alloc(pinned.nbytes)
    drv.memcpy_htod_async(device, pinned, stream)
    back = drv.pagelocked_empty_like(pinned)
    drv.memcpy_dtoh_async(back, device, stream)
    registered_device = drv.mem_alloc(registered.nbytes)
    drv.memcpy_htod_async(registered_device, registered, stream)
    drv.memset_d32_async(device, 7, 4, stream)
    stream.synchronize()
    np.testing.assert_array_equal(back, pinned)
    np.testing.assert_array_equal(drv.from_device(registered_device, (1000,), np.int64),
                                  np.arange(1000))  # fmt: skip
    assert (drv.from_device(device, (4,), np.uint32) == 7).all()
    from numbast_import.tools import PageLockedMemoryPool

    pool = PageLockedMemoryPool()
    block = pool.allocate((10,), np.float32)
    block[:] = 1
    address = block.ctypes.data
    del block
    assert pool.held_blocks == 1 and pool.allocate((9,), np.float32).ctypes.data == address


def test_context_device_events_and_limits():
    import numbast_import.driver as drv
    from numbast_import import tools

    context = drv.Context.get_current()
    assert context is not None and context.get_device() == drv.Device(0)
    device = drv.Context.get_device()
    assert isinstance(device.name(), str) and device.compute_capability() >= (3, 5)
    attributes = device.get_attributes()
    assert attributes[drv.device_attribute.WARP_SIZE] == 32
    free, total = drv.mem_get_info()
    assert 0 < free <= total <= device.total_memory()
    drv.Context.set_limit(drv.limit.STACK_SIZE, 4096)
    assert drv.Context.get_limit(drv.limit.STACK_SIZE) >= 4096
    start, end = drv.Event(), drv.Event()
    start.record()
    drv.mem_alloc(1 << 20).free()
    end.record()
    end.synchronize()
    assert start.time_till(end) == end.time_since(start) >= 0
    allocation, pitch = drv.mem_alloc_pitch(100, 10, 4)
    assert pitch >= 100
    assert isinstance(drv.get_driver_version(), int)
    data = tools.DeviceData()
    assert data.warp_size == 32 and data.max_threads >= 1024

    ran = []
    tools.mark_cuda_test(lambda: ran.append(drv.Context.get_current()))()
    assert ran and ran[0] is not None

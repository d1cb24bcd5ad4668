"""PyCUDA's tutorial and examples on a GPU, with only the import lines changed."""

from __future__ import annotations

import string

import numpy as np
import pytest

pytestmark = pytest.mark.gpu


@pytest.fixture(autouse=True)
def cuda_context(tmp_path, monkeypatch):
    monkeypatch.setenv("NUMBAST_CACHE_DIR", str(tmp_path / "cache"))
    import numbast_import.autoinit  # noqa: F401


def test_tutorial_vector_multiply_with_in_out():
    import numbast_import.driver as drv
    from numbast_import.compiler import SourceModule

    mod = SourceModule("""
    __global__ void multiply_them(float *dest, float *a, float *b)
    {
      const int i = threadIdx.x;
      dest[i] = a[i] * b[i];
    }
    """)
    multiply_them = mod.get_function("multiply_them")
    a = np.random.randn(400).astype(np.float32)
    b = np.random.randn(400).astype(np.float32)
    dest = np.zeros_like(a)
    multiply_them(drv.Out(dest), drv.In(a), drv.In(b), block=(400, 1, 1), grid=(1, 1))
    np.testing.assert_array_equal(dest, a * b)


DOUBLIFY = """
__global__ void doublify(float *a)
{
  int idx = threadIdx.x + threadIdx.y*4;
  a[idx] *= 2;
}
"""


def test_tutorial_mem_alloc_and_memcpy():
    import numbast_import.driver as drv
    from numbast_import.compiler import SourceModule

    a = np.random.randn(4, 4).astype(np.float32)
    a_gpu = drv.mem_alloc(a.nbytes)
    drv.memcpy_htod(a_gpu, a)
    func = SourceModule(DOUBLIFY).get_function("doublify")
    func(a_gpu, block=(4, 4, 1))
    a_doubled = np.empty_like(a)
    drv.memcpy_dtoh(a_doubled, a_gpu)
    np.testing.assert_array_equal(a_doubled, 2 * a)
    func(drv.InOut(a), block=(4, 4, 1))  # the tutorial's InOut variant
    np.testing.assert_array_equal(a, a_doubled)
    a_gpu.free()


def test_prepared_calls_in_a_loop_both_forms():
    import numbast_import.driver as drv
    from numbast_import.compiler import SourceModule

    mod = SourceModule("""
    __global__ void add_scalar(float *a, float s, int n)
    {
      int i = blockIdx.x * blockDim.x + threadIdx.x;
      if (i < n) a[i] += s;
    }
    """)
    n = 1000
    a = np.zeros(n, np.float32)
    a_gpu = drv.to_device(a)
    func = mod.get_function("add_scalar")
    func.prepare("Pfi")
    for _ in range(10):
        func.prepared_call((4, 1), (256, 1, 1), a_gpu, np.float32(1.0), np.int32(n))
    func.prepare([np.intp, np.float32, np.int32], block=(256, 1, 1))
    for _ in range(5):
        func.prepared_call((4, 1), a_gpu, 0.5, n)
    drv.Context.synchronize()
    np.testing.assert_array_equal(drv.from_device_like(a_gpu, a), np.full(n, 12.5, np.float32))


def test_string_template_source():
    import numbast_import.driver as drv
    from numbast_import.compiler import SourceModule

    template = string.Template("""
    __global__ void fill(${type} *out) { out[threadIdx.x] = ${value} + threadIdx.x; }
    """)
    mod = SourceModule(template.substitute(type="double", value="0.5"))
    out = np.zeros(32, np.float64)
    mod.get_function("fill")(drv.Out(out), block=(32, 1, 1))
    np.testing.assert_array_equal(out, 0.5 + np.arange(32))


def test_get_global_write_then_read():
    import numbast_import.driver as drv
    from numbast_import.compiler import SourceModule

    mod = SourceModule("""
    __constant__ float coefficients[4];
    __device__ int calls;
    __global__ void apply(float *out)
    {
      out[threadIdx.x] = coefficients[threadIdx.x];
      if (threadIdx.x == 0) calls += 1;
    }
    """)
    pointer, size = mod.get_global("coefficients")
    assert size == 16
    coefficients = np.array([1.5, -2.0, 3.25, 8.0], np.float32)
    drv.memcpy_htod(pointer, coefficients)
    calls_pointer, calls_size = mod.get_global("calls")
    assert calls_size == 4
    drv.memcpy_htod(calls_pointer, np.array([40], np.int32))
    out = np.zeros(4, np.float32)
    apply = mod.get_function("apply")
    apply(drv.Out(out), block=(4, 1, 1))
    apply(drv.Out(out), block=(4, 1, 1))
    np.testing.assert_array_equal(out, coefficients)
    calls = np.zeros(1, np.int32)
    drv.memcpy_dtoh(calls, calls_pointer)
    assert calls[0] == 42


def test_prepared_timed_call_and_time_kernel():
    import numbast_import.driver as drv
    from numbast_import.compiler import SourceModule

    func = SourceModule(DOUBLIFY).get_function("doublify")
    a_gpu = drv.to_device(np.ones(16, np.float32))
    func.prepare("P")
    elapsed = func.prepared_timed_call((1, 1), (4, 4, 1), a_gpu)
    seconds = elapsed()
    assert 0.0 < seconds < 1.0
    assert 0.0 < func(a_gpu, block=(4, 4, 1), time_kernel=True) < 1.0
    np.testing.assert_array_equal(drv.from_device(a_gpu, (16,), np.float32), np.full(16, 4.0))


def test_dynamic_shared_memory():
    import numbast_import.driver as drv
    from numbast_import.compiler import SourceModule

    mod = SourceModule("""
    __global__ void reverse(float *a)
    {
      extern __shared__ float buffer[];
      int i = threadIdx.x;
      buffer[i] = a[i];
      __syncthreads();
      a[i] = buffer[blockDim.x - 1 - i];
    }
    """)
    a = np.arange(256, dtype=np.float32)
    expected = a[::-1].copy()
    mod.get_function("reverse")(drv.InOut(a), block=(256, 1, 1), shared=256 * 4)
    np.testing.assert_array_equal(a, expected)


def test_dynamic_source_module_launches_from_the_device():
    import numbast_import.driver as drv
    from numbast_import.compiler import DynamicSourceModule

    mod = DynamicSourceModule("""
    __global__ void child(int *a) { a[threadIdx.x] += threadIdx.x; }
    __global__ void parent(int *a) { if (threadIdx.x == 0) child<<<1, 32>>>(a); }
    """)
    a = np.ones(32, np.int32)
    mod.get_function("parent")(drv.InOut(a), block=(1, 1, 1))
    np.testing.assert_array_equal(a, 1 + np.arange(32))


def test_texture_read_through_get_texref():
    import numbast_import.driver as drv
    from numbast_import.compiler import SourceModule

    mod = SourceModule("""
    texture<float, 2, cudaReadModeElementType> mtx_tex;
    __global__ void copy_texture(float *dest)
    {
      int row = threadIdx.x;
      int col = threadIdx.y;
      int w = blockDim.y;
      dest[row*w+col] = tex2D(mtx_tex, row, col);
    }
    """)
    copy_texture = mod.get_function("copy_texture")
    mtx_tex = mod.get_texref("mtx_tex")
    shape = (3, 4)
    a = np.random.randn(*shape).astype(np.float32)
    drv.matrix_to_texref(a, mtx_tex, order="F")
    dest = np.zeros(shape, dtype=np.float32)
    copy_texture(drv.Out(dest), block=shape + (1,), texrefs=[mtx_tex])
    np.testing.assert_array_equal(dest, a)


def test_linear_texture_with_tex1dfetch():
    import numbast_import.driver as drv
    from numbast_import.compiler import SourceModule

    mod = SourceModule("""
    texture<int, 1> values;
    __global__ void gather(int *out) { out[threadIdx.x] = 3 * tex1Dfetch(values, threadIdx.x); }
    """)
    source = np.arange(64, dtype=np.int32)
    source_gpu = drv.to_device(source)
    texref = mod.get_texref("values")
    texref.set_address(source_gpu, source.nbytes)
    out = np.zeros(64, np.int32)
    gather = mod.get_function("gather")
    gather.prepare("P", block=(64, 1, 1))
    out_gpu = drv.mem_alloc(out.nbytes)
    gather.prepared_call((1, 1), out_gpu)
    drv.memcpy_dtoh(out, out_gpu)
    np.testing.assert_array_equal(out, 3 * source)


def test_template_kernel_by_name_expression_and_struct_argument():
    import numbast_import.driver as drv
    from numbast_import.compiler import SourceModule

    mod = SourceModule(
        """
        struct Affine { float scale; int shift; double unused; };
        template <typename T>
        __global__ void apply(T *a, Affine f)
        { a[threadIdx.x] = a[threadIdx.x] * f.scale + f.shift; }
        """,
        no_extern_c=True,
        name_expressions=["apply<float>"],
    )
    affine = np.dtype([("scale", "<f4"), ("shift", "<i4"), ("unused", "<f8")], align=True)
    f = np.array((2.0, 3, 0.0), dtype=affine)[()]
    a = np.arange(8, dtype=np.float32)
    mod.get_function("apply<float>")(drv.InOut(a), f, block=(8, 1, 1))
    np.testing.assert_array_equal(a, np.arange(8) * 2.0 + 3)


def test_function_attributes():
    from numbast_import.compiler import SourceModule

    func = SourceModule(DOUBLIFY).get_function("doublify")
    assert func.num_regs > 0
    assert func.max_threads_per_block >= 32
    assert func.shared_size_bytes == 0
    assert func.local_size_bytes >= 0 and func.const_size_bytes >= 0


def test_streams_and_async_copies():
    import numbast_import.driver as drv
    from numbast_import.compiler import SourceModule

    func = SourceModule(DOUBLIFY).get_function("doublify")
    stream = drv.Stream()
    host = drv.pagelocked_empty(16, np.float32)
    host[:] = np.arange(16)
    a_gpu = drv.mem_alloc(host.nbytes)
    drv.memcpy_htod_async(a_gpu, host, stream)
    func.prepare("P")
    func.prepared_async_call((1, 1), (4, 4, 1), stream, a_gpu)
    result = drv.pagelocked_empty_like(host)
    drv.memcpy_dtoh_async(result, a_gpu, stream)
    event = drv.Event().record(stream)
    event.synchronize()
    assert stream.is_done()
    np.testing.assert_array_equal(result, 2 * np.arange(16, dtype=np.float32))


def test_second_source_module_comes_from_the_memo():
    from numbast_import.compiler import SourceModule

    first = SourceModule(DOUBLIFY)
    second = SourceModule(DOUBLIFY)
    assert first.module is second.module
    assert first.get_function("doublify") is second.get_function("doublify")


def test_numba_device_arrays_as_arguments():
    from numba import cuda

    from numbast_import.compiler import SourceModule

    func = SourceModule(DOUBLIFY).get_function("doublify")
    d = cuda.to_device(np.arange(16, dtype=np.float32))
    func(d, block=(4, 4, 1))
    np.testing.assert_array_equal(d.copy_to_host(), 2 * np.arange(16, dtype=np.float32))


def test_cupy_arrays_as_arguments():
    cupy = pytest.importorskip("cupy")
    from numbast_import.compiler import SourceModule

    func = SourceModule(DOUBLIFY).get_function("doublify")
    d = cupy.arange(16, dtype=cupy.float32)
    func(d, block=(4, 4, 1))
    func.prepare("P")
    func.prepared_call((1, 1), (4, 4, 1), d)
    np.testing.assert_array_equal(cupy.asnumpy(d), 4 * np.arange(16, dtype=np.float32))


def test_memory_of_other_libraries_works_with_memcpy():
    cupy = pytest.importorskip("cupy")
    import numbast_import.driver as drv

    d = cupy.zeros(8, dtype=cupy.int32)
    drv.memcpy_htod(d, np.arange(8, dtype=np.int32))
    out = np.empty(8, np.int32)
    drv.memcpy_dtoh(out, d)
    np.testing.assert_array_equal(out, np.arange(8))

"""Texture references rewritten to texture objects: the source text, what cannot be rewritten,
the rewritten source compiled by NVRTC, and the texture-object descriptors a
TextureReference builds."""

from __future__ import annotations

import pytest

from numbast_import import compiler
from numbast_import import driver as drv
from numbast_import.rtc.textures import TextureReference
from numbast_import.rtc.textures_rewrite import (
    TextureRewriteError,
    rewrite_texture_references,
)

COPY_TEXTURE = """
texture<float, 2, cudaReadModeElementType> mtx_tex;  // texture<int> in a comment stays

__global__ void copy_texture(float *dest)
{
  int row = threadIdx.x;
  int col = threadIdx.y;
  int w = blockDim.y;
  dest[row*w+col] = tex2D(mtx_tex, row, col);
}
"""


def test_declaration_and_reads_become_a_texture_object():
    out, (declaration,) = rewrite_texture_references(COPY_TEXTURE)
    assert "__constant__ cudaTextureObject_t mtx_tex_numbast_texobj;" in out
    assert "tex2D<float>(mtx_tex_numbast_texobj, row, col)" in out
    assert "// texture<int> in a comment stays" in out
    assert out.count("\n") == COPY_TEXTURE.count("\n")  # line numbers unchanged
    assert (declaration.name, declaration.element_type, declaration.dim) == ("mtx_tex", "float", 2)
    assert declaration.read_mode == "cudaReadModeElementType" and declaration.line == 2


def test_defaults_normalized_reads_and_all_four_fetches():
    source = (
        "texture<float4> lin;\n"
        "texture<uchar4, 2, cudaReadModeNormalizedFloat> img;\n"
        "static texture<short2, cudaTextureType3D> vol;\n"
        "texture<float, 1> line;\n"
        "__global__ void k(float4 *o, int i) {\n"
        "  o[0] = tex1Dfetch(lin, i);\n"
        "  o[1] = tex2D( img , 0.5f, 0.5f);\n"
        "  short2 s = tex3D(vol, 1.f, 2.f, 3.f);\n"
        "  o[2].x = tex1D(line, 0.25f) + s.x;\n"
        "}\n"
    )
    out, declarations = rewrite_texture_references(source)
    assert [(d.name, d.dim, d.fetch_type) for d in declarations] == [
        ("lin", 1, "float4"),
        ("img", 2, "float4"),
        ("vol", 3, "short2"),
        ("line", 1, "float"),
    ]
    assert "tex1Dfetch<float4>(lin_numbast_texobj, i)" in out
    assert "tex2D<float4>(img_numbast_texobj, 0.5f" in out
    assert "tex3D<short2>(vol_numbast_texobj, 1.f" in out
    assert "tex1D<float>(line_numbast_texobj, 0.25f)" in out
    assert "static" not in out
    cubin = compiler.compile(source, arch="sm_90", cache_dir=False)
    assert cubin[:4] == b"\x7fELF" and b"lin_numbast_texobj" in cubin


def test_rewritten_source_compiles_with_nvrtc_to_cubin():
    built_cubin = compiler.compile(COPY_TEXTURE, arch="sm_90", cache_dir=False)
    assert built_cubin[:4] == b"\x7fELF"
    assert b"mtx_tex_numbast_texobj" in built_cubin  # the constant get_texref writes
    assert b"copy_texture" in built_cubin


def test_source_without_textures_is_unchanged():
    source = "__global__ void k(float *texture_values) { texture_values[0] = 1; }\n"
    assert rewrite_texture_references(source) == (source, ())


@pytest.mark.parametrize(
    ("source", "message"),
    [
        (
            "texture<float, cudaTextureType2DLayered> t;\n",
            "only 1D, 2D and 3D texture references",
        ),
        (
            "texture<float, 2> t;\n__global__ void k(float *o) { o[0] = tex2DLod(t, 0, 0, 1); }",
            r"line 2: texture reference 't' is used other than as the first argument",
        ),
        (
            "texture<float, 2> t;\n__device__ float f(texture<float, 2> r) { return 0; }\n",
            r"line 2: texture<\.\.\.> used here",
        ),
        ("surface<void, 2> s;\n", r"line 1: surface<\.\.\.> used here"),
    ],
)
def test_what_cannot_be_rewritten_points_to_texture_objects(source, message):
    with pytest.raises(TextureRewriteError, match=message) as caught:
        rewrite_texture_references(source)
    assert "use a texture object instead" in str(caught.value)
    assert "CUDA 12" in str(caught.value) or "only 1D" in str(caught.value)


def test_source_module_compile_reports_rewrite_errors():
    with pytest.raises(TextureRewriteError):
        source = "texture<float, 2> t;\nint x = sizeof(t);\n"
        compiler.compile(source, arch="sm_90", cache_dir=False)


class ArrayStandIn:
    def __init__(self, fmt, channels):
        self.handle = 0xA77A
        self.descriptor = drv.ArrayDescriptor()
        self.descriptor.format = fmt
        self.descriptor.num_channels = channels


def texref(source: str) -> TextureReference:
    _out, (declaration,) = rewrite_texture_references(source)
    return TextureReference(declaration, module=None)


def test_array_texture_descriptor():
    from cuda.bindings import driver

    ref = texref("texture<float, 2, cudaReadModeElementType> t;")
    ref.set_array(ArrayStandIn(drv.array_format.FLOAT, 1))
    ref.set_address_mode(0, drv.address_mode.WRAP)
    ref.set_address_mode(1, drv.address_mode.MIRROR)
    ref.set_filter_mode(drv.filter_mode.LINEAR)
    ref.set_flags(drv.TRSF_NORMALIZED_COORDINATES)
    resource, texture = ref.descriptors()
    assert resource.resType == driver.CUresourcetype.CU_RESOURCE_TYPE_ARRAY
    assert int(resource.res.array.hArray) == 0xA77A
    assert [int(m) for m in texture.addressMode] == [0, 2, 1]
    assert int(texture.filterMode) == 1
    assert texture.flags == drv.TRSF_NORMALIZED_COORDINATES  # float data: no READ_AS_INTEGER


def test_integer_element_type_reads_as_integer():
    ref = texref("texture<int, 2> t;")
    ref.set_array(ArrayStandIn(drv.array_format.SIGNED_INT32, 1))
    _resource, texture = ref.descriptors()
    assert texture.flags & drv.TRSF_READ_AS_INTEGER


def test_normalized_integer_texture_reads_as_float():
    ref = texref("texture<uchar4, 2, cudaReadModeNormalizedFloat> t;")
    ref.set_array(ArrayStandIn(drv.array_format.UNSIGNED_INT8, 4))
    _resource, texture = ref.descriptors()
    assert not texture.flags & drv.TRSF_READ_AS_INTEGER


def test_linear_texture_descriptor_takes_the_format_from_the_declaration():
    from cuda.bindings import driver

    ref = texref("texture<float2, 1> t;")
    assert ref.set_address(0x10000, 4096) == 0
    resource, _texture = ref.descriptors()
    assert resource.resType == driver.CUresourcetype.CU_RESOURCE_TYPE_LINEAR
    linear = resource.res.linear
    assert (int(linear.devPtr), linear.sizeInBytes, linear.numChannels) == (0x10000, 4096, 2)
    assert int(linear.format) == drv.array_format.FLOAT
    ref.set_format(drv.array_format.SIGNED_INT16, 4)
    resource, _texture = ref.descriptors()
    assert int(resource.res.linear.format) == drv.array_format.SIGNED_INT16
    assert resource.res.linear.numChannels == 4


def test_pitched_2d_texture_descriptor():
    from cuda.bindings import driver

    ref = texref("texture<float, 2> t;")
    descriptor = drv.ArrayDescriptor()
    descriptor.width, descriptor.height = 100, 30
    descriptor.format, descriptor.num_channels = drv.array_format.FLOAT, 1
    ref.set_address_2d(0x20000, descriptor, 512)
    resource, _texture = ref.descriptors()
    assert resource.resType == driver.CUresourcetype.CU_RESOURCE_TYPE_PITCH2D
    pitched = resource.res.pitch2D
    assert (pitched.width, pitched.height, pitched.pitchInBytes) == (100, 30, 512)


def test_unbound_texture_says_how_to_bind():
    with pytest.raises(ValueError, match="set_array, set_address"):
        texref("texture<float, 2> t;").descriptors()


def test_memcpy2d_host_to_array_fields():
    import numpy as np
    from cuda.bindings import driver

    matrix = np.arange(12, dtype=np.float32).reshape(3, 4)
    copy = drv.Memcpy2D()
    copy.set_src_host(matrix)
    copy.set_dst_array(ArrayStandIn(drv.array_format.FLOAT, 1))
    copy.width_in_bytes = copy.src_pitch = copy.dst_pitch = 16
    copy.height = 3
    native = copy.native()
    assert native.srcMemoryType == driver.CUmemorytype.CU_MEMORYTYPE_HOST
    assert native.srcHost == matrix.ctypes.data
    assert native.dstMemoryType == driver.CUmemorytype.CU_MEMORYTYPE_ARRAY
    assert int(native.dstArray) == 0xA77A
    assert (native.WidthInBytes, native.Height, native.srcPitch) == (16, 3, 16)


def test_array_formats_of_numpy_types():
    import numpy as np

    assert drv.dtype_to_array_format(np.float32) == drv.array_format.FLOAT
    assert drv.dtype_to_array_format(np.uint8) == drv.array_format.UNSIGNED_INT8
    with pytest.raises(TypeError, match="no CUDA array format for float64"):
        drv.dtype_to_array_format(np.float64)

"""SourceModule compilation without a GPU: cubin, PTX and fatbin, compile errors, options,
name expressions, preprocess_source, DynamicModule linking."""

from __future__ import annotations

import pytest

from numbast_import import compiler
from numbast_import.rtc import nvcc as nvcc_backend
from numbast_import.rtc.build import build
from numbast_import.rtc.options import DroppedOptionWarning, nvrtc_options
from tests.rtc_support import VECTOR_ADD

needs_nvcc = pytest.mark.skipif(
    nvcc_backend.find_nvcc() is None, reason="no nvcc on PATH or under CUDA_HOME"
)


def test_cubin_without_a_device():
    cubin = compiler.compile(VECTOR_ADD, arch="sm_90", cache_dir=False)
    assert cubin[:4] == b"\x7fELF"
    assert b"multiply_them" in cubin  # extern "C": the kernel keeps its name


def test_ptx_without_a_device():
    ptx = compiler.compile(VECTOR_ADD, arch="sm_90", target="ptx", cache_dir=False).decode()
    assert ".target sm_90" in ptx
    assert ".entry multiply_them(" in ptx


@needs_nvcc
def test_fatbin_without_a_device():
    fatbin = compiler.compile(VECTOR_ADD, arch="sm_90", target="fatbin", cache_dir=False)
    assert fatbin[:4] == b"\x50\xed\x55\xba"  # fatbin magic
    assert len(fatbin) > 1000


@needs_nvcc
def test_nvcc_named_compiles_with_nvcc():
    cubin = compiler.compile(VECTOR_ADD, nvcc="nvcc", arch="sm_90", cache_dir=False)
    assert cubin[:4] == b"\x7fELF" and b"multiply_them" in cubin


def test_missing_nvcc_falls_back_to_nvrtc():
    cubin = compiler.compile(VECTOR_ADD, nvcc="/no/such/nvcc", arch="sm_90", cache_dir=False)
    assert cubin[:4] == b"\x7fELF"


def test_compile_error_carries_the_log_and_user_line_numbers():
    source = "__global__ void k(float *a)\n{\n  a[0] = undefined_name;\n}\n"
    with pytest.raises(compiler.CompileError) as caught:
        compiler.compile(source, arch="sm_90", cache_dir=False)
    error = caught.value
    # Line 3 of the user's source, even though the extern "C" wrapper adds a line before it.
    assert error.error_lines == [3]
    assert 'identifier "undefined_name" is undefined' in error.log
    message = str(error)
    assert "kernel.cu(3): error" in message
    assert "3 | " in message and "a[0] = undefined_name;" in message
    assert "--gpu-architecture=sm_90" in message  # the command line


def test_no_extern_c_keeps_cpp_linkage_and_template_kernels_by_name_expression():
    source = "template <typename T> __global__ void scale(T *a, T s) { a[threadIdx.x] *= s; }\n"
    built = build(
        source,
        no_extern_c=True,
        arch="sm_90",
        cache_dir=False,
        name_expressions=["scale<float>", "scale<double>"],
    )
    lowered = built.compiled.lowered_names
    assert lowered == {"scale<float>": "_Z5scaleIfEvPT_S0_", "scale<double>": "_Z5scaleIdEvPT_S0_"}
    assert lowered["scale<float>"].encode() in built.compiled.code


def test_get_function_looks_name_expressions_up_by_their_mangled_name():
    from numbast_import.rtc.module import Module

    asked = []

    class ObjectCodeStandIn:
        def get_kernel(self, symbol):
            asked.append(symbol)

            class Kernel:
                handle = 0x1234

            return Kernel()

    module = Module(b"\x7fELF", "cubin", lowered_names={"scale<float>": "_Z5scaleIfEvPT_S0_"})
    module._object_code = ObjectCodeStandIn()
    function = module.get_function("scale<float>")
    assert asked == ["_Z5scaleIfEvPT_S0_"]
    assert function.name == "scale<float>" and function.handle == 0x1234
    assert module.get_function("scale<float>") is function  # looked up once


def test_options_in_nvcc_spelling_become_nvrtc_options(monkeypatch):
    from numbast_import.rtc import options as rtc_options

    monkeypatch.setattr(rtc_options, "_warned", set())  # warned once per process: afresh here
    with pytest.warns(DroppedOptionWarning, match="-O3"):
        options, arch = nvrtc_options(
            ["-use_fast_math", "-Xptxas", "-v", "-O3", "-I", "inc", "-arch", "sm_80", "-DN=4"]
        )
    assert options == ["-use_fast_math", "--ptxas-options=-v", "-DN=4", "-Iinc"]
    assert arch == "sm_80"


def test_options_reach_the_compiler():
    source = "__global__ void k(int *a) { a[0] = N; }\n"
    with pytest.raises(compiler.CompileError):
        compiler.compile(source, arch="sm_90", cache_dir=False)
    assert compiler.compile(source, options=["-DN=4"], arch="sm_90", cache_dir=False)


def test_include_dirs(tmp_path):
    (tmp_path / "twice.h").write_text("#define TWICE(x) (2 * (x))\n")
    source = '#include "twice.h"\n__global__ void k(int *a) { a[0] = TWICE(a[0]); }\n'
    cubin = compiler.compile(source, arch="sm_90", include_dirs=[str(tmp_path)], cache_dir=False)
    assert cubin[:4] == b"\x7fELF"


def test_toolkit_headers_are_found():
    source = "#include <cuda_fp16.h>\n__global__ void k(__half *a) { a[0] = __hadd(a[0], a[1]); }\n"
    assert compiler.compile(source, arch="sm_90", cache_dir=False)[:4] == b"\x7fELF"


def test_keep_keeps_the_files(caplog, tmp_path):
    import logging
    import re
    import shutil
    from pathlib import Path

    with caplog.at_level(logging.WARNING):
        compiler.compile(VECTOR_ADD, arch="sm_90", keep=True)
    kept = re.search(r"compiler files kept in (\S+)", caplog.text)
    assert kept is not None
    directory = Path(kept.group(1))
    try:
        assert (directory / "kernel.cu").read_text().count("multiply_them") == 1
        assert (directory / "kernel.cubin").read_bytes()[:4] == b"\x7fELF"
    finally:
        shutil.rmtree(directory)


def test_arch_must_name_an_arch():
    with pytest.raises(ValueError, match="sm_<major><minor>"):
        compiler.compile(VECTOR_ADD, arch="90", cache_dir=False)


@needs_nvcc
def test_preprocess_source():
    out = compiler.preprocess_source("#define SIZE 16\nint table[SIZE];\n", ["-DUNUSED"])
    assert "int table[16];" in out
    assert "#define" not in out


def test_preprocess_source_without_nvcc_says_why():
    with pytest.raises(FileNotFoundError, match="NVRTC has no preprocess-only mode"):
        compiler.preprocess_source("int a;", nvcc="/no/such/nvcc")


def test_dynamic_module_links_with_the_device_runtime():
    from numbast_import.rtc.dynamic import DynamicModule

    source = """
    __global__ void child(int *a) { a[threadIdx.x] += 1; }
    __global__ void parent(int *a) { if (threadIdx.x == 0) child<<<1, 32>>>(a); }
    """
    module = DynamicModule(arch="sm_90", cache_dir=False).add_source(source)
    module.add_stdlib("cudadevrt").link()
    assert module.code[:4] == b"\x7fELF"
    assert b"parent" in module.code and b"child" in module.code


def test_leading_includes_leave_the_wrapper_and_keep_line_numbers():
    source = "#include <cuda_fp16.h>\n\n__global__ void k(__half *a)\n{ a[0] = nope; }\n"
    with pytest.raises(compiler.CompileError) as caught:
        compiler.compile(source, arch="sm_90", cache_dir=False)
    assert caught.value.error_lines == [4]


def test_compiling_leaves_the_interpreters_shared_bytes_alone():
    """NVRTC writes its log and output into the buffers it is given; ``b" " * 1`` is Python's
    shared one-byte object, and writing a NUL into it once turned every printed space into a
    NUL for the rest of the process."""
    from numbast.core.nvrtc import compile_unit

    compile_unit('extern "C" __global__ void k() {}', "k.cu", ["-arch=compute_90"], "ptx")
    assert b" "[0] == 32  # read its content: comparing with b" " compares the object to itself

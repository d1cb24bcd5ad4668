"""The specification's compiler API beside PyCUDA's (DynamicModule in both forms,
DynamicSourceModule, DynamicFunction, get_nvcc_version) and CompileError's quoted lines,
without a GPU."""

from __future__ import annotations

import numpy as np
import pytest

from numbast_import import compiler
from numbast_import.rtc import nvcc as nvcc_backend

needs_nvcc = pytest.mark.skipif(
    nvcc_backend.find_nvcc() is None, reason="no nvcc on PATH or under CUDA_HOME"
)


# -- CompileError quotes the user's lines --------------------------------------------------


def _quoted(error: compiler.CompileError) -> list[str]:
    return str(error).split("source lines with errors:\n", 1)[1].splitlines()


@pytest.mark.parametrize("nvcc", [None, pytest.param("nvcc", marks=needs_nvcc)])
def test_compile_error_quotes_the_line_it_reports(nvcc):
    source = (
        "// a comment before the include\n"
        "#include <cuda_fp16.h>\n"
        "\n"
        "__global__ void k(float *a)\n"
        "{\n"
        "  a[0] = undefined_name;\n"
        "}\n"
    )
    with pytest.raises(compiler.CompileError) as caught:
        compiler.compile(source, nvcc=nvcc, arch="sm_90", cache_dir=False)
    assert caught.value.error_lines == [6]
    assert _quoted(caught.value) == ["  6 |   a[0] = undefined_name;"]


@pytest.mark.parametrize("nvcc", [None, pytest.param("nvcc", marks=needs_nvcc)])
def test_a_missing_include_is_reported_on_its_own_line(nvcc):
    source = '// first line\n#include "no_such_header.h"\n__global__ void k() {}\n'
    with pytest.raises(compiler.CompileError) as caught:
        compiler.compile(source, nvcc=nvcc, arch="sm_90", cache_dir=False)
    assert caught.value.error_lines == [2]
    assert _quoted(caught.value) == ['  2 | #include "no_such_header.h"']


def test_compile_error_quotes_lines_of_unwrapped_sources():
    source = "namespace n {\n__global__ void k(float *a)\n{ a[0] = missing; }\n}\n"
    with pytest.raises(compiler.CompileError) as caught:
        compiler.compile(source, no_extern_c=True, arch="sm_90", cache_dir=False)
    assert _quoted(caught.value) == ["  3 | { a[0] = missing; }"]


# -- get_nvcc_version ----------------------------------------------------------------------


@needs_nvcc
def test_get_nvcc_version_is_major_minor_of_that_nvcc():
    import re
    import subprocess

    text = subprocess.run(["nvcc", "--version"], capture_output=True, text=True).stdout
    release = re.search(r"release (\d+)\.(\d+)", text)
    assert compiler.get_nvcc_version("nvcc") == (int(release[1]), int(release[2]))


def test_get_nvcc_version_without_nvcc_is_nvrtcs():
    from cuda.bindings import nvrtc

    _err, major, minor = nvrtc.nvrtcVersion()
    assert compiler.get_nvcc_version("/no/such/nvcc") == (major, minor)


# -- the specification's DynamicModule -----------------------------------------------------


def _scale_function():
    return compiler.DynamicFunction(
        "scale", ["float *x", (np.float32, "a"), (np.int32, "n")],
        "int i = blockIdx.x * blockDim.x + threadIdx.x;\nif (i < n) x[i] *= a * FACTOR;",
    )  # fmt: skip


def test_dynamic_function_renders_its_declaration_and_body():
    function = _scale_function()
    assert function.declaration() == "__global__ void scale(float *x, float a, int n)"
    assert str(function).startswith(function.declaration() + "\n{\n  int i = ")
    device = compiler.DynamicFunction("twice", ["float v"], "return 2 * v;", "__device__", "float")
    assert device.declaration() == "__device__ float twice(float v)"
    with pytest.raises(ValueError, match="not a C identifier"):
        compiler.DynamicFunction("two words", [], "")


def test_dynamic_module_compiles_preamble_and_functions_to_a_source_module():
    module = compiler.DynamicModule()
    module.add_to_preamble("#define FACTOR 2")
    module.add_function(_scale_function())
    assert module.source().index("#define FACTOR 2") < module.source().index("void scale")
    built = module.compile(options=["-DUNUSED=1"], arch="sm_90", cache_dir=False)
    assert isinstance(built, compiler.SourceModule)
    assert built.cubin[:4] == b"\x7fELF" and b"scale" in built.cubin


def test_a_template_places_the_preamble_and_functions():
    module = compiler.DynamicModule("// top\n${preamble}\n// middle\n${functions}\n// end $HOME")
    module.add_to_preamble(["#define A 1", "#define B 2"])
    module.add_function("__global__ void f(int *a) { a[0] = A + B; }")
    assert module.source() == (
        "// top\n#define A 1\n#define B 2\n// middle\n"
        "__global__ void f(int *a) { a[0] = A + B; }\n// end $HOME"
    )
    without_places = compiler.DynamicModule("static const int K = 3;\n")
    without_places.add_to_preamble("#define A 1").add_function("__global__ void g() {}")
    text = without_places.source()
    assert text.index("#define A") < text.index("K = 3") < text.index("void g")


def test_the_two_forms_do_not_mix():
    generated = compiler.DynamicModule()
    generated.add_function("__global__ void f() {}")
    with pytest.raises(TypeError, match="generates source"):
        generated.add_source("__global__ void g() {}")
    linker = compiler.DynamicModule(link_options=[])
    with pytest.raises(TypeError, match="links device code"):
        linker.add_to_preamble("#define A 1")


def test_pycudas_first_argument_is_the_nvcc_name():
    assert compiler.DynamicModule("nvcc").nvcc == "nvcc"
    with pytest.raises(TypeError, match="links device code"):
        compiler.DynamicModule("/opt/cuda/bin/nvcc").add_function("__global__ void f() {}")
    assert compiler.DynamicModule("__global__ void f() {}").template.startswith("__global__")


def test_pycudas_dynamic_module_reads_link_requests_in_nvcc_options():
    outer = """
    __global__ void outer() {
        extern __global__ void inner();
        inner<<<2, 1>>>();
    }"""
    inner = "__global__ void inner() {}"
    module = compiler.DynamicModule(arch="sm_90", cache_dir=False)
    for source in (outer, inner):
        module.add_source(source, nvcc_options=["-rdc=true", "-lcudadevrt"])
    module.link()  # -lcudadevrt: the device runtime is linked without add_stdlib
    assert module.code[:4] == b"\x7fELF"
    assert b"outer" in module.code and b"inner" in module.code


def test_dynamic_source_module_with_a_source_is_pycudas():
    source = """
    __global__ void child(int *a) { a[threadIdx.x] += 1; }
    __global__ void parent(int *a) { if (threadIdx.x == 0) child<<<1, 32>>>(a); }
    """
    module = compiler.DynamicSourceModule(source, arch="sm_90", cache_dir=False)
    assert module.code[:4] == b"\x7fELF" and b"parent" in module.code


def test_dynamic_source_module_without_a_source_compiles_when_first_used(monkeypatch):
    module = compiler.DynamicSourceModule(arch="sm_90", cache_dir=False)
    module.add_to_preamble("#define FACTOR 3")
    module.add_function(_scale_function())
    compiled = module._generated()
    assert compiled.cubin[:4] == b"\x7fELF" and b"scale" in compiled.cubin
    assert module._generated() is compiled  # nothing new: not compiled again
    module.add_function(compiler.DynamicFunction("other", ["int *a"], "a[0] = 1;"))
    again = module._generated()
    assert again is not compiled and b"other" in again.cubin
    # get_function goes through the compiled module (loading it needs a GPU: stop before)
    seen = []
    monkeypatch.setattr(type(again), "get_function", lambda self, name: seen.append(name))
    module.get_function("other")
    assert seen == ["other"]

"""The stand-in C and C++ standard headers NVRTC compiles with (``numbast.core.nvrtc``): a header
written for nvcc that includes <stdint.h>, <cmath>, <type_traits>... imports (clang parses it
with the host's headers, NVRTC compiles its shims with the stand-ins), and kernels calling its
functions link; dynamic bindings (compiled by numba-cuda's NVRTC) and the runtime compiler
find the same stand-ins; their digest is part of every cache key."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import numpy as np
import pytest
from support import link_kernel_to_cubin

from numbast.core import nvrtc

DATA = Path(__file__).parent / "data" / "nvrtc"
# Every stand-in is included by one of the test headers (checked below).
TEST_HEADERS = ("std_c.cuh", "std_cxx.cuh", "host_only.cuh")


@pytest.fixture(scope="module")
def std_modules(tmp_path_factory):
    """cuda_headers.nvrtc_std_c and .nvrtc_std_cxx, imported once (built in a fresh cache)."""
    import importlib

    import numbast_import

    patch = pytest.MonkeyPatch()
    patch.setenv("NUMBAST_CACHE_DIR", str(tmp_path_factory.mktemp("stand_in_cache")))
    patch.setenv("NUMBAST_IMPORT_ARCH", "sm_90")
    patch.setenv("NUMBAST_IMPORT_QUIET", "1")
    numbast_import.register("nvrtc_std_c", DATA / "std_c.cuh")
    numbast_import.register("nvrtc_std_cxx", DATA / "std_cxx.cuh")
    try:
        yield (
            importlib.import_module("cuda_headers.nvrtc_std_c"),
            importlib.import_module("cuda_headers.nvrtc_std_cxx"),
        )
    finally:
        numbast_import.unregister("nvrtc_std_c")
        numbast_import.unregister("nvrtc_std_cxx")
        patch.undo()


def c_kernel(m):
    """A kernel calling each function of std_c.cuh; results in ``out`` (float64)."""
    from numba import cuda

    @cuda.jit
    def kernel(out, ints):
        out[0] = m.rotate_left(np.uint32(ints[0]), 1)
        out[1] = m.offset_of_second()
        out[2] = m.below_int_max(ints[1])
        out[3] = m.float_epsilon()
        out[4] = m.integer_hypot(ints[2], ints[3])
        out[5] = m.circle_area(2.0)
        out[6] = m.printed(ints[4])
        out[7] = m.checked(ints[5])
        out[8] = m.quotient(ints[6], ints[7])
        out[9] = m.hello_length()

    return kernel


C_INTS = np.array([0x80000001 - (1 << 32), 5, 3, 4, 7, 9, 17, 5], dtype=np.int32)
C_EXPECTED = [3, 8, 2**31 - 1 - 5, np.finfo(np.float32).eps, 5.0, np.pi * 4, 7, 9, 3, 5]


def cxx_kernel(m):
    """A kernel calling each function of std_cxx.cuh; results in ``out`` (float64)."""
    from numba import cuda

    @cuda.jit
    def kernel(out, ints):
        out[0] = m.widened_product(ints[0], ints[1])
        out[1] = m.bytes_of_doubles(np.uint64(3))
        out[2] = m.cxx_below_int_max(ints[2])
        out[3] = m.double_epsilon()
        out[4] = m.cxx_hypot(np.float32(3.0), np.float32(4.0))
        out[5] = m.cxx_printed(ints[3])
        out[6] = m.cxx_checked(ints[4])
        out[7] = m.magnitude(-ints[5])
        out[8] = m.compare_words()
        out[9] = m.clamp_unit(np.float32(1.5)) + m.clamp_unit(np.float32(-0.5))
        out[10] = m.sum_of_three(1, 2, 3)
        out[11] = m.ones_in(np.uint32(11))
        out[12] = m.plus_of(2, 3)
        out[13] = m.list_sum(4, 5)
        out[14] = m.span_length(5)
        out[15] = m.largest_float()
        out[16] = m.through_address(11)
        out[17] = m.placed(12)
        out[18] = m.value_or(3, True) * 10 + m.value_or(3, False)
        out[19] = m.tuple_sum(1, 2.5)
        out[20] = m.size_t_is_unsigned()
        out[21] = m.swapped_first(1, 2)

    return kernel


CXX_INTS = np.array([100000, 300000, 1, 42, 999, 7], dtype=np.int32)
CXX_EXPECTED = [
    30_000_000_000, 24, 2**31 - 2, np.finfo(np.float64).eps, 5.0, 42, 999, 7, -1, 1.0, 6, 3,
    5, 9, 5, np.finfo(np.float32).max, 11, 12, 29, 3.5, 1, 2,
]  # fmt: skip


def test_every_stand_in_is_exercised_by_a_test_header():
    included = set()
    for name in TEST_HEADERS:
        text = (DATA / name).read_text()
        included |= {line.split("<")[1].split(">")[0] for line in text.splitlines()
                     if line.startswith("#include <")}  # fmt: skip
    shipped = {name for name in os.listdir(nvrtc.stand_in_dir()) if not name.startswith("__")}
    assert shipped <= included, sorted(shipped - included)


def test_a_header_including_c_standard_headers_imports_and_its_kernel_links(std_modules):
    from numba import types

    c_module, _ = std_modules
    signature = (types.float64[::1], types.int32[::1])
    assert link_kernel_to_cubin(c_kernel(c_module).py_func, signature)


def test_a_header_including_cxx_standard_headers_imports_and_its_kernel_links(std_modules):
    from numba import types

    _, cxx_module = std_modules
    signature = (types.float64[::1], types.int32[::1])
    assert link_kernel_to_cubin(cxx_kernel(cxx_module).py_func, signature)


@pytest.mark.gpu
@pytest.mark.parametrize("which", ["c", "cxx"])
def test_stand_in_functions_compute_what_the_host_library_does(std_modules, which):
    from numba import cuda

    module = std_modules[0] if which == "c" else std_modules[1]
    make, ints, expected = (
        (c_kernel, C_INTS, C_EXPECTED) if which == "c" else (cxx_kernel, CXX_INTS, CXX_EXPECTED)
    )
    out = cuda.to_device(np.zeros(len(expected), dtype=np.float64))
    make(module)[1, 1](out, cuda.to_device(ints))
    np.testing.assert_allclose(out.copy_to_host(), np.array(expected, dtype=np.float64))


def test_shims_compiled_by_numba_cuda_find_the_stand_ins_too():
    """Dynamic bindings hand numba-cuda a .cu source that numba-cuda compiles with its own
    NVRTC and include path: the shim library puts the stand-ins on that path."""
    from numba import types

    from ast_canopy import parse_declarations_from_source
    from numbast import MemoryShimWriter, bind_cxx_function

    header = str(DATA / "std_c.cuh")
    decls = parse_declarations_from_source(header, [header], "sm_90")
    writer = MemoryShimWriter(f'#include "{header}"')
    by_name = {f.name: f for f in decls.functions}
    integer_hypot = bind_cxx_function(writer, by_name["integer_hypot"])
    quotient = bind_cxx_function(writer, by_name["quotient"])

    def kernel(out, ints):
        out[0] = integer_hypot(ints[0], ints[1]) + quotient(ints[2], ints[3])

    from numba.cuda import config

    assert link_kernel_to_cubin(kernel, (types.float64[::1], types.int32[::1]))
    search = (config.CUDA_NVRTC_EXTRA_SEARCH_PATHS or "").split(":")
    assert nvrtc.stand_in_dir() in search  # added when numba-cuda first compiled the shims


def test_the_runtime_compiler_compiles_sources_that_include_system_headers():
    from numbast_import import compiler

    source = (
        "#include <stdio.h>\n#include <math.h>\n#include <stdint.h>\n#include <cmath>\n"
        "#include <cstdint>\n#include <assert.h>\n"
        'extern "C" __global__ void k(float *x, uint32_t n) {\n'
        "  std::uint32_t i = threadIdx.x; assert(i < n);\n"
        '  if (i < n) { x[i] = sqrtf(x[i]) + std::sqrt(2) + M_PI; printf("%u\\n", i); }\n'
        "}\n"
    )
    cubin = compiler.compile(source, arch="sm_90", cache_dir=False)
    assert cubin[:4] == b"\x7fELF" and b"vprintf" in cubin


def test_assert_h_follows_ndebug_at_each_inclusion():
    source = (
        "#define NDEBUG\n#include <assert.h>\n"
        'extern "C" __device__ void quiet(int x) { assert(x > 0); }\n'
        "#undef NDEBUG\n#include <cassert>\n"
        'extern "C" __device__ void loud(int x) { assert(x > 0); }\n'
    )
    ptx = nvrtc.compile_unit(source, "a.cu", nvrtc.unit_options("sm_90", lto=False), "ptx")
    text = ptx.code.decode()
    quiet, loud = text.split(".func quiet")[1], text.split(".func loud")[1]
    assert "__assertfail" not in quiet.split(".func")[0]
    assert "__assertfail" in loud.split(".func")[0]


def test_the_stand_in_digest_follows_their_contents(tmp_path, monkeypatch):
    copy = tmp_path / nvrtc.STAND_IN_DIR_NAME
    import shutil

    shutil.copytree(nvrtc.stand_in_dir(), copy)
    monkeypatch.setattr(nvrtc, "stand_in_dir", lambda: str(copy))
    nvrtc.stand_in_digest.cache_clear()
    try:
        before = nvrtc.stand_in_digest()
        (copy / "stdint.h").write_text((copy / "stdint.h").read_text() + "\n// changed\n")
        nvrtc.stand_in_digest.cache_clear()
        assert nvrtc.stand_in_digest() != before
    finally:
        nvrtc.stand_in_digest.cache_clear()


def test_cache_keys_cover_the_stand_ins(tmp_path):
    """Import entries (and the template instances kept in them) through the generator's
    fingerprint, which a warm import checks by stamps; runtime-compiler entries by digest."""
    from numbast_import.cache.key import _generator_sources
    from numbast_import.rtc.build import _Compiler

    covered = {os.path.realpath(path) for _name, path in _generator_sources()}
    stand_ins = Path(nvrtc.stand_in_dir())
    assert {os.path.realpath(p) for p in stand_ins.rglob("*") if p.is_file()} <= covered
    compiler = _Compiler(None, (), "sm_90", None, (), (), "cubin", False)
    assert compiler.key("int x;", tmp_path)["nvrtc_stand_ins"] == nvrtc.stand_in_digest()


def test_the_include_path_puts_the_callers_dirs_first_and_the_stand_ins_last(tmp_path):
    dirs = nvrtc.include_dirs([str(tmp_path)])
    assert dirs[0] == str(tmp_path) and dirs[-1] == nvrtc.stand_in_dir()
    assert set(nvrtc.toolkit_include_dirs()) <= set(dirs)


def test_a_runtime_copy_without_numbast_finds_no_stand_ins_and_says_so(tmp_path):
    """A standalone module's copy of the runtime runs this module from source text, with no
    __file__: it uses the installed numbast's stand-ins, and works without any."""
    source = Path(nvrtc.__file__).read_text()
    namespace: dict = {"__name__": "copied_nvrtc"}
    exec(compile(source, "<copy>", "exec"), namespace)
    assert namespace["stand_in_dir"]() == nvrtc.stand_in_dir()  # numbast is installed here
    hidden = {"numbast": None, "numbast.core": None}
    saved = {name: sys.modules.get(name) for name in hidden}
    sys.modules.update(hidden)  # find_spec of a module set to None raises
    try:
        namespace["stand_in_dir"].cache_clear()
        assert namespace["stand_in_dir"]() is None
        assert namespace["include_dirs"]() == list(namespace["toolkit_include_dirs"]())
    finally:
        for name, module in saved.items():
            if module is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = module

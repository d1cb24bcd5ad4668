"""A declaration whose shim NVRTC rejects is left out with NVRTC's message in coverage, never the
whole import, wherever NVRTC reports the error: in the shim, in a header's template instantiated
from the shim, or at a header's declaration ("referenced but not defined"), with no round
limit; a header that does not compile alone fails the import quoting NVRTC's log."""

from __future__ import annotations

import importlib
import json
from pathlib import Path

import numpy as np
import pytest
from support import link_kernel_to_cubin

from numbast_import.nvrtc_diagnostics import errors_in, shims_calling_undefined
from numbast_import.shim_compiler import ShimCompileError, compile_shims_to_ltoir

DATA = Path(__file__).parent / "data" / "nvrtc"

CONTEXT = 'detected during instantiation of "T Holder<T>::doubled() const [with T=int]"'
LOG = f"""\
header.cuh(9): error: expression must have class type but it has type "const int"
    __device__ T doubled() const {{ return value.twice(); }}
                                          ^
          {CONTEXT} at line 2 of nbi_shim_a

nbi_shim_b(2): warning #177-D: variable "x" was declared but never referenced

nbi_shim_b(3): error: identifier "nope" is undefined

header.cuh(15): error: extern inline function "ns::declared_only" was referenced but not defined
  __forceinline__ __device__ int declared_only(int x);
                                 ^

3 errors detected in the compilation of "unit.cu".
"""


def test_nvrtc_errors_are_read_with_the_files_they_name():
    errors = errors_in(LOG)
    assert [(e.file, e.line) for e in errors] == [
        ("header.cuh", 9), ("nbi_shim_b", 3), ("header.cuh", 15),
    ]  # fmt: skip
    assert errors[0].files == {"header.cuh", "nbi_shim_a"}
    assert errors[0].short() == 'header.cuh(9): expression must have class type but it has type ' \
        '"const int"'  # fmt: skip
    assert "3 errors detected" not in errors[2].text


def test_an_undefined_function_is_matched_to_the_shims_calling_it_by_mangled_name():
    undefined = errors_in(LOG)[2]
    shims = [
        "nbi_shim__ZN2ns13declared_onlyEi",  # ns::declared_only(int)
        "nbi_shim__ZN2ns14xdeclared_onlyEi",  # another name with the same ending
        "nbi_shim__ZN3ns213declared_onlyEi",  # ns2::declared_only: another namespace
        "nbi_shim__ZN2ns13declared_only2inEv",  # a function in a class of that name: no
    ]
    assert shims_calling_undefined(undefined, shims) == {shims[0], shims[3]}
    assert shims_calling_undefined(errors_in(LOG)[0], shims) == set()


@pytest.fixture(scope="module")
def rejected_module(tmp_path_factory):
    """cuda_headers.nvrtc_rejected (tests/data/nvrtc/rejected.cuh), built once, and its
    manifest."""
    import numbast_import

    cache = tmp_path_factory.mktemp("rejection_cache")
    patch = pytest.MonkeyPatch()
    patch.setenv("NUMBAST_CACHE_DIR", str(cache))
    patch.setenv("NUMBAST_IMPORT_ARCH", "sm_90")
    patch.setenv("NUMBAST_IMPORT_QUIET", "1")
    numbast_import.register("nvrtc_rejected", DATA / "rejected.cuh")
    try:
        module = importlib.import_module("cuda_headers.nvrtc_rejected")
        (manifest,) = [json.loads(p.read_text()) for p in cache.glob("*/*/manifest.json")]
        yield module, manifest
    finally:
        numbast_import.unregister("nvrtc_rejected")
        patch.undo()


def test_each_rejected_declaration_is_left_out_with_nvrtcs_message(rejected_module):
    _module, manifest = rejected_module
    kinds = manifest["coverage"]["kinds"]
    reasons = {
        item["what"]: item["reason"]
        for kind in ("function", "method")
        for item in kinds[kind]["not_bound"]
        if "NVRTC" in item["reason"]
    }
    never_defined = (
        "it is declared inline and defined nowhere NVRTC sees ({}): C++ wants an "
        "inline function's definition where it is called, so no kernel can call it"
    )
    assert reasons == {
        "Holder<int>::doubled() const": "NVRTC rejects its shim: rejected.cuh(9): expression "
        'must have class type but it has type "const int"',
        # Inline and never defined: not device-callable (coverage.py), with NVRTC's words.
        "declared_only(int)": never_defined.format('rejected.cuh(15): extern inline function '
        '"declared_only" was referenced but not defined'),
        "Meter::operator+(const Meter &) const": never_defined.format('rejected.cuh(20): '
        'function "Meter::operator+" was referenced but not defined'),
    }  # fmt: skip
    # still_fine, also_fine, make_holder, counter_from
    assert kinds["function"]["bound"] == 4
    assert sorted(manifest["shims_left_out"]) == sorted(manifest["shims_rejected"])


def test_the_rest_of_the_module_links(rejected_module):
    from numba import types

    module, _ = rejected_module

    def kernel(out, ints):
        out[0] = module.still_fine(ints[0]) + module.also_fine(np.float32(1.5))
        out[1] = module.make_holder(ints[1]).plain() + module.counter_from(ints[0]).n

    assert link_kernel_to_cubin(kernel, (types.float64[::1], types.int32[::1]))


def test_a_kernel_calling_a_rejected_declaration_is_refused_with_nvrtcs_message(
    rejected_module,
):
    from numba import types

    module, _ = rejected_module

    def kernel(out, ints):
        out[0] = module.declared_only(ints[0])

    with pytest.raises(Exception, match="was referenced but not defined") as caught:
        link_kernel_to_cubin(kernel, (types.float64[::1], types.int32[::1]))
    assert "NVRTC rejected the shim" in str(caught.value)


@pytest.mark.gpu
def test_the_rest_of_the_module_computes_on_the_gpu(rejected_module):
    from numba import cuda

    module, _ = rejected_module

    @cuda.jit
    def kernel(out, ints):
        out[0] = module.still_fine(ints[0]) + module.also_fine(np.float32(1.5))
        out[1] = module.make_holder(ints[1]).plain() + module.counter_from(ints[0]).n

    out = cuda.to_device(np.zeros(2))
    kernel[1, 1](out, cuda.to_device(np.array([4, 7], dtype=np.int32)))
    np.testing.assert_array_equal(out.copy_to_host(), [8.0, 11.0])


def test_errors_revealed_only_after_others_are_left_out_need_no_round_limit():
    """Each round leaves out what NVRTC reports; a shim whose error NVRTC reports only once an
    earlier one is gone (here: one per round, as a fatal error ends each compile) is found in a
    later round, however many there are."""
    shims = [
        (f"nbi_shim_fatal{i}", f'extern "C" __device__ int nbi_shim_fatal{i}() {{\n'
         f'#include "missing_{i}.h"\nreturn 0; }}')
        for i in range(6)
    ] + [("nbi_shim_fine", 'extern "C" __device__ int nbi_shim_fine() { return 1; }')]  # fmt: skip
    compiled = compile_shims_to_ltoir("", shims, "rounds.cu", "sm_90")
    assert set(compiled.left_out) == {f"nbi_shim_fatal{i}" for i in range(6)}
    assert all("missing_" in message for message in compiled.errors.values())
    assert compiled.ltoir


def test_a_header_that_does_not_compile_alone_fails_quoting_nvrtcs_log():
    preamble = '#error "this header is for clang only"\n'
    shims = [("nbi_shim_fine", 'extern "C" __device__ int nbi_shim_fine() { return 1; }')]
    with pytest.raises(ShimCompileError) as caught:
        compile_shims_to_ltoir(preamble, shims, "broken.cu", "sm_90")
    assert "this header is for clang only" in str(caught.value)
    assert "#error directive" in caught.value.log and not caught.value.wants_default_device


def test_the_quoted_log_says_nothing_of_nvrtcs_precompiled_headers():
    """Pinning errors compiles with NVRTC's automatic precompiled headers. By default NVRTC keeps
    them in one directory per process and talks about them: which file it creates or uses, and
    warnings (#629-D...) for each file there made with other options or another beginning
    (another module's, another program's). The log quoted to the user holds NVRTC's messages
    about the code only."""
    from numbast.core.nvrtc import compile_unit, has_automatic_pch, unit_options

    if not has_automatic_pch():
        pytest.skip("this NVRTC has no precompiled headers")
    # Another program leaves a precompiled header made with other options where NVRTC's own.
    other = [*unit_options("sm_90", lto=True), "-pch", "-DANOTHER_PROGRAM"]
    include = "#include <cuda/std/cstdint>\n"
    compile_unit(f"{include}__device__ int f() {{ return 1; }}\n", "other.cu", other, "ltoir")
    preamble = f'{include}static_assert(sizeof(cuda::std::int32_t) == 8, "for clang only");\n'
    shims = [("nbi_shim_fine", 'extern "C" __device__ int nbi_shim_fine() { return 1; }')]
    with pytest.raises(ShimCompileError) as caught:
        compile_shims_to_ltoir(preamble, shims, "precompiled.cu", "sm_90")
    assert "for clang only" in str(caught.value)
    for said in (caught.value.log, str(caught.value)):
        assert "precompiled header" not in said and "629" not in said

"""Patterns real CUDA C++ libraries write, through bindings: template defaults written inside a
namespace (CUB's ``detail::warp_threads``), host-only helpers naming the host C++ standard
library beside the device API (CUB's ``operator<<(std::ostream &, ...)``), constants written as
object-like macros (math_constants.h's ``CUDART_PI_F``), the toolkit's sm_32 intrinsics (``__ldg``),
which clang's CUDA wrapper hides. Each kernel links to an sm_90 cubin here; the GPU tests check
its numbers."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest
from numba import cuda
from numba.cuda import types
from static_support import generate, static_config
from support import BINDING_DATA, bound_test_header, link_kernel_to_cubin


@pytest.fixture(scope="module")
def defaults_lib():
    return bound_test_header("namespace_defaults.cuh")


def defaults_kernel(lib):
    Reducer, scale = lib.Reducer[types.float32], lib.scale

    def kernel(out):
        r = Reducer(np.float32(2.0))  # Threads = detail::warp_threads, Lanes = detail::lanes
        out[0] = r.combine(np.float32(3.0))  # 2 * 3 + 32 + 4 / 8
        out[1] = scale(np.float32(1.5))  # N = detail::warp_threads: 48

    return kernel


def test_namespace_defaults_link_to_sm90_cubin(defaults_lib):
    cubin = link_kernel_to_cubin(defaults_kernel(defaults_lib), (types.float32[:],))
    assert cubin[:4] == b"\x7fELF"
    source = defaults_lib.shim_writer.source()
    assert "nd::Reducer<float, 32, 4>" in source and "nd::scale<float, 32>" in source


@pytest.mark.gpu
def test_namespace_defaults_numbers(defaults_lib):
    out = cuda.to_device(np.zeros(2, dtype=np.float32))
    cuda.jit(defaults_kernel(defaults_lib))[1, 1](out)
    np.testing.assert_allclose(out.copy_to_host(), [38.5, 48.0])


# -- host-only declarations ------------------------------------------------------------------


@pytest.fixture(scope="module")
def host_lib():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        bound = bound_test_header("host_library_types.cuh")
    bound.skip_messages = "\n".join(str(w.message) for w in caught)
    return bound


def host_kernel(lib):
    Counter, weight, GREEN = lib.Counter, lib.weight, lib.GREEN

    def kernel(out):
        c = Counter()
        c.bump(np.int32(3))
        out[0] = c.bump(np.int32(4))  # 7
        out[1] = weight(GREEN)  # 20

    return kernel


def test_host_library_declarations_are_left_out(host_lib):
    # The host_library_types.cuh parse saw them (test_ast_canopy_library_headers checks it).
    assert "length_of" not in host_lib.functions and "Named" not in host_lib.structs
    assert "std::basic_string" in host_lib.skip_messages
    assert "basic_ostream" not in host_lib.shim_writer.source()
    cubin = link_kernel_to_cubin(host_kernel(host_lib), (types.int32[:],))
    assert cubin[:4] == b"\x7fELF"


def test_host_library_declarations_count_as_host_only():
    from numbast.static.coverage import HOST_ONLY
    from numbast.static.renderer import render_bindings

    header = str(BINDING_DATA / "host_library_types.cuh")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rendered = render_bindings(static_config(header))
    outcomes = {(d.kind, d.what.split("(")[0]): d for d in rendered.decisions}
    assert outcomes[("function", "hl::length_of")].outcome == HOST_ONLY
    assert outcomes[("operator", "hl::operator<<")].outcome == HOST_ONLY
    assert outcomes[("struct", "hl::Named")].outcome == HOST_ONLY
    assert outcomes[("specialization", "std::basic_string<char>")].outcome == HOST_ONLY
    # Only the module's list of what it left out names the host library.
    code = [line for line in rendered.source.splitlines() if not line.lstrip().startswith("#")]
    assert not [line for line in code if "std::basic" in line]


@pytest.mark.gpu
def test_host_library_neighbours_numbers(host_lib):
    out = cuda.to_device(np.zeros(2, dtype=np.int32))
    cuda.jit(host_kernel(host_lib))[1, 1](out)
    np.testing.assert_array_equal(out.copy_to_host(), [7, 20])


# -- macro constants -------------------------------------------------------------------------


@pytest.fixture(scope="module")
def macros_module(tmp_path_factory):
    return generate("literal_macros.cuh", tmp_path_factory.mktemp("literal_macros"))


def macros_kernel(module):
    lm_scale, PI_F, TWO_PI, MASK = module.lm_scale, module.LM_PI_F, module.LM_TWO_PI, module.LM_MASK
    STEPS, ENABLED = module.LM_STEPS, module.LM_ENABLED

    def kernel(f32, f64, u32):
        f32[0] = lm_scale(f32[1]) - PI_F * f32[1]  # the same float as in C++: 0
        f32[1] = PI_F
        f64[0] = TWO_PI * STEPS
        u32[0] = MASK | u32[1]
        if ENABLED:
            u32[2] = 7

    return kernel


MACROS_SIGNATURE = (types.float32[:], types.float64[:], types.uint32[:])


def test_macro_constants_are_typed_module_constants(macros_module):
    m = macros_module
    assert type(m.LM_PI_F) is np.float32 and m.LM_PI_F == np.float32(3.141592654)
    assert type(m.LM_TWO_PI) is np.float64 and m.LM_TWO_PI == 6.2831853071795865
    assert type(m.LM_MASK) is np.uint32 and m.LM_MASK == 0x80000000
    assert type(m.LM_STEPS) is np.int32 and m.LM_STEPS == -3
    assert m.LM_ENABLED is True
    assert {"LM_PI_F", "LM_MASK"} <= set(m.__all__)
    cubin = link_kernel_to_cubin(macros_kernel(m), MACROS_SIGNATURE)
    assert cubin[:4] == b"\x7fELF"


def test_macro_constants_are_listed_in_coverage():
    from numbast.static.coverage import BOUND, summarize
    from numbast.static.renderer import render_bindings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rendered = render_bindings(static_config("literal_macros.cuh"))
    counts = summarize(rendered.decisions)["kinds"]["macro constant"]
    assert (counts["found"], counts[BOUND]) == (5, 5)


def test_math_constants_h_constants(tmp_path):
    """The toolkit's math_constants.h: its literal macros are constants; CUDART_INF_F (a call
    to __int_as_float) and CUDART_REMQUO_MASK_F (an expression) are not."""
    from ast_canopy.toolkit import cudart_include_dir

    module = generate(str(Path(cudart_include_dir()) / "math_constants.h"), tmp_path)
    assert type(module.CUDART_PI_F) is np.float32 and module.CUDART_PI_F == np.float32(np.pi)
    assert type(module.CUDART_PI) is np.float64 and module.CUDART_PI == np.pi
    assert type(module.CUDART_REMQUO_BITS_F) is np.uint32
    assert not hasattr(module, "CUDART_INF_F") and not hasattr(module, "CUDART_REMQUO_MASK_F")


@pytest.mark.gpu
def test_macro_constants_numbers(macros_module):
    f32 = cuda.to_device(np.array([0, 2.0], dtype=np.float32))
    f64 = cuda.to_device(np.zeros(1, dtype=np.float64))
    u32 = cuda.to_device(np.array([0, 5, 0], dtype=np.uint32))
    cuda.jit(macros_kernel(macros_module))[1, 1](f32, f64, u32)
    np.testing.assert_array_equal(f32.copy_to_host(), np.array([0, 3.141592654], np.float32))
    np.testing.assert_array_equal(f64.copy_to_host(), [6.2831853071795865 * -3])
    np.testing.assert_array_equal(u32.copy_to_host(), [0x80000005, 5, 7])


# -- intrinsics headers clang's CUDA wrapper hides -----------------------------------------


@pytest.fixture(scope="module")
def intrinsics_lib():
    from ast_canopy.toolkit import cudart_include_dir

    retained = str(Path(cudart_include_dir()) / "sm_32_intrinsics.h")
    return bound_test_header("uses_intrinsics.cuh", retain=[retained])


def intrinsics_kernel(lib):
    from numbast import element_pointer

    ldg, ldcg, twice_loaded = lib.__ldg, lib.__ldcg, lib.twice_loaded

    def kernel(f32, i32):
        f32[0] = ldg(element_pointer(f32, 1))  # __ldg(const float *)
        f32[2] = twice_loaded(element_pointer(f32, 1))  # the header's own use of __ldg
        i32[0] = ldg(element_pointer(i32, 1)) + ldcg(element_pointer(i32, 2))

    return kernel


def test_hidden_intrinsics_are_bound_and_link_to_sm90_cubin(intrinsics_lib):
    lib = intrinsics_lib
    assert {"__ldg", "__ldcg", "__funnelshift_l", "twice_loaded"} <= set(lib.functions)
    cubin = link_kernel_to_cubin(intrinsics_kernel(lib), (types.float32[:], types.int32[:]))
    assert cubin[:4] == b"\x7fELF"


@pytest.mark.gpu
def test_hidden_intrinsics_numbers(intrinsics_lib):
    f32 = cuda.to_device(np.array([0, 1.25, 0], dtype=np.float32))
    i32 = cuda.to_device(np.array([0, 5, 7], dtype=np.int32))
    cuda.jit(intrinsics_kernel(intrinsics_lib))[1, 1](f32, i32)
    np.testing.assert_array_equal(f32.copy_to_host(), np.array([1.25, 1.25, 2.5], np.float32))
    np.testing.assert_array_equal(i32.copy_to_host(), [12, 5, 7])

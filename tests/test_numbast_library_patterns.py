"""Patterns real CUDA C++ libraries write, through bindings: template defaults written inside a
namespace (CUB's ``detail::warp_threads``), host-only helpers naming the host C++ standard
library beside the device API (CUB's ``operator<<(std::ostream &, ...)``). Each kernel links to
an sm_90 cubin here; the GPU tests check its numbers."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from numba import cuda
from numba.cuda import types
from static_support import static_config
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

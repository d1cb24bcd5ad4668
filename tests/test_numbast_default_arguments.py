"""``bind_cxx_function`` (the dynamic API) binds the forms of a function that leave out its
defaulted trailing arguments, as an imported module's functions have: ``blend(a, b)``,
``blend(a, b, w)`` and ``blend(a, b, w, bias)`` are one name (tests/data/binding/
default_arguments.cuh)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from support import link_kernel_to_cubin

HEADER = Path(__file__).parent / "data" / "binding" / "default_arguments.cuh"


@pytest.fixture(scope="module")
def bound():
    from ast_canopy import parse_declarations_from_source
    from numbast import MemoryShimWriter, bind_cxx_function

    header = str(HEADER)
    decls = parse_declarations_from_source(header, [header], "sm_90")
    writer = MemoryShimWriter(f'#include "{header}"')
    return {f.name: bind_cxx_function(writer, f) for f in decls.functions}


def _kernel(bound):
    blend, clamp_to = bound["blend"], bound["clamp_to"]

    def kernel(out, x, n):
        out[0] = blend(x[0], x[1])  # weight 0.25, bias 1
        out[1] = blend(x[0], x[1], np.float32(0.5))  # bias 1
        out[2] = blend(x[0], x[1], np.float32(0.5), np.float32(0.0))
        n[1] = clamp_to(n[0])  # high 10
        n[2] = clamp_to(n[0], 3)

    return kernel


def test_calls_leaving_out_defaulted_arguments_link(bound):
    from numba import types

    signature = (types.float32[::1], types.float32[::1], types.int32[::1])
    assert link_kernel_to_cubin(_kernel(bound), signature)


def test_a_call_leaving_out_an_argument_without_default_is_refused(bound):
    from numba import types
    from numba.core.errors import TypingError

    blend = bound["blend"]

    def kernel(out, x):
        out[0] = blend(x[0])

    with pytest.raises(TypingError):
        link_kernel_to_cubin(kernel, (types.float32[::1], types.float32[::1]))


@pytest.mark.gpu
def test_the_defaults_apply_on_the_gpu(bound):
    from numba import cuda

    kernel = cuda.jit(_kernel(bound))
    out, n = cuda.to_device(np.zeros(3, np.float32)), cuda.to_device(np.int32([42, 0, 0]))
    kernel[1, 1](out, cuda.to_device(np.float32([2.0, 6.0])), n)
    np.testing.assert_array_equal(out.copy_to_host(), [2 + 1 + 1, 2 + 2 + 1, 2 + 2 + 0])
    np.testing.assert_array_equal(n.copy_to_host(), [42, 10, 3])

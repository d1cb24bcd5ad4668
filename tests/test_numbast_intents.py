"""Argument intents: out_return parameters are returned, pointer intents take pointers."""

from __future__ import annotations

import numpy as np
import pytest
from numba import cuda
from numba.cuda import types
from support import BINDING_DATA, link_kernel_to_cubin

INTENTS = {
    "split_sum": {"sum": "out_return", "diff": "out_return"},
    "divmod_ref": {2: {"intent": "out_return"}},
    "accumulate": {"acc": "inout_ptr"},
    "write_twice": {"out": "out_ptr"},
}


@pytest.fixture(scope="module")
def lib():
    from support import bound_test_header

    return bound_test_header("intents.cuh", arg_intents=INTENTS)


def make_kernel(lib):
    from numbast import element_pointer

    split_sum, divmod_ref = lib.split_sum, lib.divmod_ref
    accumulate, write_twice = lib.accumulate, lib.write_twice

    def kernel(f, i):
        s, d = split_sum(np.float32(5.0), np.float32(3.0))  # two hidden outputs -> tuple
        f[0], f[1] = s, d
        q, r = divmod_ref(np.int32(17), np.int32(5))  # C++ result, then the hidden output
        i[0], i[1] = q, r
        accumulate(element_pointer(f, 2), np.float32(1.5))  # in place through a pointer
        write_twice(element_pointer(f, 3), np.float32(4.0))

    return kernel


def test_intents_change_the_python_signature(lib):
    from numbast.runtime.overloads import DEFAULT_REGISTRIES  # noqa: F401  (bindings are registered)

    assert link_kernel_to_cubin(make_kernel(lib), (types.float32[:], types.int32[:]))


def test_unknown_parameter_in_intents_is_reported():
    import warnings

    from ast_canopy import parse_declarations_from_source
    from numbast import BindingSkippedWarning, MemoryShimWriter, bind_cxx_function

    path = str(BINDING_DATA / "intents.cuh")
    decls = parse_declarations_from_source(path, [path], "sm_90")
    accumulate = next(f for f in decls.functions if f.name == "accumulate")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = bind_cxx_function(
            MemoryShimWriter(f'#include "{path}"'),
            accumulate,
            arg_intent={"accumulate": {"nope": "out_ptr"}},
        )
    assert result is None
    assert any("no parameter named 'nope'" in str(w.message) for w in caught)
    assert all(issubclass(w.category, BindingSkippedWarning) for w in caught)


@pytest.mark.gpu
def test_numbers(lib):
    kernel = cuda.jit(make_kernel(lib))
    f = cuda.to_device(np.array([0, 0, 10.0, 0, 0], dtype=np.float32))
    i = cuda.to_device(np.zeros(2, dtype=np.int32))
    kernel[1, 1](f, i)
    np.testing.assert_array_equal(f.copy_to_host(), [8, 2, 11.5, 4, 8])
    np.testing.assert_array_equal(i.copy_to_host(), [3, 2])

"""The cubin link helper itself: it links good code and rejects unresolved symbols."""

from __future__ import annotations

import pytest
from support import link_kernel_to_cubin


def test_plain_kernel_links_to_sm90_cubin():
    from numba.cuda import types

    def kernel(out):
        out[0] = 42.0

    cubin = link_kernel_to_cubin(kernel, (types.float32[:],))
    assert cubin[:4] == b"\x7fELF"


def test_extern_call_resolved_by_extra_source_links():
    from numba import cuda
    from numba.cuda import types

    add_one = cuda.declare_device("nbi_test_add_one", "float32(float32)")

    def kernel(out):
        out[0] = add_one(out[0])

    shim = 'extern "C" __device__ int nbi_test_add_one(float* r, float x) { *r = x + 1; return 0; }'
    cubin = link_kernel_to_cubin(kernel, (types.float32[:],), extra_sources=[("shim.cu", shim)])
    assert cubin[:4] == b"\x7fELF"


def test_unresolved_extern_fails_to_link():
    from numba import cuda
    from numba.cuda import types

    missing = cuda.declare_device("nbi_test_missing_symbol", "float32(float32)")

    def kernel(out):
        out[0] = missing(out[0])

    with pytest.raises(Exception, match="nbi_test_missing_symbol|[Uu]ndefined|unresolved"):
        link_kernel_to_cubin(kernel, (types.float32[:],))

"""A cache=True kernel with a CUDA C++ link= file that includes a header (both next to this
script): numba-cuda alone refuses to cache it."""

import os

from kernel_cache_support import finish, prepare

prepare()

# Only link= files here, no bindings: switch the kernel cache on, as docs/kernel_cache.md says.
from numbast.runtime.kernel_cache import install  # noqa: E402

install()

import numpy as np  # noqa: E402
from numba import cuda  # noqa: E402
from numba.cuda import types  # noqa: E402

ext_scale = cuda.declare_device("ext_scale", "float64(float64)")


@cuda.jit(cache=True, link=[os.path.join(os.path.dirname(os.path.abspath(__file__)), "ext.cu")])
def kernel(arr):
    arr[0] = ext_scale(arr[0])


finish(kernel, (types.float64[:],), lambda: [np.array([1.5])])

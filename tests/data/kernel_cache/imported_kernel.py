"""A cache=True kernel calling an imported header module (run inside the test project)."""

from kernel_cache_support import finish, prepare

prepare()

import numpy as np  # noqa: E402
from numba import cuda  # noqa: E402
from numba.cuda import types  # noqa: E402

import cuda_headers.vec as vec  # noqa: E402


@cuda.jit(cache=True)
def kernel(out):
    a = vec.Vec2(1.0, 2.0)
    out[0] = vec.scaled_dot(a, a)


finish(kernel, (types.float32[:],), lambda: [np.zeros(1, np.float32)])

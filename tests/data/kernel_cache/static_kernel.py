"""A cache=True kernel calling a standalone static module whose Module Callbacks count how
often they run (hooks.py and function_bindings.py are written next to this script)."""

from kernel_cache_support import finish, prepare

prepare()

import function_bindings as fn  # noqa: E402
import hooks  # noqa: E402
import numpy as np  # noqa: E402
from numba import cuda  # noqa: E402
from numba.cuda import types  # noqa: E402


@cuda.jit(cache=True)
def kernel(out):
    out[0] = fn.scale(types.float32(1.5), types.float32(2.0))


finish(
    kernel,
    (types.float32[:],),
    lambda: [np.zeros(1, np.float32)],
    lambda: {"setups": hooks.setups, "teardowns": hooks.teardowns},
)

"""A cache=True kernel calling dynamic bindings of demo.cuh (copied next to this script)."""

import os

from kernel_cache_support import finish, prepare

prepare()

import numpy as np  # noqa: E402
from numba import cuda  # noqa: E402
from numba.cuda import types  # noqa: E402
from numba.cuda.datamodel.models import PrimitiveModel  # noqa: E402

from numbast import bind_header  # noqa: E402

demo = bind_header(
    os.path.join(os.path.dirname(os.path.abspath(__file__)), "demo.cuh"),
    parent_types={"__myfloat16": types.Number},
    data_models={"__myfloat16": PrimitiveModel},
)
myfloat16, hsqrt = demo.__myfloat16, demo.hsqrt


@cuda.jit(cache=True)
def kernel(arr):
    three = myfloat16(1.0) + myfloat16(2.0)
    arr[0] = types.float64(three)
    arr[1] = types.float64(hsqrt(three))


finish(kernel, (types.float64[:],), lambda: [np.zeros(2)])

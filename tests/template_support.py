"""The kernel the template tests run through every way of binding tests/data/templates/geo.cuh
(dynamic, a static module, the import system), and the numbers it must write."""

from __future__ import annotations

import numpy as np
from numba.cuda import types

GEO_SIGNATURE = (types.float64[:],)
GEO_EXPECTED = [9, 3, 18, 4.5, 9, 4.5, 3, 103, -7, 7, 6, 2, 7.5, 6, 1001, 2.5, 6]


def geo_kernel(geo):
    """A kernel using every template role of geo.cuh, from a module (or bound header) ``geo``."""
    Arr, Pair, Arr3 = geo.Arr, geo.Pair, geo.Arr3
    Arr3f, Arr2f, Arr1i = Arr[types.float32, 3], Arr[types.float32, 2], Arr[types.int32, 1]
    Pairf, Arr3d = Pair[types.float32], Arr3[types.float64]
    clamp, arr_sum, times3, widen, pick = geo.clamp, geo.arr_sum, geo.times[3], geo.widen, geo.pick

    def kernel(out):
        a = Arr3f(np.float32(1.5))
        b = a + a  # member operator
        out[0] = b.sum()  # 9
        out[1] = b.at(np.int32(2))  # 3
        b.scale(np.float32(2.0))  # non-const method: updates b
        out[2] = b.sum()  # 18
        out[3] = a.sum_as(U=np.float64)  # member template, U by name: 4.5
        out[4] = a.weighted(np.float64(2.0))  # member template, U deduced: 9
        out[5] = arr_sum(a)  # function template over the namespaced class template: 4.5
        p = Arr2f(np.float32(1.0), np.float32(2.0))  # the partial specialization Arr<T, 2>
        out[6] = p.x + p.y  # 3
        out[7] = p.sum()  # 103
        out[8] = Arr1i(np.int32(7)).sum()  # the explicit specialization: -7
        q = Pairf(np.float32(1.0), np.float32(4.0))  # a template with another as its field
        out[9] = q.total()  # 7
        out[10] = Arr3d(np.float64(2.0)).sum()  # through the alias template: 6
        out[11] = clamp(np.float32(5.0), np.float32(0.0), np.float32(2.0))  # deduced: 2
        out[12] = times3(np.float32(2.5))  # explicit K: 7.5
        out[13] = widen(np.int32(3))  # Acc defaults to double: 6
        out[14] = pick(np.int32(1))  # the plain overload: 1001
        out[15] = pick(np.float32(1.5))  # the template: 2.5
        c = Arr(np.float32(2.0), T=np.float32, N=3)  # template arguments by name in a kernel
        out[16] = c.sum()  # 6

    return kernel

"""Enumerators as template arguments, as CUB writes them (``BlockReduce<int, 128,
BLOCK_REDUCE_RAKING>``; issue 20 point 3), through ``import cuda_headers.X``: a class template
whose body reads its enum parameter, a partial specialization fixing an enumerator (an unscoped
one written unqualified inside its namespace, and a scoped one, ``Scale::one``), each with a
member the primary template lacks, an explicit specialization on an enumerator (which wins over
the partial one), an explicit instantiation, and a function template taking a scoped
enumerator. One import (tests/data/library/enum_arguments.cuh), one kernel linked to an sm_90
cubin, its numbers checked on the GPU."""

from __future__ import annotations

import importlib
import json
from pathlib import Path

import numpy as np
import pytest
from numba.cuda import types
from support import link_kernel_to_cubin

HEADER = Path(__file__).parent / "data" / "library" / "enum_arguments.cuh"
INTS = np.array([3, 9, 4, 1], np.int32)
FLOATS = np.array([2.5, 7.0], np.float32)


@pytest.fixture(scope="module")
def alg(tmp_path_factory):
    import numbast_import

    patch = pytest.MonkeyPatch()
    patch.setenv("NUMBAST_CACHE_DIR", str(tmp_path_factory.mktemp("enum_arguments")))
    patch.setenv("NUMBAST_IMPORT_ARCH", "sm_90")
    patch.setenv("NUMBAST_IMPORT_QUIET", "1")
    numbast_import.register("enum_arguments", HEADER)
    try:
        yield importlib.import_module("cuda_headers.enum_arguments")
    finally:
        numbast_import.unregister("enum_arguments")
        patch.undo()


def _kernel(alg):
    from numbast import element_pointer

    Sum = alg.Folder[types.int32, 4]  # METHOD_SUM by default
    Explicit = alg.Folder[types.int32, 4, alg.METHOD_COUNT]  # the explicit specialization
    Counting = alg.Folder[types.int32, 3, alg.METHOD_COUNT]  # the partial specialization
    Largest = alg.Folder[types.float32, 2, alg.METHOD_MAX]  # explicitly instantiated
    Ten, One = alg.Scaler[types.float32], alg.Scaler[types.float32, alg.Scale.one]
    scaled = alg.scaled[alg.Scale.ten]

    def kernel(ints, floats, out_ints, out_floats):
        p, q = element_pointer(ints, 0), element_pointer(floats, 0)
        out_ints[0] = Sum().fold(p)
        out_ints[1] = Explicit().fold(p)
        out_ints[2] = Counting().fold(p)
        out_ints[3] = Counting().items()  # a member of the partial specialization only
        out_ints[4] = One().factor()  # ... of the scoped enumerator's partial specialization
        out_floats[0] = Largest().fold(q)
        out_floats[1] = Ten().apply(floats[0])
        out_floats[2] = One().apply(floats[0])
        out_floats[3] = scaled(floats[1])

    return kernel


EXPECTED_INTS = [3 + 9 + 4 + 1, 400, 3, 3, 1]
EXPECTED_FLOATS = [7.0, 25.0, 2.5, 70.0]
SIGNATURE = (types.int32[::1], types.float32[::1], types.int32[::1], types.float32[::1])


def test_every_template_with_an_enumerator_argument_binds(alg):
    coverage = json.loads(Path(alg.__file__).with_name("manifest.json").read_text())["coverage"]
    callables = coverage["device_callables"]
    assert callables["bound"] == callables["found"], coverage
    assert {"METHOD_SUM", "METHOD_MAX", "METHOD_COUNT", "Scale"} <= set(dir(alg))


def test_a_kernel_selecting_specializations_by_enumerator_links(alg):
    assert link_kernel_to_cubin(_kernel(alg), SIGNATURE)


@pytest.mark.gpu
def test_the_specializations_chosen_compute_on_the_gpu(alg):
    from numba import cuda

    kernel = cuda.jit(_kernel(alg))
    out_ints = cuda.to_device(np.zeros(len(EXPECTED_INTS), np.int32))
    out_floats = cuda.to_device(np.zeros(len(EXPECTED_FLOATS), np.float32))
    kernel[1, 1](cuda.to_device(INTS), cuda.to_device(FLOATS), out_ints, out_floats)
    np.testing.assert_array_equal(out_ints.copy_to_host(), EXPECTED_INTS)
    np.testing.assert_array_equal(out_floats.copy_to_host(), EXPECTED_FLOATS)

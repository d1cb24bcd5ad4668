"""CUTLASS's numeric types through ``import cuda_headers.cutlass_numeric`` (issue 20), the
worked example of docs/libraries.md: ``half_t``, ``complex<float>``, ``Array<float, 4>``,
imported once (a module-scoped fixture) through a one-line wrapper header and a ``retain`` list
(the headers of the installed nvidia-cutlass). Each kernel links to an sm_90 cubin here; the GPU
tests check its numbers against NumPy. A file of its own (see test_library_examples.py)."""

from __future__ import annotations

import library_examples as ex
import numpy as np
import pytest
from library_example_tests import import_library, run, worked_example_links


@pytest.fixture(scope="module")
def cutlass(tmp_path_factory):
    yield from import_library(ex.CUTLASS_NUMERIC, tmp_path_factory)


@pytest.mark.parametrize("example", ex.WORKED[ex.CUTLASS_NUMERIC.name])
def test_cutlass_worked_example_links_to_sm90_cubin(example, cutlass):
    assert worked_example_links(ex.CUTLASS_NUMERIC, example, cutlass)


@pytest.mark.gpu
@pytest.mark.parametrize(
    "make_kernel, expected, size",
    [
        (ex.half_kernel, ex.half_expected, 3),
        (ex.cutlass_complex_kernel, ex.cutlass_complex_expected, 7),
        (ex.array_kernel, ex.array_expected, 4),
    ],
)
def test_cutlass_numbers(cutlass, make_kernel, expected, size):
    _, out = run(make_kernel(cutlass), 1, 1, ex.CUTLASS_INPUT, np.zeros(size, np.float32))
    np.testing.assert_allclose(out, expected(ex.CUTLASS_INPUT), rtol=1e-3)

"""Real libraries through ``import cuda_headers.X`` (issue 20): the worked examples of
docs/libraries.md, each library imported once (a module-scoped fixture) through a one-line
wrapper header and a ``retain`` list, as a user would. This file: libcu++
(``cuda::std::complex<float>`` arithmetic, ``popcount``, ``bit_ceil``, ``numeric_limits``) and
math_constants.h; cooperative groups and CUTLASS's numeric types have files of their own
(test_library_examples_cg.py, test_library_examples_cutlass.py: pytest-xdist's workers take
whole files, so the libraries build side by side). Each kernel links to an sm_90 cubin here; the
GPU tests check its numbers against NumPy. The headers are whichever the installed toolkit
ships: tests/library_examples.py looks them up.
"""

from __future__ import annotations

import library_examples as ex
import numpy as np
import pytest
from library_example_tests import coverage_kinds, import_library, run, worked_example_links


@pytest.fixture(scope="module")
def libcudacxx(tmp_path_factory):
    yield from import_library(ex.LIBCUDACXX, tmp_path_factory)


@pytest.fixture(scope="module")
def constants(tmp_path_factory):
    yield from import_library(ex.MATH_CONSTANTS, tmp_path_factory)


@pytest.mark.parametrize("example", ex.WORKED[ex.LIBCUDACXX.name])
def test_libcudacxx_worked_example_links_to_sm90_cubin(example, libcudacxx):
    assert worked_example_links(ex.LIBCUDACXX, example, libcudacxx)


@pytest.mark.parametrize("example", ex.WORKED[ex.MATH_CONSTANTS.name])
def test_math_constants_worked_example_links_to_sm90_cubin(example, constants):
    assert worked_example_links(ex.MATH_CONSTANTS, example, constants)


def test_math_constants_are_typed_constants_and_in_coverage(constants):
    assert isinstance(constants.CUDART_PI_F, np.float32)
    assert isinstance(constants.CUDART_PI, np.float64)
    assert constants.CUDART_PI_F == np.float32(3.141592654)
    assert not hasattr(constants, "CUDART_INF_F")  # __int_as_float(...): a call, no constant
    assert coverage_kinds(constants)["macro constant"]["bound"] >= 80


def test_host_only_declarations_are_never_bound(libcudacxx):
    """libcu++'s complex declares stream operators on the host's std::basic_ostream (and a
    conversion to the host's std::complex): they are counted host-only, not bound."""
    kinds = coverage_kinds(libcudacxx)
    host_only = [item for counts in kinds.values() for item in counts["not_bound"]
                 if item["outcome"] == "host_only"]  # fmt: skip
    assert {"cuda::std::operator<<", "cuda::std::operator>>"} <= {i["what"] for i in host_only}


# -- GPU: the numbers --------------------------------------------------------------------------


@pytest.mark.gpu
def test_complex_numbers(libcudacxx):
    _, out = run(ex.complex_kernel(libcudacxx), 1, 1, ex.COMPLEX_INPUT, np.zeros(9, np.float32))
    np.testing.assert_allclose(out, ex.complex_expected(ex.COMPLEX_INPUT), rtol=1e-6)


@pytest.mark.gpu
def test_bit_numbers(libcudacxx):
    values = ex.BIT_INPUT
    counts, ceilings = ex.bit_expected(values)
    _, got_counts, got_ceilings = run(ex.bit_kernel(libcudacxx), 1, 32, values,
                                      np.zeros_like(counts), np.zeros_like(ceilings))  # fmt: skip
    np.testing.assert_array_equal(got_counts, counts)
    np.testing.assert_array_equal(got_ceilings, ceilings)


@pytest.mark.gpu
def test_limits_numbers(libcudacxx):
    floats, ints = ex.limits_expected()
    got_floats, got_ints = run(ex.limits_kernel(libcudacxx), 1, 1, np.zeros_like(floats),
                               np.zeros_like(ints))  # fmt: skip
    np.testing.assert_array_equal(got_floats, floats)
    np.testing.assert_array_equal(got_ints, ints)


@pytest.mark.gpu
def test_math_constants_numbers(constants):
    areas, doubles = ex.constants_expected(ex.CONSTANTS_INPUT)
    _, got_areas, got_doubles = run(ex.constants_kernel(constants), 1, 32, ex.CONSTANTS_INPUT,
                                    np.zeros_like(areas), np.zeros(2, np.float64))  # fmt: skip
    np.testing.assert_array_equal(got_areas, areas)
    np.testing.assert_array_equal(got_doubles, doubles)

"""Real libraries through ``import cuda_headers.X`` (issue 20): the worked examples of
docs/libraries.md, each library imported once (a module-scoped fixture) through a one-line
wrapper header and a ``retain`` list, as a user would: libcu++ (``cuda::std::complex<float>``
arithmetic, ``popcount``, ``bit_ceil``, ``numeric_limits``), cooperative groups
(``this_thread_block().sync()``, a tiled-partition reduction), CUTLASS's numeric types
(``half_t``, ``complex<float>``, ``Array<float, 4>``) and math_constants.h. Each kernel links to
an sm_90 cubin here; the GPU tests check its numbers against NumPy. The headers are whichever
the installed toolkit (and nvidia-cutlass) ship: tests/library_examples.py looks them up.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import library_examples as ex
import numpy as np
import pytest
from numba import cuda
from support import link_kernel_to_cubin
from wrapper_imports import imported_header


def _import(library, tmp_path_factory):
    try:
        header, options = library.mapping(tmp_path_factory.mktemp(library.name))
    except LookupError as exc:
        pytest.skip(str(exc))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # declarations left out are listed in coverage
        with imported_header(library.name, header, header.parent, **options) as module:
            yield module


@pytest.fixture(scope="module")
def libcudacxx(tmp_path_factory):
    yield from _import(ex.LIBCUDACXX, tmp_path_factory)


@pytest.fixture(scope="module")
def cg(tmp_path_factory):
    yield from _import(ex.COOPERATIVE_GROUPS, tmp_path_factory)


@pytest.fixture(scope="module")
def cutlass(tmp_path_factory):
    yield from _import(ex.CUTLASS_NUMERIC, tmp_path_factory)


@pytest.fixture(scope="module")
def constants(tmp_path_factory):
    yield from _import(ex.MATH_CONSTANTS, tmp_path_factory)


def coverage_kinds(module) -> dict:
    """The coverage the module's cache entry records (manifest.json beside its bindings)."""
    manifest = Path(module.__file__).with_name("manifest.json")
    return json.loads(manifest.read_text())["coverage"]["kinds"]


FIXTURES = {
    ex.LIBCUDACXX.name: "libcudacxx",
    ex.COOPERATIVE_GROUPS.name: "cg",
    ex.CUTLASS_NUMERIC.name: "cutlass",
    ex.MATH_CONSTANTS.name: "constants",
}
EXAMPLES = [(library, example) for library, kernels in ex.WORKED.items() for example in kernels]


@pytest.mark.parametrize("library, example", EXAMPLES)
def test_worked_example_links_to_sm90_cubin(library, example, request):
    make_kernel, signature = ex.WORKED[library][example]
    module = request.getfixturevalue(FIXTURES[library])
    assert link_kernel_to_cubin(make_kernel(module), signature)[:4] == b"\x7fELF"


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


def test_group_function_templates_count_as_bound_with_a_group_instance(cg):
    """sync, thread_rank and group_size take any group (``const TyGroup &``): no int instance
    compiles, one of the module's groups does, and coverage reports it."""
    templates = coverage_kinds(cg)["function template"]
    for name in ("sync", "thread_rank", "group_size", "reduce"):
        (instance,) = [v for k, v in templates["instances"].items() if k.endswith(f"::{name}")]
        assert "_group" in instance or "thread_block" in instance, instance


# -- GPU: the numbers --------------------------------------------------------------------------


def _run(kernel, blocks, threads, *arrays):
    device = [cuda.to_device(a) for a in arrays]
    cuda.jit(kernel)[blocks, threads](*device)
    return [d.copy_to_host() for d in device]


@pytest.mark.gpu
def test_complex_numbers(libcudacxx):
    _, out = _run(ex.complex_kernel(libcudacxx), 1, 1, ex.COMPLEX_INPUT, np.zeros(9, np.float32))
    np.testing.assert_allclose(out, ex.complex_expected(ex.COMPLEX_INPUT), rtol=1e-6)


@pytest.mark.gpu
def test_bit_numbers(libcudacxx):
    values = ex.BIT_INPUT
    counts, ceilings = ex.bit_expected(values)
    _, got_counts, got_ceilings = _run(ex.bit_kernel(libcudacxx), 1, 32, values,
                                       np.zeros_like(counts), np.zeros_like(ceilings))  # fmt: skip
    np.testing.assert_array_equal(got_counts, counts)
    np.testing.assert_array_equal(got_ceilings, ceilings)


@pytest.mark.gpu
def test_limits_numbers(libcudacxx):
    floats, ints = ex.limits_expected()
    got_floats, got_ints = _run(ex.limits_kernel(libcudacxx), 1, 1, np.zeros_like(floats),
                                np.zeros_like(ints))  # fmt: skip
    np.testing.assert_array_equal(got_floats, floats)
    np.testing.assert_array_equal(got_ints, ints)


@pytest.mark.gpu
def test_block_sync_numbers(cg):
    values = np.arange(4 * ex.CG_THREADS, dtype=np.float32)
    _, out = _run(ex.block_sync_kernel(cg), 4, ex.CG_THREADS, values, np.zeros_like(values))
    np.testing.assert_array_equal(out, ex.block_sync_expected(values))


@pytest.mark.gpu
def test_group_functions_numbers(cg):
    values = np.arange(4 * ex.CG_THREADS, dtype=np.float32) * 0.5
    _, out = _run(ex.group_functions_kernel(cg), 4, ex.CG_THREADS, values, np.zeros_like(values))
    np.testing.assert_array_equal(out, ex.block_sync_expected(values))


@pytest.mark.gpu
def test_tile_reduce_numbers(cg):
    values = np.random.default_rng(20).integers(-100, 100, 4 * ex.CG_THREADS, dtype=np.int32)
    _, sums = _run(ex.tile_reduce_kernel(cg), 4, ex.CG_THREADS, values,
                   np.zeros(values.size // 32, np.int32))  # fmt: skip
    np.testing.assert_array_equal(sums, ex.tile_reduce_expected(values))


@pytest.mark.gpu
@pytest.mark.parametrize(
    "make_kernel, expected, size",
    [
        (ex.half_kernel, ex.half_expected, 3),
        (ex.cutlass_complex_kernel, ex.cutlass_complex_expected, 4),
        (ex.array_kernel, ex.array_expected, 2),
    ],
)
def test_cutlass_numbers(cutlass, make_kernel, expected, size):
    _, out = _run(make_kernel(cutlass), 1, 1, ex.CUTLASS_INPUT, np.zeros(size, np.float32))
    np.testing.assert_allclose(out, expected(ex.CUTLASS_INPUT), rtol=1e-3)


@pytest.mark.gpu
def test_math_constants_numbers(constants):
    areas, doubles = ex.constants_expected(ex.CONSTANTS_INPUT)
    _, got_areas, got_doubles = _run(ex.constants_kernel(constants), 1, 32, ex.CONSTANTS_INPUT,
                                     np.zeros_like(areas), np.zeros(2, np.float64))  # fmt: skip
    np.testing.assert_array_equal(got_areas, areas)
    np.testing.assert_array_equal(got_doubles, doubles)

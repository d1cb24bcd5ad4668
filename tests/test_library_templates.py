"""Templates as libraries write them, one pattern per header of tests/data/library: enum and
NullType-style defaults and bool (value_defaults.cuh), TempStorage in shared memory
(temp_storage.cuh), reference and array-reference outputs of members (out_params.cuh), and
function objects (functors.cuh). Each kernel links to an sm_90 cubin; the GPU tests check its
numbers."""

from __future__ import annotations

import shutil

import numpy as np
import pytest
from import_support import run_python
from library_support import (
    DEFAULTED_EXPECTED,
    FUNCTOR_EXPECTED,
    FUNCTOR_VALUES,
    LIBRARY,
    OUT_EXPECTED,
    OUT_SOURCE,
    TEMP_THREADS,
    VALUES_EXPECTED,
    bound_library,
    defaulted_kernel,
    functors_kernel,
    out_params_kernel,
    temp_storage_expected,
    temp_storage_kernel,
    values_kernel,
)
from numba import cuda
from numba.core.errors import TypingError as NumbaTypingError
from numba.cuda import types
from numba.cuda.core.errors import TypingError
from support import link_kernel_to_cubin

F32 = types.float32[:]


def linked(kernel, signature) -> bool:
    return link_kernel_to_cubin(kernel, signature)[:4] == b"\x7fELF"


# -- enum-valued and NullType-style defaults, bool ---------------------------------------------


def test_enum_and_unbound_type_defaults_and_bool_link():
    lib = bound_library("value_defaults.cuh")
    assert linked(values_kernel(lib), (F32,))
    Tagged = lib.Tagged
    # The defaults (FAST, vd::Nothing nobody binds) and the same arguments given name one
    # instance; an enum argument is spelled as C++ takes it.
    assert Tagged[types.float32] is Tagged[types.float32, lib.FAST, "vd::Nothing"]
    assert "static_cast<::vd::Speed>(3)" in Tagged[types.float32]._cxx_name_
    assert "::vd::Nothing" in Tagged[types.float32]._cxx_name_


def test_a_type_argument_that_is_no_type_is_refused_by_the_compiler():
    lib = bound_library("value_defaults.cuh")
    with pytest.raises(TypeError, match="vd::Nowhere"):
        lib.Tagged[types.float32, lib.FAST, "vd::Nowhere"]


@pytest.mark.gpu
def test_enum_and_unbound_type_defaults_and_bool_numbers():
    out = cuda.to_device(np.zeros(len(VALUES_EXPECTED), dtype=np.float32))
    cuda.jit(values_kernel(bound_library("value_defaults.cuh")))[1, 1](out)
    np.testing.assert_allclose(out.copy_to_host(), VALUES_EXPECTED)


# -- TempStorage -------------------------------------------------------------------------------


def test_temp_storage_member_types_link_in_shared_memory():
    lib = bound_library("temp_storage.cuh")
    Total = lib.BlockTotal[types.float32, TEMP_THREADS]
    storage = Total.TempStorage  # a nested record: opaque storage of its C++ size
    assert (storage.sizeof_, storage.alignof_) == (4 * TEMP_THREADS, 4)
    assert "TempStorage" in dir(Total)
    ring = lib.RingNeighbor[types.int32].TempStorage  # an alias of a private record
    assert (ring.sizeof_, ring.alignof_) == (4 * 64 + 4, 4)
    with pytest.raises(AttributeError, match="no attribute 'Slots'"):
        Total.Slots  # noqa: B018 (not a member type)
    assert linked(temp_storage_kernel(lib), (F32, F32))


@pytest.mark.gpu
def test_temp_storage_numbers():
    values = np.arange(1, TEMP_THREADS + 1, dtype=np.float32)
    out = cuda.to_device(np.zeros(2 * TEMP_THREADS, dtype=np.float32))
    kernel = cuda.jit(temp_storage_kernel(bound_library("temp_storage.cuh")))
    kernel[1, TEMP_THREADS](cuda.to_device(values), out)
    np.testing.assert_allclose(out.copy_to_host(), temp_storage_expected(values))


# -- reference and array-reference outputs -----------------------------------------------------


def test_member_outputs_and_array_references_link():
    lib = bound_library("out_params.cuh")
    assert linked(out_params_kernel(lib), (F32, F32))


def test_an_output_reference_is_never_passed_a_copy():
    """``items.Next(x, y)`` would have compiled and written nothing: the output is returned,
    so passing it is a typing error."""
    Items = bound_library("out_params.cuh").Items[types.float32, 4]

    def kernel(out):
        y = np.float32(0.0)
        Items().Next(np.float32(1.0), y)
        out[0] = y

    with pytest.raises((TypingError, NumbaTypingError), match="Next"):
        link_kernel_to_cubin(kernel, (F32,))


@pytest.mark.gpu
def test_member_outputs_and_array_references_numbers():
    out = cuda.to_device(np.zeros(len(OUT_EXPECTED), dtype=np.float32))
    kernel = cuda.jit(out_params_kernel(bound_library("out_params.cuh")))
    kernel[1, 1](cuda.to_device(OUT_SOURCE), out)
    np.testing.assert_allclose(out.copy_to_host(), OUT_EXPECTED)


# -- function objects --------------------------------------------------------------------------


def test_functors_and_member_operator_templates_link():
    assert linked(functors_kernel(bound_library("functors.cuh")), (F32, F32))


@pytest.mark.gpu
def test_functors_and_member_operator_templates_numbers():
    out = cuda.to_device(np.zeros(len(FUNCTOR_EXPECTED), dtype=np.float32))
    kernel = cuda.jit(functors_kernel(bound_library("functors.cuh")))
    kernel[1, 1](cuda.to_device(FUNCTOR_VALUES), out)
    np.testing.assert_allclose(out.copy_to_host(), FUNCTOR_EXPECTED)


# -- constructors C++ supplies ---------------------------------------------------------------------


def test_instances_with_defaulted_or_no_constructors_are_kernel_globals():
    assert linked(defaulted_kernel(bound_library("defaulted.cuh")), (F32,))


def test_an_instance_without_a_device_constructor_says_why():
    Sealed = bound_library("defaulted.cuh").Sealed[types.float32]

    def kernel(out):
        out[0] = Sealed().get()

    with pytest.raises((TypingError, NumbaTypingError), match="no constructor that device code"):
        link_kernel_to_cubin(kernel, (F32,))


@pytest.mark.gpu
def test_instances_with_defaulted_or_no_constructors_numbers():
    out = cuda.to_device(np.zeros(len(DEFAULTED_EXPECTED), dtype=np.float32))
    cuda.jit(defaulted_kernel(bound_library("defaulted.cuh")))[1, 1](out)
    np.testing.assert_allclose(out.copy_to_host(), DEFAULTED_EXPECTED)


# -- the same rows through the import system: intents in the import config -----------------------

OUT_PARAMS_PROJECT = """\
[tool.numbast-import]
arch = "sm_90"

[tool.numbast-import.headers.out_params]
header = "out_params.cuh"
function-argument-intents.Items.Accumulate.total = "inout_ptr"
"""

LINK_OUT_PARAMS = """
import cuda_headers.out_params as lib
from numba.cuda import types
from library_support import out_params_kernel
from support import link_kernel_to_cubin
cubin = link_kernel_to_cubin(out_params_kernel(lib), (types.float32[:], types.float32[:]))
print("linked", len(cubin))
"""


def _out_params_project(tmp_path):
    project = tmp_path / "proj"
    project.mkdir()
    shutil.copy(LIBRARY / "out_params.cuh", project)
    (project / "pyproject.toml").write_text(OUT_PARAMS_PROJECT)
    return project


def test_method_intents_in_the_import_config_nested_form(tmp_path):
    """``function-argument-intents.Items.Accumulate.total`` (NVIDIA's nested form for a
    class template's method) reaches the rows of an imported module."""
    project = _out_params_project(tmp_path)
    result = run_python(LINK_OUT_PARAMS, project, tmp_path / "cache", NUMBAST_IMPORT_QUIET="1")
    assert result.returncode == 0, result.stderr
    assert "linked" in result.stdout
    bindings = next((tmp_path / "cache").glob("*/*/bindings.py")).read_text()
    assert '"inout_ptr"' in bindings and '"out_return"' in bindings


@pytest.mark.gpu
def test_method_intents_in_the_import_config_numbers(tmp_path):
    project = _out_params_project(tmp_path)
    run = LINK_OUT_PARAMS.replace(
        'print("linked", len(cubin))',
        "import numpy as np\nfrom numba import cuda\n"
        "from library_support import OUT_EXPECTED, OUT_SOURCE\n"
        "out = cuda.to_device(np.zeros(len(OUT_EXPECTED), dtype=np.float32))\n"
        "cuda.jit(out_params_kernel(lib))[1, 1](cuda.to_device(OUT_SOURCE), out)\n"
        "np.testing.assert_allclose(out.copy_to_host(), OUT_EXPECTED)\nprint('numbers ok')",
    )
    result = run_python(run, project, tmp_path / "cache", NUMBAST_IMPORT_QUIET="1")
    assert result.returncode == 0, result.stderr
    assert "numbers ok" in result.stdout

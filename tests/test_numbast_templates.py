"""Templates: function templates with deduction (T, const T &, T *, template-ids), defaults,
explicit arguments by subscription, operator templates; class templates instantiated on
request, with the header's explicit specialization picked when it matches."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from numba import cuda
from numba.cuda import types
from support import bound_test_header, link_kernel_to_cubin


@pytest.fixture(scope="module")
def lib():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        bound = bound_test_header("templates.cuh")
    bound.skip_messages = [str(w.message) for w in caught]
    return bound


def function_kernel(lib):
    from numbast import element_pointer

    tmax, add_ref, store_twice, sum3 = lib.tmax, lib.add_ref, lib.store_twice, lib.sum3
    scale3, times_n, square = lib.scale_by[3], lib.times_n, lib.square
    times_5, mixed_add, byte_size = lib.times_n[types.float64, 5], lib.mixed_add, lib.byte_size
    tmax_double = lib.tmax[types.float64]

    def kernel(f32, f64, i32):
        f32[0] = tmax(f32[1], f32[2])  # T from two floats
        i32[0] = tmax(i32[1], i32[2])  # ... and from two ints: a second instantiation
        f32[3] = add_ref(f32[1], f32[2])  # T through const T &
        store_twice(element_pointer(f32, 4), f32[1])  # T through T *
        f64[0] = sum3(f32[1], f32[2], f32[1])  # Acc defaults to double
        f32[5] = scale3(f32[1])  # N given explicitly, T deduced
        f32[6] = times_n(f32[2])  # N defaults to 2
        f64[1] = times_5(f64[2])  # both given explicitly
        f64[3] = square(f64[2])  # a template in a namespace
        f64[4] = mixed_add(i32[1], f64[2])  # decltype(int + double) is double
        i32[3] = byte_size(f64[2])  # Bytes = sizeof(T), evaluated by clang
        f64[5] = tmax_double(f32[1], f32[2])  # T given: the floats convert, as in C++

    return kernel


FUNCTION_SIGNATURE = (types.float32[:], types.float64[:], types.int32[:])


def class_kernel(lib):
    Vec3f, Vec2f, Acc = lib.Vec[types.float32, 3], lib.Vec[types.float32, 2], lib.Accumulator
    Accf = Acc[types.float32]
    vec_sum, first_of, Vec4d = lib.vec_sum, lib.first_of, lib.Vec[types.float64, 4]

    def kernel(out):
        a = Vec3f(np.float32(1.5))  # explicit constructor
        b = Vec3f()  # default constructor
        c = a + a  # member operator
        out[0] = c.sum()  # const method
        out[1] = c.get(np.int32(1))
        out[2] = c.size()
        out[3] = c.data[2] + b.data[0]  # the array field, T data[N]
        out[4] = vec_sum(a.scaled(np.float32(2.0)))  # deduction through const Vec<T, N> &
        out[5] = (a * np.float32(4.0)).sum()  # a free operator template
        e = Vec2f(np.float32(1.0), np.float32(2.0))  # the header's specialization
        f = e + e
        out[6] = f.x + f.y
        out[7] = f.size()  # -2 in the specialization
        out[8] = vec_sum(f)
        acc = Accf()
        acc.add(np.float32(1.0))  # non-const method: updates acc in place
        acc.add(np.float32(2.0))
        out[9] = acc.mean()  # Acc defaults to double
        out[10] = first_of(Vec4d(2.5))  # a plain function taking Vec<double, 4>

    return kernel


def test_bound_names(lib):
    expected = {"tmax", "add_ref", "store_twice", "sum3", "scale_by", "times_n", "square"}
    assert expected <= set(lib.function_templates)
    assert {"Vec", "Accumulator"} <= set(lib.class_templates)
    assert "first_of" in lib.functions  # Vec<double, 4> was instantiated to bind it
    assert not [m for m in lib.skip_messages if "template" in m], lib.skip_messages


def test_function_templates_link_to_sm90_cubin(lib):
    cubin = link_kernel_to_cubin(function_kernel(lib), FUNCTION_SIGNATURE)
    assert cubin[:4] == b"\x7fELF"
    source = lib.shim_writer.source()
    for call in (
        "::tmax<float>(",
        "::tmax<int>(",
        "::sum3<float, double>(",
        "::scale_by<3, float>(",
    ):
        assert call in source
    assert "::times_n<double, 5>(" in source and "::tmpl::square<double>(" in source
    assert "::tmax<double>(" in source


def test_class_templates_link_to_sm90_cubin(lib):
    assert link_kernel_to_cubin(class_kernel(lib), (types.float64[:],))[:4] == b"\x7fELF"


def test_instantiations_are_cached_and_accept_numpy_types(lib):
    assert lib.Vec[types.float32, 3] is lib.Vec[np.float32, 3]
    assert lib.scale_by[3] is lib.scale_by[3]
    assert lib.Accumulator[types.float32] is lib.Accumulator[types.float32, types.float64]


def test_an_instance_is_no_template_but_knows_its_own(lib):
    """An instance stub says which template made it (pickling subscripts that again) under a
    name of its own: the templates' mark ``_numbast_template_`` (True) stays theirs, so an
    instance is never taken for a template to subscript, and unknown names raise."""
    instance = lib.Vec[types.float32, 3]
    assert lib.Vec._numbast_template_ is True
    assert getattr(instance, "_numbast_template_", None) is None
    assert instance._numbast_instance_of_ is lib.Vec
    with pytest.raises(AttributeError, match="no attribute"):
        _ = instance.no_such_member_type


def test_header_specialization_is_selected(lib):
    from numba.cuda.extending import as_numba_type

    spec = as_numba_type(lib.Vec[types.float32, 2])
    assert spec.cxx_qual_name == "Vec<float, 2>"
    assert spec.template_arguments[1].value == 2
    assert "Vec<float, 2>" in lib.Vec.instances
    assert as_numba_type(lib.Vec[types.float32, 3]).sizeof_ == 12


def test_host_side_errors(lib):
    with pytest.raises(TypeError, match="class template"):
        lib.Vec()
    with pytest.raises(TypeError, match="takes 2 template argument"):
        lib.Vec[types.float32, 3, 4]
    with pytest.raises(TypeError, match="not a type"):
        lib.Vec[3, 3]
    with pytest.raises(TypeError, match="neither deduced nor defaulted"):
        lib.Vec[types.float32]
    with pytest.raises(TypeError, match="inside a @cuda.jit kernel"):
        lib.tmax(1.0, 2.0)


def test_clang_errors_name_the_instantiation(lib):
    from numbast.runtime.templates.probe import TemplateInstantiationError

    with pytest.raises(TemplateInstantiationError, match=r"Vec<float, -1>"):
        lib.Vec[types.float32, -1]


def test_conflicting_deduction_is_a_typing_error(lib):
    tmax = lib.tmax

    def kernel(f32, i32):
        f32[0] = tmax(f32[1], i32[0])

    with pytest.raises(Exception, match="deduced as both float32 and int32"):
        link_kernel_to_cubin(kernel, (types.float32[:], types.int32[:]))


def test_non_deducible_parameter_asks_for_explicit_arguments(lib):
    scale_by = lib.scale_by

    def kernel(f32):
        f32[0] = scale_by(f32[1])

    with pytest.raises(Exception, match=r"neither deduced nor defaulted; give it explicitly"):
        link_kernel_to_cubin(kernel, (types.float32[:],))


@pytest.mark.gpu
def test_function_template_numbers(lib):
    kernel = cuda.jit(function_kernel(lib))
    f32 = cuda.to_device(np.array([0, 1.5, 2.5, 0, 0, 0, 0], dtype=np.float32))
    f64 = cuda.to_device(np.array([0, 0, 3.0, 0, 0, 0], dtype=np.float64))
    i32 = cuda.to_device(np.array([0, 7, -2, 0], dtype=np.int32))
    kernel[1, 1](f32, f64, i32)
    np.testing.assert_allclose(f32.copy_to_host(), [2.5, 1.5, 2.5, 4.0, 3.0, 4.5, 5.0])
    np.testing.assert_allclose(f64.copy_to_host(), [5.5, 15.0, 3.0, 9.0, 10.0, 2.5])
    np.testing.assert_array_equal(i32.copy_to_host(), [7, 7, -2, 8])


@pytest.mark.gpu
def test_class_template_numbers(lib):
    kernel = cuda.jit(class_kernel(lib))
    out = cuda.to_device(np.zeros(11, dtype=np.float64))
    kernel[1, 1](out)
    np.testing.assert_allclose(out.copy_to_host(), [9, 3, 3, 3, 9, 18, 6, -2, 6, 1.5, 2.5])

"""Structs: constructors of every kind, implicit conversions, conversion operators as casts,
public fields, const methods, layout of an over-aligned opaque struct."""

from __future__ import annotations

import numpy as np
import pytest
from numba import cuda
from numba.cuda import types
from support import bound_test_header, link_kernel_to_cubin


@pytest.fixture(scope="module")
def lib():
    # Number-like parent so Numba's number casts (types.float32(x)) apply, as in Numbast.
    return bound_test_header("structs.cuh", parent_types={"Counter": types.Number})


def make_kernel(lib):
    from numba.cuda.extending import as_numba_type

    Counter, Opaque16, counter_value = lib.Counter, lib.Opaque16, lib.counter_value
    counter_type = as_numba_type(Counter)

    def kernel(out):
        empty = Counter()  # default constructor
        full = Counter(np.int32(3), np.float32(2.5))  # two-argument constructor
        one = Counter(np.int32(4))  # converting constructor, called explicitly
        wide = Counter(np.float64(6.0))  # explicit constructor, called explicitly
        out[0] = empty.count
        out[1] = empty.weight
        out[2] = full.count
        out[3] = full.weight
        out[4] = one.count
        out[5] = wide.weight
        out[6] = full.scaled(np.int32(10))  # const method
        out[7] = full.total()
        out[8] = full.get_secret()  # private field read through a method
        out[9] = float(full)  # conversion operator float() through Python's float()
        out[10] = types.float32(full)  # ... and through a Numba cast
        out[11] = counter_value(np.int32(9))  # implicit converting constructor int -> Counter
        out[12] = Opaque16(np.uint32(5)).sum()  # over-aligned opaque type by value
        out[13] = 1.0 if bool(full) else 0.0  # explicit operator bool through bool()
        mutable = Counter(np.int32(1), np.float32(1.0))
        mutable.bump(np.int32(5))  # non-const method: updates `mutable` in place, as in C++
        out[14] = mutable.count
        out[15] = mutable.take(np.int32(2))  # returns 40 and leaves count == 4
        out[16] = mutable.count
        out[17] = full.count  # untouched
        counters = cuda.local.array(2, counter_type)
        counters[0] = Counter(np.int32(1), np.float32(1.0))
        counters[0].bump(np.int32(3))  # written back into the array element
        out[18] = counters[0].count
        made = Counter.make(np.int32(5))  # static methods, called on the type
        out[19] = made.count * made.weight
        out[20] = Counter.twice(np.int32(21))
        out[21] = Counter.twice(np.float32(2.0))

    return kernel


def test_public_fields_only(lib):
    from numba.cuda.extending import as_numba_type

    numba_type = as_numba_type(lib.Counter)
    assert numba_type.cxx_qual_name == "Counter"


def test_static_methods_are_attributes_of_the_type(lib):
    with pytest.raises(TypeError, match="Counter::make"):
        lib.Counter.make(3)


def test_stub_cannot_be_instantiated_on_the_host(lib):
    with pytest.raises(TypeError, match="inside a @cuda.jit kernel"):
        lib.Counter()


def test_kernel_links_to_sm90_cubin(lib):
    assert link_kernel_to_cubin(make_kernel(lib), (types.float64[:],))[:4] == b"\x7fELF"


def test_private_field_is_not_an_attribute(lib):
    Counter = lib.Counter

    def kernel(out):
        out[0] = Counter().secret

    with pytest.raises(Exception, match="secret"):
        link_kernel_to_cubin(kernel, (types.float64[:],))


@pytest.mark.gpu
def test_numbers(lib):
    kernel = cuda.jit(make_kernel(lib))
    out = cuda.to_device(np.zeros(22, dtype=np.float64))
    kernel[1, 1](out)
    np.testing.assert_allclose(
        out.copy_to_host(),
        [0, 1, 3, 2.5, 4, 6, 30, 7.5, 7, 7.5, 7.5, 9, 18, 1, 6, 40, 4, 3, 4, 10, 42, 5],
    )


def make_int_compare_kernel():
    def kernel(a, b, out):
        out[0] = a < b  # plain integers: the builtin comparison, never operator<(Counter, Counter)

    return kernel


def test_operators_on_plain_numbers_are_not_captured_by_implicit_constructors(lib):
    Counter = lib.Counter

    def uses_operator(out):
        out[0] = Counter(np.int32(1)) < Counter(np.int32(2))

    link_kernel_to_cubin(uses_operator, (types.boolean[:],))
    operator_shims = [n for n in lib.shim_writer.shim_names() if "_Zlt" in n]
    assert len(operator_shims) == 1
    before = set(lib.shim_writer.shim_names())
    link_kernel_to_cubin(make_int_compare_kernel(), (types.int64, types.int64, types.boolean[:]))
    assert set(lib.shim_writer.shim_names()) == before


@pytest.mark.gpu
def test_integer_comparison_stays_exact(lib):
    out = cuda.to_device(np.zeros(1, dtype=np.bool_))
    cuda.jit(make_int_compare_kernel())[1, 1](4095, 4096, out)
    assert out.copy_to_host()[0]

"""Pointer-to-struct parameters: a kernel passes the struct (a local or an array element) and
the update persists, or passes a pointer (element_pointer) as before; structs with no declared
constructor get T() and, for aggregates, T(fields); a conversion operator to a bound struct is
T(s); device arrays of bound structs."""

from __future__ import annotations

import numpy as np
import pytest
from numba import cuda
from numba.cuda import types
from support import BINDING_DATA, bound_test_header, link_kernel_to_cubin

EXPECTED = [0, 7, 7 * 1664525 + 1013904223, 1, 3, 2, 3, 7, 1, 1, 4, 0, 1, 1000]


@pytest.fixture(scope="module")
def lib():
    return bound_test_header("struct_pointers.cuh")


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    """The header as a generated module (as the import system's entries are): a function's
    overloads are registered when a kernel first looks it up, after the rewrite that passes a
    struct by address has run, which must still know the function takes a struct pointer
    (cuRAND's ``curand_init(seed, i, 0, state)`` with a local state)."""
    from static_support import generate

    return generate(str(BINDING_DATA / "struct_pointers.cuh"), tmp_path_factory.mktemp("gen"))


def make_kernel(lib):
    from numbast import element_pointer

    Walker, init, step = lib.Walker, lib.walker_init, lib.walker_step
    swap, peek, total = lib.walker_swap, lib.walker_peek, lib.walker_total

    def kernel(walkers, out):
        w = Walker()  # implicit default constructor: zeroed
        out[0] = w.position
        init(np.uint32(7), w)  # a local: updated in place
        out[1] = w.position
        out[2] = step(w)  # the call's own result
        out[3] = w.steps
        a = Walker(np.uint32(1), np.uint32(2))  # aggregate constructor, fields in order
        b = Walker(np.uint32(3), np.uint32(4))
        swap(a, b)  # two struct pointers, both updated
        out[4] = a.position
        out[5] = b.steps
        out[6] = peek(a)  # const Walker *
        out[7] = total(a)  # the by-value overload matches as written: 3 + 4
        init(np.uint32(11), walkers[0])  # an array element: stored back
        step(walkers[0])
        out[8] = walkers[0].steps
        init(np.uint32(5), element_pointer(walkers, 1))  # a pointer, as before
        step(element_pointer(walkers, 1))
        out[9] = walkers[1].steps
        for _ in range(3):
            step(w)
        out[10] = w.steps
        local = walkers[2]  # copy, update, store: the usual per-thread pattern
        init(np.uint32(9), local)
        out[11] = walkers[2].position  # a named copy: the element is untouched until stored
        step(local)
        walkers[2] = local
        out[12] = walkers[2].steps
        out[13] = total(element_pointer(walkers, 2))  # the pointer overload

    return kernel


def walker_array_type(lib):
    from numba.cuda.extending import as_numba_type

    return types.Array(as_numba_type(lib.Walker), 1, "C")


def test_kernel_links_to_sm90_cubin(lib):
    signature = (walker_array_type(lib), types.uint32[:])
    assert link_kernel_to_cubin(make_kernel(lib), signature)[:4] == b"\x7fELF"


def test_a_generated_module_links_the_same_kernel(generated):
    signature = (walker_array_type(generated), types.uint32[:])
    assert link_kernel_to_cubin(make_kernel(generated), signature)[:4] == b"\x7fELF"


def test_a_call_without_any_matching_overload_names_the_function(lib):
    step = lib.walker_step

    def kernel(out):
        out[0] = step(np.float32(1.0))

    with pytest.raises(Exception, match="walker_step"):
        link_kernel_to_cubin(kernel, (types.uint32[:],))


def test_struct_dtype_has_the_struct_size_and_alignment(lib):
    from numbast import struct_dtype

    dtype = struct_dtype(lib.Walker)
    assert dtype.itemsize == 8 and dtype.alignment == 4


def test_struct_array_rejects_what_is_not_a_struct():
    from numbast import struct_dtype

    with pytest.raises(TypeError, match="not a bound C\\+\\+ struct"):
        struct_dtype(np.float32)


@pytest.mark.gpu
@pytest.mark.parametrize("bound", ["lib", "generated"])
def test_numbers(bound, request):
    from numbast import struct_array, struct_dtype

    lib = request.getfixturevalue(bound)
    walkers = struct_array(lib.Walker, 3)
    assert walkers._numba_type_ == walker_array_type(lib)
    walkers.copy_to_device(np.zeros(3, dtype=struct_dtype(lib.Walker)))
    out = cuda.to_device(np.zeros(len(EXPECTED), dtype=np.uint32))
    cuda.jit(make_kernel(lib))[1, 1](walkers, out)
    np.testing.assert_array_equal(out.copy_to_host(), np.array(EXPECTED, dtype=np.uint32))
    words = walkers.copy_to_host()["bytes"]  # (position, steps) of each element
    np.testing.assert_array_equal(words[:, 1], [1, 1, 1])


@pytest.fixture(scope="module")
def raw():
    return bound_test_header("raw_structs.cuh")


def make_raw_kernel(raw):
    bits16, bits16_raw = raw.bits16, raw.bits16_raw

    def kernel(out):
        r = bits16_raw(np.uint16(7))  # aggregate initialization
        value = bits16(r)  # converting constructor from the raw struct
        out[0] = value.value()
        back = bits16_raw(value)  # operator bits16_raw(), spelled as a constructor call
        out[1] = back.x
        out[2] = bits16_raw().x  # value-initialized

    return kernel


def test_raw_struct_conversions_link_to_sm90_cubin(raw):
    assert link_kernel_to_cubin(make_raw_kernel(raw), (types.uint16[:],))[:4] == b"\x7fELF"


@pytest.mark.gpu
def test_raw_struct_numbers(raw):
    out = cuda.to_device(np.zeros(3, dtype=np.uint16))
    cuda.jit(make_raw_kernel(raw))[1, 1](out)
    np.testing.assert_array_equal(out.copy_to_host(), [7, 8, 0])

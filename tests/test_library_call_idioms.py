"""Calls that real libraries make and the clang / NVRTC seam used to break, each with a small
header of our own (tests/data/libraries):

- fixed-width integers by pointer and reference (Random123's ``uint64_t *hip``): clang reads
  ``uint64_t`` as ``unsigned long``, NVRTC as ``unsigned long long``; shims keep the typedef;
- a typedef naming a class template instance (``typedef Holder<int> IntHolder;``), through
  ``bind_header`` and through the import system (its generated module);
- member operator templates and free function templates of a class template instance that
  clang made (``cutlass::complex<float>``'s ``+``, ``*``, ``+=`` and ``cutlass::real``);
- members returning a reference to their object with a defaulted argument (Random123's
  ``incr()``), and defaulted arguments of free functions;
- an explicit specialization naming a struct of the same header
  (``platform::numeric_limits<cutlass::half_t>``), reached as ``M.limits[M.Half]``.

A kernel of each links to an sm_90 cubin; the GPU tests check the numbers.
"""

from __future__ import annotations

import importlib
from pathlib import Path

import numpy as np
import pytest
from numba import cuda
from numba.cuda import types
from support import link_kernel_to_cubin

DATA = Path(__file__).parent / "data" / "libraries"


def _bind(name: str, **options):
    from numbast import bind_header

    return bind_header(DATA / name, arch="sm_90", **options)


# -- fixed-width integers by pointer and reference ----------------------------------------------


@pytest.fixture(scope="module")
def fixed_width():
    return _bind("fixed_width.cuh", arg_intents={"mul_hi_lo": {"hi": "out_return",
                                                               "lo": "out_return"}})  # fmt: skip


def fixed_width_kernel(lib):
    mul_hi_lo, add_wide, negate_wide = lib.mul_hi_lo, lib.add_wide, lib.negate_wide

    def kernel(out, x, signed):
        hi, lo = mul_hi_lo(x[0], x[1])  # uint64_t &hi, uint64_t &lo
        out[0] = hi
        out[1] = lo
        add_wide(out[2:], x[0])  # uint64_t *acc
        signed[1] = negate_wide(signed[0])  # const int64_t &

    return kernel


FIXED_WIDTH_SIGNATURE = (types.uint64[::1], types.uint64[::1], types.int64[::1])


def test_fixed_width_pointers_and_references_link_to_sm90_cubin(fixed_width):
    assert link_kernel_to_cubin(fixed_width_kernel(fixed_width), FIXED_WIDTH_SIGNATURE)
    # The header's spelling, which NVRTC reads as the header declared it (not clang's `long`).
    assert "uint64_t *" in fixed_width.shim_writer.source()


@pytest.mark.gpu
def test_fixed_width_pointers_and_references_numbers(fixed_width):
    x = np.array([0xFFFF_FFFF_0000_0001, 0x1_0000_0003], dtype=np.uint64)
    out = cuda.to_device(np.array([0, 0, 40], dtype=np.uint64))
    signed = cuda.to_device(np.array([-(2**40), 0], dtype=np.int64))
    cuda.jit(fixed_width_kernel(fixed_width))[1, 1](out, cuda.to_device(x), signed)
    product = int(x[0]) * int(x[1])
    expected = [product >> 64, product & (2**64 - 1), 40 + int(x[0])]
    assert [int(v) for v in out.copy_to_host()] == expected
    assert signed.copy_to_host()[1] == 2**40


# -- a typedef naming a class template instance ------------------------------------------------


def holder_kernel(lib):
    IntHolder, unwrap = lib.IntHolder, lib.unwrap

    def kernel(out, x):
        held = IntHolder(x[0])
        out[0] = held.doubled()
        out[1] = unwrap(held)

    return kernel


def test_typedef_of_an_instance_is_that_instance_and_links_to_sm90_cubin():
    lib = _bind("typedef_instance.cuh")
    assert lib.IntHolder is lib.Holder[types.int32]
    assert link_kernel_to_cubin(holder_kernel(lib), (types.int32[::1], types.int32[::1]))


@pytest.fixture(scope="module")
def imported_holder(tmp_path_factory):
    import numbast_import

    patch = pytest.MonkeyPatch()
    patch.setenv("NUMBAST_CACHE_DIR", str(tmp_path_factory.mktemp("typedef_instance_cache")))
    patch.setenv("NUMBAST_IMPORT_ARCH", "sm_90")
    patch.setenv("NUMBAST_IMPORT_QUIET", "1")
    numbast_import.register("typedef_instance", DATA / "typedef_instance.cuh")
    try:
        yield importlib.import_module("cuda_headers.typedef_instance")
    finally:
        numbast_import.unregister("typedef_instance")
        patch.undo()


def test_typedef_of_an_instance_through_the_import_links_to_sm90_cubin(imported_holder):
    assert imported_holder.IntHolder is imported_holder.Holder[types.int32]
    kernel = holder_kernel(imported_holder)
    assert link_kernel_to_cubin(kernel, (types.int32[::1], types.int32[::1]))


@pytest.mark.gpu
def test_typedef_of_an_instance_numbers(imported_holder):
    out = cuda.to_device(np.zeros(2, dtype=np.int32))
    cuda.jit(holder_kernel(imported_holder))[1, 1](out, cuda.to_device(np.array([21], np.int32)))
    np.testing.assert_array_equal(out.copy_to_host(), [42, 21])


# -- member operator templates of an instance clang made ----------------------------------------


@pytest.fixture(scope="module")
def complex_lib():
    return _bind("member_operator_templates.cuh")


def complex_kernel(lib):
    CxFloat, real, imag, norm2 = lib.CxFloat, lib.real, lib.imag, lib.norm2

    def kernel(out, x):
        a = CxFloat(x[0], x[1])
        b = CxFloat(x[2], x[3])
        total = a + b
        product = a * b
        scaled = a * x[4]
        a += b
        out[0] = real(total)
        out[1] = imag(total)
        out[2] = product.real()
        out[3] = product.imag()
        out[4] = imag(scaled)
        out[5] = a.real()
        out[6] = real(x[4])  # the plain overload for scalars
        out[7] = norm2(b)

    return kernel


def test_member_operator_templates_of_an_instance_link_to_sm90_cubin(complex_lib):
    assert complex_lib.CxFloat is complex_lib.Cx[types.float32]
    assert link_kernel_to_cubin(complex_kernel(complex_lib), (types.float32[::1],) * 2)


@pytest.mark.gpu
def test_member_operator_templates_of_an_instance_numbers(complex_lib):
    x = np.array([1.5, -2.0, 0.25, 3.0, 4.0], dtype=np.float32)
    out = cuda.to_device(np.zeros(8, dtype=np.float32))
    cuda.jit(complex_kernel(complex_lib))[1, 1](out, cuda.to_device(x))
    a, b = complex(x[0], x[1]), complex(x[2], x[3])
    expected = [(a + b).real, (a + b).imag, (a * b).real, (a * b).imag, a.imag * x[4],
                (a + b).real, x[4], abs(b) ** 2]  # fmt: skip
    np.testing.assert_allclose(out.copy_to_host(), np.array(expected, np.float32), rtol=1e-6)


# -- references to self, defaulted arguments -----------------------------------------------------


@pytest.fixture(scope="module")
def counters():
    return _bind("self_reference.cuh")


def counter_kernel(lib):
    Counter2, bump, step = lib.Counter2, lib.bump, lib.step

    def kernel(out, x):
        c = Counter2()
        c.set(x[0], x[1])
        c.incr()  # incr(unsigned long long n = 1): updates c
        same = c.incr(np.uint64(5))  # its result: the object, updated
        bumped = bump(same)  # Counter2 &bump(Counter2 &c) { return c.incr(2); }
        out[0] = c.v[0]
        out[1] = c.v[1]
        out[2] = same.v[0]
        out[3] = bumped.v[0]
        out[4] = step(x[2])  # step(x, by = 1, times = 2)
        out[5] = step(x[2], np.uint32(3))
        out[6] = step(x[2], np.uint32(3), np.uint32(4))

    return kernel


def test_self_references_and_defaulted_arguments_link_to_sm90_cubin(counters):
    assert link_kernel_to_cubin(counter_kernel(counters), (types.uint32[::1],) * 2)


@pytest.mark.gpu
def test_self_references_and_defaulted_arguments_numbers(counters):
    x = np.array([0xFFFF_FFFE, 7, 10], dtype=np.uint32)
    out = cuda.to_device(np.zeros(7, dtype=np.uint32))
    cuda.jit(counter_kernel(counters))[1, 1](out, cuda.to_device(x))
    # 0xFFFFFFFE + 1 + 5 = 2**32 + 4: one carry into v[1]; bump adds 2 more
    np.testing.assert_array_equal(out.copy_to_host(), [4, 8, 4, 6, 12, 16, 22])


# -- an explicit specialization naming a struct of the same header ------------------------------


def limits_kernel(lib):
    limits, bits_of = lib.limits[lib.Half], lib.bits_of

    def kernel(out):
        out[0] = limits.digits()
        out[1] = bits_of(limits.max())

    return kernel


def test_specialization_on_a_struct_of_the_header_links_to_sm90_cubin():
    lib = _bind("own_struct_specialization.cuh")
    assert not [name for name in dir(lib) if not name.isidentifier()]
    assert link_kernel_to_cubin(limits_kernel(lib), (types.int32[::1],))


@pytest.mark.gpu
def test_specialization_on_a_struct_of_the_header_numbers():
    out = cuda.to_device(np.zeros(2, dtype=np.int32))
    cuda.jit(limits_kernel(_bind("own_struct_specialization.cuh")))[1, 1](out)
    np.testing.assert_array_equal(out.copy_to_host(), [10, 0x7BFF])


# -- explicit specializations spelled with unqualified arguments (CCCL 3.0) ---------------------


def unqualified_kernel(lib):
    tag, box = lib.traits[lib.Tag], lib.Box[types.int32, 4]

    def kernel(out):
        out[0] = tag.code()
        out[1] = box().first() * 0 + 5  # an instance probed beside the specializations

    return kernel


def test_specialization_with_unqualified_arguments_links_to_sm90_cubin():
    lib = _bind("unqualified_specialization.cuh")
    assert hasattr(lib.traits[lib.Tag], "code")
    assert link_kernel_to_cubin(unqualified_kernel(lib), (types.int32[::1],))


def test_a_specialization_qualifies_a_class_it_names_and_keeps_a_typedef_as_written():
    """A class named by its own name gets its namespace; a typedef is kept as written, since
    clang and NVRTC read ``int64_t`` as different types (long, long long)."""
    from ast_canopy import parse_declarations_from_source

    def spelled(header: Path) -> set[str]:
        decls = parse_declarations_from_source(str(header), [str(header)], "sm_90")
        return {s.record.qual_name for s in decls.class_template_specializations}

    assert spelled(DATA / "unqualified_specialization.cuh") == {
        "lib::traits<lib::Tag>",
        "lib::traits<lib::Ref<lib::Tag>>",
    }
    patterns = DATA.parent / "import" / "cutlass_patterns" / "cutlass_patterns.cuh"
    assert {"cp::Width<int64_t>", "cp::Width<uint64_t>", "cp::Tag<long>"} <= spelled(patterns)


@pytest.mark.gpu
def test_specialization_with_unqualified_arguments_numbers():
    out = cuda.to_device(np.zeros(2, dtype=np.int32))
    cuda.jit(unqualified_kernel(_bind("unqualified_specialization.cuh")))[1, 1](out)
    np.testing.assert_array_equal(out.copy_to_host(), [7, 5])


def test_specialization_on_a_struct_of_the_header_bound_twice_selects_its_own_struct():
    """Each binding of a header has its own struct types; the first binding's ``lib::Half``
    is already known by that spelling when the second binds (the GPU suite imported CUTLASS's
    ``half_t`` twice): the second's ``limits[Half]`` is still its own specialization, with its
    static members, not an empty instance of the declared-only primary."""
    first, second = _bind("own_struct_specialization.cuh"), _bind("own_struct_specialization.cuh")
    assert first.Half is not second.Half
    for lib in (second, first):
        assert hasattr(lib.limits[lib.Half], "max")
        assert link_kernel_to_cubin(limits_kernel(lib), (types.int32[::1],))

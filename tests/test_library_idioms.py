"""C++ idioms of real libraries, each with a small header of our own (tests/data/libraries):
results of types whose copy assignment is private, undefined or deleted (cooperative_groups'
``thread_group`` and ``thread_block``) are constructed in the result slot, static members are
reached through objects as C++ allows (``block.sync()``), members are inherited from bases
(``thread_block`` from ``thread_group_base``), class templates that are only declared are
defined by their specializations (CUTLASS's ``Array``), and explicit specializations with
enumerator arguments are spelled with the enumerators qualified (libcu++'s
``__numeric_limits_impl<float, __numeric_limits_type::__floating_point>``). A kernel of each
links to an sm_90 cubin; the GPU tests check the numbers."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from numba import cuda
from numba.cuda import types
from support import link_kernel_to_cubin

DATA = Path(__file__).parent / "data" / "libraries"
THREADS = 64


@pytest.fixture(scope="module")
def groups():
    from numbast import bind_header

    return bind_header(DATA / "groups.cuh", arch="sm_90")


def groups_kernel(lib):
    whole_team, this_block = lib.whole_team, lib.this_block

    def kernel(out):
        team = whole_team()  # Team: operator= declared, never defined
        block = this_block()  # Block: a const member, so no copy assignment
        i = block.thread_rank()  # static members through an object
        out[i, 0] = team.rank()
        out[i, 1] = team.size()
        out[i, 2] = block.size()
        out[i, 3] = block.id()
        block.sync()
        out[i, 4] = lib.Block.thread_rank() + 1  # and through the type, as before

    return kernel


def test_unassignable_results_and_static_members_link_to_sm90_cubin(groups):
    link_kernel_to_cubin(groups_kernel(groups), (types.uint32[:, :],))


@pytest.mark.gpu
def test_unassignable_results_and_static_members_numbers(groups):
    out = cuda.to_device(np.zeros((THREADS, 5), np.uint32))
    cuda.jit(groups_kernel(groups))[1, THREADS](out)
    ranks = np.arange(THREADS, dtype=np.uint32)
    expected = np.stack([ranks, np.full(THREADS, THREADS), np.full(THREADS, THREADS),
                         np.full(THREADS, 7), ranks + 1], axis=1)  # fmt: skip
    np.testing.assert_array_equal(out.copy_to_host(), expected)


@pytest.fixture(scope="module")
def bases():
    from numbast import bind_header

    return bind_header(DATA / "bases.cuh", arch="sm_90")


def bases_kernel(lib):
    Named, Both = lib.Named, lib.Both

    def kernel(out):
        named = Named()
        named.bump(np.int32(5))  # Counter::bump, non-const: updates named
        named.bump(np.int32(2))
        out[0] = named.get()  # Counter::get, through Tagged<7>
        out[1] = named.twice()  # Named::twice hides Counter::twice
        out[2] = named.tag()  # Tagged<7>::tag, static, through the object
        out[3] = Named.limit()  # Counter::limit, static, through the type
        both = Both(np.int32(10), np.int32(20))
        out[4] = both.left()
        out[5] = both.right()  # Right sits after Left: the shim adjusts the address

    return kernel


BASES_EXPECTED = [7, 21, 7, 100, 10, 20]


def test_inherited_members_link_to_sm90_cubin(bases):
    link_kernel_to_cubin(bases_kernel(bases), (types.int32[:],))


def test_names_declared_closer_or_twice_are_not_inherited(bases):
    from numba.cuda.core.errors import TypingError

    Both = bases.Both

    def ambiguous(out):
        out[0] = Both(np.int32(1), np.int32(2)).side()  # Left::side and Right::side

    with pytest.raises(TypingError, match="Unknown attribute .side."):
        link_kernel_to_cubin(ambiguous, (types.int32[:],))


@pytest.mark.gpu
def test_inherited_members_numbers(bases):
    out = cuda.to_device(np.zeros(len(BASES_EXPECTED), np.int32))
    cuda.jit(bases_kernel(bases))[1, 1](out)
    np.testing.assert_array_equal(out.copy_to_host(), BASES_EXPECTED)


@pytest.fixture(scope="module")
def specializations():
    from numbast import bind_header

    return bind_header(DATA / "specializations.cuh", arch="sm_90")


def test_declared_templates_and_enumerator_arguments_as_parsed():
    from ast_canopy import parse_declarations_from_source

    header = str(DATA / "specializations.cuh")
    decls = parse_declarations_from_source(header, [header], "sm_90")
    templates = {t.qual_name: t for t in decls.class_templates}
    assert set(templates) == {"spec::limits", "spec::store", "spec::dispatch", "spec::Pack"}
    assert templates["spec::Pack"].template_parameters[2].default == "(sizeof(T) >= 4)"
    assert templates["spec::limits"].record.sizeof_ is None  # declared only: no members
    assert [s.qual_name for s in decls.class_template_specializations] == [
        "spec::limits<float, spec::kind::floating>",  # scoped: the enum's scope
        "spec::limits<int, spec::kind::integral>",
        "spec::store<float, spec::packed>",  # unscoped: the enclosing namespace
        "spec::dispatch<4U>",  # a named constant: its value
    ]


def pack_kernel(lib):
    Wide, Narrow = lib.Pack[types.float32, 3], lib.Pack[types.int8, 2]

    def kernel(out):
        out[0] = Wide(np.float32(1.5)).last()  # Pack<float, 3, true>: 1.5 + 2
        out[1] = Narrow(np.int8(4)).last()  # Pack<signed char, 2, false>: -4

    return kernel


def test_a_declared_template_is_defined_by_its_partial_specializations(specializations):
    assert specializations.Pack[types.float32, 3]._cxx_name_ == "spec::Pack<float, 3, true>"
    assert specializations.Pack[types.int8, 2]._cxx_name_ == "spec::Pack<signed char, 2, false>"
    link_kernel_to_cubin(pack_kernel(specializations), (types.float32[:],))


@pytest.mark.gpu
def test_a_declared_template_numbers(specializations):
    out = cuda.to_device(np.zeros(2, np.float32))
    cuda.jit(pack_kernel(specializations))[1, 1](out)
    np.testing.assert_array_equal(out.copy_to_host(), np.float32([3.5, -4]))


def enumerator_specializations_kernel(lib):
    Floating = lib.limits[types.float32, lib.kind.floating]  # template <> limits<float, ...>
    Integral = lib.limits[types.int32, lib.kind.integral]
    Packed = lib.store[types.float32, lib.packed]  # an unscoped enum's enumerator
    Block = lib.dispatch[4]  # written dispatch<detail::block_id>

    def kernel(out):
        out[0] = Floating.largest()
        out[1] = Integral.largest()
        out[2] = Packed(np.float32(1.5), np.float32(2.0)).sum()
        out[3] = Block.id()

    return kernel


def test_explicit_specializations_with_value_arguments_are_selected(specializations):
    lib = specializations
    assert lib.limits[types.float32, lib.kind.floating]._cxx_name_ == (
        "spec::limits<float, spec::kind::floating>"  # the specialization written in the header
    )
    link_kernel_to_cubin(enumerator_specializations_kernel(lib), (types.float64[:],))


@pytest.mark.gpu
def test_explicit_specializations_with_value_arguments_numbers(specializations):
    out = cuda.to_device(np.zeros(4, np.float64))
    cuda.jit(enumerator_specializations_kernel(specializations))[1, 1](out)
    np.testing.assert_array_equal(out.copy_to_host(), [np.float32(3.0e38), 2147483647, 3.5, 40])


def test_instances_a_default_instantiated_are_not_functions():
    """clang lists the instances of a function template that a default template argument
    instantiated (``kind_of<float>()``) at the top level of the unit, outside their
    namespace: they are the template's, not functions of their own."""
    from ast_canopy import parse_declarations_from_source

    header = str(DATA / "function_instances.cuh")
    decls = parse_declarations_from_source(header, [header], "sm_90")
    assert [f.qual_name for f in decls.functions] == ["fi::width"]
    assert [t.qual_name for t in decls.function_templates] == ["fi::kind_of"]


@pytest.fixture(scope="module")
def template_bases():
    from numbast import bind_header

    return bind_header(DATA / "template_bases.cuh", arch="sm_90")


def template_bases_kernel(lib):
    Limits = lib.limits[types.float32]  # no members of its own: traits<float, plain>'s
    Tile = lib.tile[types.float32]  # tile<float> : middle<float, 32> : holder<float>
    make_box = lib.make_box

    def kernel(out):
        out[0] = Limits.biggest()  # a static member of an explicit specialization base
        out[1] = Limits.digits()
        t = Tile(np.float32(2.0))
        t.add(np.float32(3.0))  # holder<float>::add, non-const: updates t
        out[2] = t.get()  # tile<float>::get hides holder<float>::get
        out[3] = t.size()  # middle<float, 32>::size, static, through the object
        out[4] = t.scaled(np.int32(3))  # holder<float>'s member template
        out[5] = make_box(np.float32(1.5)).times(np.int32(4))  # box<float>, named by make_box

    return kernel


TEMPLATE_BASES_EXPECTED = [np.float32(3.0e38), 24, 6.0, 32, 15.0, 6.0]


def test_template_instances_inherit_members_link_to_sm90_cubin(template_bases):
    link_kernel_to_cubin(template_bases_kernel(template_bases), (types.float64[:],))


@pytest.mark.gpu
def test_template_instances_inherit_members_numbers(template_bases):
    out = cuda.to_device(np.zeros(len(TEMPLATE_BASES_EXPECTED), np.float64))
    cuda.jit(template_bases_kernel(template_bases))[1, 1](out)
    np.testing.assert_array_equal(out.copy_to_host(), TEMPLATE_BASES_EXPECTED)

"""Structs whose C++ layout has padding that a Numba StructModel of their fields would not have
(a float2 after a float, a float2 followed by a float, alignas): the model gets padding members,
so fields read from Numba and values passed to C++ sit at the C++ offsets, and the model has the
C++ size (arrays of the struct step by it)."""

from __future__ import annotations

import functools
from pathlib import Path

import numpy as np
import pytest
from numba import cuda
from numba.cuda import types
from static_support import generate
from support import link_kernel_to_cubin

from numbast.core.struct_padding import FieldSlot, padded_members

HEADER = Path(__file__).parent / "data" / "static" / "padded.cuh"
EXPECTED = [1.0, 2.0, 3.0, 6.0, 4.0, 5.0, 6.0, 15.0, 2.5, 9.5]


def test_padding_goes_where_llvm_would_not_put_it():
    # float mass; float2 pos: pos at 8 in C++, at 4 after LLVM's own alignment (4)
    assert padded_members([FieldSlot("mass", 0, 4, 4), FieldSlot("pos", 8, 8, 4)], 16) == (
        ["mass", 4, "pos"], "",
    )  # fmt: skip
    # float2 vel; float mass: 12 bytes of fields, C++ size 16
    assert padded_members([FieldSlot("vel", 0, 8, 4), FieldSlot("mass", 8, 4, 4)], 16)[0] == [
        "vel", "mass", 4,
    ]  # fmt: skip
    # no padding needed: none added
    assert padded_members([FieldSlot("a", 0, 4, 4), FieldSlot("b", 4, 4, 4)], 8)[0] == ["a", "b"]
    # overlapping fields (a union) cannot be a struct
    members, why_not = padded_members([FieldSlot("a", 0, 4, 4), FieldSlot("b", 0, 4, 4)], 4)
    assert members is None and "field b" in why_not


def make_kernel(padded):
    make_particle, particle_sum = padded.make_particle, padded.particle_sum
    make_body, body_sum = padded.make_body, padded.body_sum
    make_tagged, tagged_value = padded.make_tagged, padded.tagged_value

    def kernel(out):
        p = make_particle(np.float32(1.0), np.float32(2.0), np.float32(3.0))
        out[0] = p.mass  # fields read by Numba at the C++ offsets
        out[1] = p.pos.x
        out[2] = p.pos.y
        out[3] = particle_sum(p)  # and passed back to C++ as C++ laid them out
        b = make_body(np.float32(4.0), np.float32(5.0), np.float32(6.0))
        out[4] = b.vel.x
        out[5] = b.vel.y
        out[6] = b.mass
        out[7] = body_sum(b)
        t = make_tagged(np.int8(7), np.float32(2.5))
        out[8] = t.value
        out[9] = tagged_value(t)

    return kernel


@functools.cache
def dynamic_padded():
    from numbast import bind_header

    return bind_header(HEADER)


def test_models_have_the_cxx_size_and_offsets():
    from numba.cuda.descriptor import cuda_target

    padded = dynamic_padded()
    context = cuda_target.target_context
    for stub, size in ((padded.Particle, 16), (padded.Body, 16), (padded.Tagged, 32)):
        llvm_type = context.get_data_type(stub._numba_type_)
        assert context.get_abi_sizeof(llvm_type) == size, stub


@pytest.mark.parametrize("which", ["dynamic", "static"])
def test_padded_structs_link(tmp_path, which):
    padded = dynamic_padded() if which == "dynamic" else generate("padded.cuh", tmp_path)
    assert link_kernel_to_cubin(make_kernel(padded), (types.float32[:],))[:4] == b"\x7fELF"


@pytest.mark.gpu
@pytest.mark.parametrize("which", ["dynamic", "static"])
def test_padded_struct_numbers(tmp_path, which):
    padded = dynamic_padded() if which == "dynamic" else generate("padded.cuh", tmp_path)
    out = cuda.to_device(np.zeros(len(EXPECTED), dtype=np.float32))
    cuda.jit(make_kernel(padded))[1, 1](out)
    np.testing.assert_allclose(out.copy_to_host(), EXPECTED)

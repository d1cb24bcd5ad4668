"""NVIDIA Numbast's template API on ours: its signatures and keywords, argument intents on
function templates, class template methods and member templates, enumerators given as C++ text,
array references taken by pointer, and its typing errors."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from numba import cuda
from numba.cuda import types
from support import link_kernel_to_cubin

HEADER = str(Path(__file__).parent / "data" / "compat" / "templates.cuh")
FUNCTION_INTENTS = {"tripled": {"out": "out_return"}, "sum_and_square": {"square": "out_return"},
                    "fill3": {"items": "out_ptr"}}  # fmt: skip
METHOD_INTENTS = {"Op": {"apply": {"out": "out_return"}, "scaled": {"out": "out_ptr"}}}


@pytest.fixture(scope="module")
def bound():
    from ast_canopy import parse_declarations_from_source
    from numbast import MemoryShimWriter, bind_cxx_class_templates, bind_cxx_function_templates

    decls = parse_declarations_from_source(HEADER, [HEADER], "sm_90")
    shim_writer = MemoryShimWriter(f'#include "{HEADER}"')
    functions = bind_cxx_function_templates(
        function_templates=decls.function_templates,
        shim_writer=shim_writer,
        arg_intent=FUNCTION_INTENTS,
    )
    classes = bind_cxx_class_templates(
        decls.class_templates, HEADER, shim_writer, arg_intent=METHOD_INTENTS
    )
    return {f.__name__: f for f in functions} | {c.__name__: c for c in classes}


def test_nvidia_shapes_of_the_results(bound):
    assert {"tripled", "sum_and_square", "fill3", "Op", "Ambig", "Holder"} <= set(bound)
    assert isinstance(bound["Op"], type)  # a class, as NVIDIA's class template objects are


def make_intent_kernel(bound):
    from numbast import element_pointer

    tripled, sum_and_square, fill3, Op = (
        bound[n] for n in ("tripled", "sum_and_square", "fill3", "Op")
    )

    def kernel(out, items):
        out[0] = tripled(np.int32(5))  # out_return: the result
        total, square = sum_and_square(np.int32(3))  # C++ result, then the out_return
        out[1], out[2] = total, square
        fill3(element_pointer(items, 0), np.int32(7))  # T (&)[3] given a pointer (out_ptr)
        op = Op(T=np.int32, M="Mode::Mul")  # an enumerator as C++ text; K defaulted
        out[3] = op.apply(np.int32(6), np.int32(7))  # out_return on a method
        op.scaled(np.int32(4), element_pointer(out, 4))  # member template, J = K = 2, out_ptr

    return kernel


SIGNATURE = (types.int32[:], types.int32[:])


def test_intents_on_templates_link(bound):
    assert link_kernel_to_cubin(make_intent_kernel(bound), SIGNATURE)[:4] == b"\x7fELF"


@pytest.mark.gpu
def test_intents_on_templates_numbers(bound):
    out, items = np.zeros(5, np.int32), np.zeros(3, np.int32)
    cuda.jit(make_intent_kernel(bound))[1, 1](out, items)
    np.testing.assert_array_equal(out, [15, 6, 9, 42, 8])
    np.testing.assert_array_equal(items, [7, 8, 9])


def typing_error(pyfunc) -> str:
    from numba.core.errors import TypingError

    with pytest.raises(TypingError) as caught:
        link_kernel_to_cubin(pyfunc, (types.int32[:],))
    return str(caught.value)


def test_template_arguments_are_not_positional(bound):
    Holder = bound["Holder"]

    def kernel(out):
        out[0] = Holder(np.int32(1), 128).get()

    assert "expected at most 1 constructor args, got 2 positional args" in typing_error(kernel)


def test_a_given_argument_that_deduction_contradicts(bound):
    Holder = bound["Holder"]

    def kernel(out):
        out[0] = Holder(t=np.int32(1), N=3, T=np.float32).get()

    assert "Template parameter conflict for 'T'" in typing_error(kernel)


def test_constructors_cpp_cannot_choose_between(bound):
    Ambig = bound["Ambig"]

    def kernel(out):
        out[0] = Ambig(np.int32(1), N=7).value

    assert "Ambiguous constructor selection for Ambig<int, 7>" in typing_error(kernel)


def test_keywords_in_any_order_construct(bound):
    """NVIDIA requires constructor keywords before template keywords; here order is free."""
    Holder = bound["Holder"]

    def kernel(out):
        out[0] = Holder(N=3, t=np.int32(1)).get()

    assert link_kernel_to_cubin(kernel, (types.int32[:],))[:4] == b"\x7fELF"


def test_positional_order_is_nvidia_s():
    from ast_canopy import parse_declarations_from_source
    from numbast import MemoryShimWriter, bind_cxx_class_template

    decls = parse_declarations_from_source(HEADER, [HEADER], "sm_90")
    shim_writer = MemoryShimWriter(f'#include "{HEADER}"')
    with pytest.raises(TypeError, match="the first argument is a ClassTemplate declaration"):
        bind_cxx_class_template(shim_writer, decls.class_templates[0])
    with pytest.raises(FileNotFoundError, match="header_path"):
        bind_cxx_class_template(decls.class_templates[0], shim_writer, "/no/such/header.cuh")

"""What a process's first compile of a kernel with bound calls pays beyond plain Numba
(issue 22): each check here is asked once, not at every refresh or every bound argument."""

from __future__ import annotations

from llvmlite import ir
from numba.cuda import types
from numba.cuda.descriptor import cuda_target
from numba.cuda.typing.templates import ConcreteTemplate, signature

from numbast.runtime import calls, overloads


def test_a_bound_calls_stack_slots_ask_each_types_abi_alignment_once(monkeypatch):
    context = cuda_target.target_context
    kinds = [
        ir.IntType(8), ir.IntType(16), ir.IntType(32), ir.IntType(64), ir.FloatType(),
        ir.DoubleType(), ir.HalfType(), ir.IntType(16).as_pointer(),
        ir.LiteralStructType([ir.IntType(8), ir.DoubleType()]), ir.ArrayType(ir.IntType(16), 3),
    ]  # fmt: skip
    expected = [context.get_abi_alignment(kind) for kind in kinds]
    assert expected[:6] == [1, 2, 4, 8, 4, 8] and expected[8] == 8  # NVPTX's layout

    def slots(kinds, align=0):
        builder = ir.IRBuilder(ir.Function(ir.Module(), ir.FunctionType(ir.VoidType(), []), "f")
                               .append_basic_block())  # fmt: skip
        return [calls.stack_slot(context, builder, kind, align).align for kind in kinds]

    assert slots(kinds) == expected
    assert slots(kinds, align=4) == [max(4, a) for a in expected]  # C++'s, when larger
    asked = []
    original = type(context).get_abi_alignment
    monkeypatch.setattr(
        type(context), "get_abi_alignment", lambda self, t: asked.append(t) or original(self, t)
    )
    # Asked again (an equal type made anew): answered without llvmlite parsing a module.
    assert slots([ir.LiteralStructType([ir.IntType(8), ir.DoubleType()]), *kinds])[1:] == expected
    assert asked == []


class _Theirs(ConcreteTemplate):
    cases = [signature(types.int64, types.int64, types.int64)]


def test_operator_overloads_are_put_first_once_per_function_type(monkeypatch):
    typing_context = cuda_target.typing_context

    def combine(a, b):  # an operator-like key of this test only
        raise NotImplementedError

    ours = overloads.overload_template(combine, "combine")
    _Theirs.key = combine
    typing_context.refresh()  # takes in our overload set
    typing_context._remove_global(combine)
    typing_context.insert_global(combine, types.Function((_Theirs, ours)))  # theirs first

    overloads.operator_overloads_first(typing_context)
    assert typing_context._lookup_global(combine).templates == (ours, _Theirs)
    removed = []
    original = type(typing_context)._remove_global
    monkeypatch.setattr(
        type(typing_context),
        "_remove_global",
        lambda self, k: removed.append(k) or original(self, k),
    )
    for _ in range(3):  # as after each of Numba's nested refreshes: in order, left alone
        overloads.operator_overloads_first(typing_context)
    assert removed == []
    # Numba replaced the global's type (new templates after ours): checked, and put in order.
    original(typing_context, combine)
    typing_context.insert_global(combine, types.Function((_Theirs, ours)))
    overloads.operator_overloads_first(typing_context)
    assert removed == [combine]
    assert typing_context._lookup_global(combine).templates == (ours, _Theirs)

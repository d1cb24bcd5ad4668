"""ast_canopy on free functions: operators, execution spaces, namespaces, templates, default
arguments and parameter types. Each test header under tests/data/parser/ shows one feature."""

from __future__ import annotations

import functools
from pathlib import Path

from ast_canopy import Declarations, ExecutionSpace, TemplateParamKind, TypeKind

DATA = Path(__file__).parent / "data" / "parser"


@functools.cache
def parse(name: str) -> Declarations:
    from ast_canopy import parse_declarations_from_source

    header = DATA / name
    return parse_declarations_from_source(str(header), [str(header)], "sm_90")


def by_name(decls: Declarations) -> dict:
    return {f.qual_name: f for f in decls.functions}


def test_free_operators():
    decls = parse("operators.cuh")
    ops = [(f.name, f.operator, len(f.params)) for f in decls.functions]
    assert ops == [
        ("operator+", "+", 2),
        ("operator*", "*", 2),
        ("operator==", "==", 2),
        ("operator<", "<", 2),
        ("operator_count", None, 1),  # an identifier, not an operator
    ]
    plus = decls.functions[0]
    assert plus.is_operator and plus.is_overloaded_operator()
    assert plus.return_type.name == "Vec2"
    assert [p.type_.name for p in plus.params] == ["const Vec2 &", "const Vec2 &"]
    assert plus.mangled_name == "_ZplRK4Vec2S1_"
    assert decls.functions[2].return_type.name == "bool"


def test_execution_spaces():
    functions = by_name(parse("exec_spaces.cuh"))
    spaces = {name: f.exec_space for name, f in functions.items()}
    assert spaces == {
        # No attribute: host code in CUDA, "undefined" in NVIDIA's model (and here).
        "host_implicit": ExecutionSpace.UNDEFINED,
        "host_explicit": ExecutionSpace.HOST,
        "device_only": ExecutionSpace.DEVICE,
        "both": ExecutionSpace.HOST_DEVICE,
        "both_reversed": ExecutionSpace.HOST_DEVICE,
        "kernel": ExecutionSpace.GLOBAL,
        # clang makes constexpr functions __host__ __device__ implicitly.
        "folded": ExecutionSpace.HOST_DEVICE,
        "forced": ExecutionSpace.DEVICE,
    }
    assert not spaces["kernel"].is_device_callable
    assert not spaces["host_implicit"].is_device_callable
    assert spaces["both"].is_device_callable
    assert functions["folded"].is_constexpr and functions["folded"].is_inline
    assert not functions["both"].is_constexpr
    # Attribute names as clang spells them, CUDA's included; __forceinline__ is a macro.
    assert functions["forced"].attributes == {"device", "always_inline"}
    assert functions["forced"].is_inline
    assert functions["both"].attributes == {"host", "device"}
    assert functions["host_implicit"].attributes == frozenset()
    assert functions["kernel"].return_type.name == "void"


def test_namespaces_give_qualified_names():
    functions = by_name(parse("namespaces.cuh"))
    assert list(functions) == [
        "outer::top",
        "outer::inner::deep",
        "outer::versioned",  # inline namespaces are left out, as in clang's type spellings
        "hidden_helper",  # anonymous namespace: nothing to qualify with
        "c_linkage",
    ]
    deep = functions["outer::inner::deep"]
    assert deep.name == "deep"
    assert deep.params[0].type_.canonical_name == "outer::inner::Thing"
    assert functions["c_linkage"].mangled_name == "c_linkage"
    assert functions["outer::top"].mangled_name == "_ZN5outer3topEi"
    (thing,) = parse("namespaces.cuh").structs
    assert thing.qual_name == "outer::inner::Thing"


def test_function_templates():
    decls = parse("function_templates.cuh")
    templates = {t.qual_name: t for t in decls.function_templates}
    assert list(templates) == ["square", "sum_n", "count_args", "unbox"]

    square = templates["square"]
    assert [(p.name, p.kind) for p in square.template_parameters] == [("T", TemplateParamKind.TYPE)]
    assert square.function.return_type.kind is TypeKind.DEPENDENT
    assert square.function.exec_space is ExecutionSpace.DEVICE
    # No symbol until instantiated: a deterministic stand-in that is no Itanium name.
    assert square.function.mangled_name.startswith("square__dependent_signature__")
    assert square.num_min_required_args == 1

    sum_n = templates["sum_n"]
    params = [(p.name, p.kind, p.default) for p in sum_n.template_parameters]
    assert params == [
        ("T", TemplateParamKind.TYPE, "float"),
        ("N", TemplateParamKind.NON_TYPE, "4"),
    ]
    assert sum_n.template_parameters[1].type_.name == "int"
    assert sum_n.num_min_required_args == 0
    values = sum_n.function.params[0].type_
    assert (values.name, values.kind) == ("const T *", TypeKind.POINTER)
    assert values.pointee.is_const and values.pointee.kind is TypeKind.DEPENDENT

    (pack,) = templates["count_args"].template_parameters
    assert pack.is_pack and pack.name == "Ts"
    assert templates["count_args"].num_min_required_args == 0

    box = templates["unbox"].template_parameters[0]
    assert (box.name, box.kind, box.default) == ("Box", TemplateParamKind.TEMPLATE, None)

    # Member templates live on their struct.
    (scaler,) = decls.structs
    (scale,) = scaler.templated_methods
    assert scale.function.qual_name == "Scaler::scale"
    assert scale.function.is_const
    assert [p.name for p in scale.template_parameters] == ["T"]


def test_default_arguments_keep_their_source_text():
    functions = by_name(parse("default_arguments.cuh"))
    defaults = {name: tuple(p.default_value for p in f.params) for name, f in functions.items()}
    assert defaults == {
        "blend": (None, None, "0.5f"),
        "clamp_to": (None, "-(1 << 4)", "sizeof(int) * 8"),
        "scaled": (None, "DEFAULT_SCALE"),
        "first": (None, "0"),
    }
    # An array parameter is the pointer it decays to.
    values = functions["first"].params[0].type_
    assert (values.name, values.kind, values.pointee.name) == (
        "const int *",
        TypeKind.POINTER,
        "const int",
    )


def test_parameter_and_return_types():
    decls = parse("types.cuh")
    functions = by_name(decls)

    p, q = functions["take_pointer"].params
    assert (p.type_.kind, p.type_.pointee.name, p.type_.pointee.is_const) == (
        TypeKind.POINTER,
        "const float",
        True,
    )
    # A typedef keeps its name; the canonical form and the pointee see through it.
    assert (q.type_.name, q.type_.canonical_name, q.type_.kind) == (
        "float_ptr",
        "float *",
        TypeKind.POINTER,
    )
    assert q.type_.pointee.name == "float"

    r, cr, rr = functions["take_refs"].params
    assert r.type_.is_lvalue_reference and r.type_.is_left_reference()
    assert cr.type_.name == "const Rec &" and cr.type_.unqualified_non_ref_type_name == "Rec"
    assert cr.type_.referenced().is_const and not cr.type_.is_const
    assert rr.type_.is_rvalue_reference and rr.type_.is_right_reference()
    assert rr.type_.pointee.sizeof_ == 24

    ret = functions["give_pointer"].return_type
    assert (ret.name, ret.kind, ret.pointee.kind) == (
        "const Rec *",
        TypeKind.POINTER,
        TypeKind.RECORD,
    )

    (arr,) = functions["take_array"].params
    assert arr.type_.is_lvalue_reference
    assert (arr.type_.pointee.kind, arr.type_.pointee.array_extents) == (TypeKind.ARRAY, (4,))

    builtins = [(p.type_.name, p.type_.sizeof_) for p in functions["take_builtin"].params]
    assert builtins == [("char", 1), ("bool", 1), ("double", 8)]
    assert functions["take_builtin"].return_type.kind is TypeKind.BUILTIN

    # The parameters of a function type in the return type are not the function's own.
    pick_op = functions["pick_op"]
    assert [(p.name, p.type_.name) for p in pick_op.params] == [("which", "int")]
    assert pick_op.return_type.name == "int (*)(int, int)"
    assert pick_op.return_type.pointee.kind is TypeKind.FUNCTION
    op, _ = functions["apply"].params
    assert (op.name, op.type_.kind, op.type_.pointee.name) == (
        "op",
        TypeKind.POINTER,
        "int (int, int)",
    )

    (rec,) = decls.structs
    values = rec.fields[0].type_
    assert (values.array_extents, values.pointee.name, values.sizeof_) == ((2, 3), "int", 24)

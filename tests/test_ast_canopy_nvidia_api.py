"""NVIDIA ast_canopy's documented surface on ours: signatures (order, keywords, defaults), the
``decl`` / ``pylibastcanopy`` / ``constants`` / ``api`` modules, ``instantiate()``, operator
queries, typed constexpr values and ``cuda_header_mode``. docs/numbast_compat.md lists what
differs on purpose."""

from __future__ import annotations

import functools
import inspect
import operator
import warnings
from importlib import metadata
from pathlib import Path

import pytest

import ast_canopy
from ast_canopy import Declarations, ExecutionSpace, MethodKind

DATA = Path(__file__).parent / "data" / "parser"

# NVIDIA's signatures (ast_canopy/api.py at the mirrored commit): name and default, in order.
_REQUIRED = inspect.Parameter.empty
NVIDIA_PARSE = [
    ("source_file_path", _REQUIRED),
    ("files_to_retain", _REQUIRED),
    ("compute_capability", _REQUIRED),
    ("cudatoolkit_include_dirs", None),
    ("cxx_standard", "gnu++17"),
    ("additional_includes", None),
    ("defines", None),
    ("verbose", False),
    ("bypass_parse_error", False),
    ("cuda_header_mode", False),
    ("clang_binary", None),
]
NVIDIA_CONSTEXPR = [
    ("source", _REQUIRED),
    ("vardecl_name", _REQUIRED),
    ("compute_capability", _REQUIRED),
    ("cxx_standard", "gnu++17"),
    ("verbose", False),
    ("clang_binary", None),
]


@functools.cache
def parse(name: str) -> Declarations:
    from ast_canopy import parse_declarations_from_source

    header = DATA / name
    return parse_declarations_from_source(str(header), [str(header)], "sm_90")


def _positional(function) -> list[tuple[str, object]]:
    return [
        (p.name, p.default)
        for p in inspect.signature(function).parameters.values()
        if p.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD
    ]


def test_signatures_take_nvidias_parameters_in_nvidias_order():
    from ast_canopy import parse_declarations_from_source, value_from_constexpr_vardecl

    assert _positional(parse_declarations_from_source) == NVIDIA_PARSE
    assert _positional(value_from_constexpr_vardecl) == NVIDIA_CONSTEXPR
    # Our own additions are keyword-only, never in a position NVIDIA uses.
    extra = inspect.signature(parse_declarations_from_source).parameters["cccl_root"]
    assert extra.kind is inspect.Parameter.KEYWORD_ONLY


def test_a_positional_call_written_for_nvidia_means_the_same_here():
    from ast_canopy import parse_declarations_from_source

    header = str(DATA / "defines.cuh")
    decls = parse_declarations_from_source(
        header,
        [header],
        "sm_90",
        None,
        "c++17",
        [str(DATA / "include_dir")],
        ["WITH_EXTRA", "SCALE=2"],
    )
    assert [f.name for f in decls.functions] == ["extra_function", "make_extra"]
    assert decls.functions[0].parse_entry_point == header


def test_clang_binary_is_accepted_and_said_to_be_ignored():
    from ast_canopy import parse_declarations_from_source

    header = str(DATA / "enums.cuh")
    with pytest.warns(UserWarning, match="clang_binary='/opt/llvm/bin/clang\\+\\+' is ignored"):
        decls = parse_declarations_from_source(
            header, [header], "sm_90", clang_binary="/opt/llvm/bin/clang++"
        )
    assert len(decls.enums) == 5


def test_nvidia_module_names_are_the_model_classes():
    from ast_canopy import api, constants, decl, pylibastcanopy

    assert decl.Function is ast_canopy.Function
    assert decl.StructMethod is decl.TemplatedStructMethod is ast_canopy.Method
    assert decl.Struct is decl.TemplatedStruct is ast_canopy.Struct
    assert decl.CXX_OP_TO_PYTHON_OP["+"] == [operator.pos, operator.add]
    assert decl.CXX_TYPE_TO_PYTHON_TYPE["unsigned long long"] is int
    assert pylibastcanopy.Record is ast_canopy.Struct
    assert pylibastcanopy.Enum is ast_canopy.Enum
    assert api.parse_declarations_from_source is ast_canopy.parse_declarations_from_source
    assert api.Declarations is ast_canopy.Declarations
    assert constants.INVALID_SIZE_OF is ast_canopy.INVALID_SIZE_OF is None
    assert ast_canopy.__version__ == metadata.version("numbast-import")


def test_enum_members_answer_to_nvidias_names():
    from ast_canopy.pylibastcanopy import (
        access_kind,
        execution_space,
        method_kind,
        template_param_kind,
    )

    assert execution_space.undefined is ExecutionSpace.UNDEFINED
    assert execution_space.global_ is ExecutionSpace.GLOBAL
    assert execution_space.host_device is ExecutionSpace.HOST_DEVICE
    assert access_kind.public_ is ast_canopy.Access.PUBLIC
    assert template_param_kind.type_ is ast_canopy.TemplateParamKind.TYPE
    assert template_param_kind.template_ is ast_canopy.TemplateParamKind.TEMPLATE
    assert method_kind.converting_constructor is MethodKind.CONVERTING_CONSTRUCTOR
    assert method_kind.other is MethodKind.METHOD
    # Aliases are not extra members.
    assert len(list(execution_space)) == 5


def test_layout_sentinels_compare_equal_to_what_has_no_layout():
    vec = parse("class_templates.cuh").class_templates[0]
    assert vec.record.sizeof_ == ast_canopy.INVALID_SIZE_OF
    assert vec.record.alignof_ == ast_canopy.INVALID_ALIGN_OF


def test_struct_and_method_queries():
    vec2 = parse("operators.cuh").structs[0]
    plus_assign, subscript, call, negate = vec2.methods
    assert negate.overloaded_operator_to_python_operator is operator.neg
    assert plus_assign.overloaded_operator_to_python_operator is operator.iadd
    assert [m.name for m in vec2.overloaded_operators()] == ["operator+=", "operator-"]
    # operator[] and operator() have no Python operator: NVIDIA counts them as regular.
    assert [m.name for m in vec2.regular_member_functions()] == ["operator[]", "operator()"]
    assert [f.name for f in vec2.public_fields()] == ["x", "y"]

    plus, times, equals, less, named = parse("operators.cuh").functions
    assert plus.overloaded_operator_to_python_operator is operator.add
    assert equals.overloaded_operator_to_python_operator is operator.eq
    assert not named.is_overloaded_operator() and not named.is_conversion_operator()
    assert [t.name for t in plus.param_types] == ["const Vec2 &", "const Vec2 &"]
    with pytest.raises(ValueError, match="operator_count"):
        named.overloaded_operator_to_python_operator  # noqa: B018

    fixed = parse("conversion_operators.cuh").structs[0]
    assert [m.name for m in fixed.conversion_operators()] == [
        "operator float",
        "operator bool",
        "operator int",
    ]
    widget = next(s for s in parse("constructors.cuh").structs if s.name == "Widget")
    moves = [m.is_move_constructor for m in widget.constructors()]
    assert moves == [False, False, True, False, False, False, False, False]
    holder = parse("class_templates.cuh").class_templates[1]
    assert holder.record.methods[0].decl_name == "Holder"


def test_instantiate_spells_template_ids():
    decls = parse("constexpr_templates.cuh")
    size, tagged = decls.class_templates
    (total,) = decls.function_templates
    two, three = size.instantiate(N=2), size.instantiate(N=3)
    assert two.get_instantiated_c_stmt() == "Size<2>"
    assert two.get_instantiated_c_stmt(use_qual_name=True) == "cx::Size<2>"
    call = total.instantiate(B=three, A=two)  # by name, in any order
    assert call.get_instantiated_c_stmt() == "total<Size<2>, Size<3>>"
    assert call.get_instantiated_c_stmt(use_qual_name=True) == "cx::total<cx::Size<2>, cx::Size<3>>"
    assert call.function is total.function and two.record is size.record
    # A skipped parameter before a given one takes its default; bools are C++ bools.
    flagged = tagged.instantiate(T="float", Flag=True)
    assert flagged.get_instantiated_c_stmt() == "Tagged<float, 4, true>"
    assert tagged.tparam_dict["N"].default == "4"
    with pytest.raises(ValueError, match="no template parameter named X"):
        total.instantiate(X=1)
    with pytest.raises(ValueError, match="N has no argument and no default"):
        size.instantiate().get_instantiated_c_stmt()


def test_evaluate_constexpr_value_asks_clang():
    decls = parse("constexpr_templates.cuh")
    size = decls.class_templates[0]
    (total,) = decls.function_templates
    two, three = size.instantiate(N=2), size.instantiate(N=3)
    assert total.instantiate(A=two, B=three).evaluate_constexpr_value(two, three) == 5
    with pytest.raises(ValueError, match="not constexpr"):
        parse("function_templates.cuh").function_templates[0].instantiate(
            T="int"
        ).evaluate_constexpr_value(1)


def test_specializations_answer_like_records():
    (spec,) = [s for s in parse("class_templates.cuh").class_template_specializations]
    assert (spec.specialized_name, spec.base_name, spec.actual_template_arguments) == (
        "Vec<float, 2>",
        "Vec",
        ["float", "2"],
    )
    assert (spec.sizeof_, spec.alignof_, [f.name for f in spec.fields]) == (8, 4, ["x", "y"])
    assert [m.name for m in spec.methods] == ["get"]
    assert spec.is_explicit


def test_cuda_header_mode_reads_a_vendored_toolkit_header():
    from ast_canopy import parse_declarations_from_source

    header = str(DATA / "vendored_toolkit" / "cuda.h")
    # clang's CUDA wrapper includes the toolkit's cuda.h first; this copy is then skipped.
    assert parse_declarations_from_source(header, [header], "sm_90").functions == []
    decls = parse_declarations_from_source(header, [header], "sm_90", cuda_header_mode=True)
    (init,) = decls.functions
    assert (init.name, init.exec_space, init.parse_entry_point) == (
        "vendoredInit",
        ExecutionSpace.UNDEFINED,
        header,
    )
    assert [s.name for s in decls.structs] == ["vendoredHandle_st"]
    assert [e.name for e in decls.enums] == ["vendoredFlags_enum"]


def test_value_from_constexpr_vardecl_types_its_value():
    from ast_canopy import value_from_constexpr_vardecl

    source = "constexpr float f4 = 3.14;\nconstexpr unsigned long long u8 = 42;\n"
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no clang_binary: no warning
        f4 = value_from_constexpr_vardecl(source, "f4", "sm_80")
    assert (f4.value, f4.value_serialized) == (3.14, "3.14")
    assert value_from_constexpr_vardecl(source, "u8", "sm_80").value == 42

"""ast_canopy on structs and classes: layout, access, constructors, conversions, member
operators, methods, class templates. Each test header under tests/data/parser/ shows one feature."""

from __future__ import annotations

import functools
from pathlib import Path

import pytest

from ast_canopy import Access, Declarations, ExecutionSpace, MethodKind, TypeKind

DATA = Path(__file__).parent / "data" / "parser"


@functools.cache
def parse(name: str) -> Declarations:
    from ast_canopy import parse_declarations_from_source

    header = DATA / name
    return parse_declarations_from_source(str(header), [str(header)], "sm_90")


def struct(decls: Declarations, qual_name: str):
    found = [s for s in decls.structs if s.qual_name == qual_name]
    assert len(found) == 1, [s.qual_name for s in decls.structs]
    return found[0]


def test_fields_access_offsets_and_layout():
    decls = parse("struct_access.cuh")
    assert [s.name for s in decls.structs] == ["Point", "Counter", "Base", "Derived", "Aligned"]

    point = struct(decls, "Point")
    assert (point.sizeof_, point.alignof_, point.tag) == (24, 8, "struct")
    assert [(f.name, f.access, f.offset) for f in point.fields] == [
        ("x", Access.PUBLIC, 0),
        ("y", Access.PUBLIC, 4),
        ("tag", Access.PROTECTED, 8),
        ("weight", Access.PRIVATE, 16),
    ]
    assert point.fields[3].type_.name == "double"
    assert point.fields[3].type_.kind is TypeKind.BUILTIN

    counter = struct(decls, "Counter")
    assert counter.tag == "class"
    assert counter.fields[0].access is Access.PRIVATE  # a class starts private
    assert [(f.name, f.offset) for f in counter.fields] == [
        ("hidden", 0),
        ("count", 8),
        ("inner", 16),
    ]
    (inner,) = counter.nested_records
    assert (inner.qual_name, inner.sizeof_, inner.alignof_) == ("Counter::Inner", 4, 2)
    assert counter.fields[2].type_.canonical_name == "Counter::Inner"

    assert struct(decls, "Aligned").alignof_ == 16
    assert struct(decls, "Aligned").sizeof_ == 16


def test_bases_anonymous_union_members_and_bitfields():
    derived = struct(parse("struct_access.cuh"), "Derived")
    assert [(b.qual_name, b.access, b.is_virtual) for b in derived.bases] == [
        ("Base", Access.PUBLIC, False)
    ]
    by_name = {f.name: f for f in derived.fields}
    # Members of the anonymous union are members of Derived, at the union's offset.
    assert by_name["flag"].offset == 4
    assert by_name["as_float"].offset == by_name["as_int"].offset == 8
    assert by_name["bits"].is_bitfield and by_name["bits"].offset is None
    assert derived.sizeof_ == 16


def test_constructors_of_every_kind():
    widget = struct(parse("constructors.cuh"), "Widget")
    ctors = widget.constructors()
    kinds = [(m.kind, tuple(p.type_.name for p in m.params)) for m in ctors]
    assert kinds == [
        (MethodKind.DEFAULT_CONSTRUCTOR, ()),
        (MethodKind.COPY_CONSTRUCTOR, ("const Widget &",)),
        (MethodKind.MOVE_CONSTRUCTOR, ("Widget &&",)),
        (MethodKind.CONVERTING_CONSTRUCTOR, ("int",)),
        (MethodKind.CONVERTING_CONSTRUCTOR, ("float",)),
        (MethodKind.OTHER_CONSTRUCTOR, ("int", "int")),
        # Callable with one argument thanks to the default: converting.
        (MethodKind.CONVERTING_CONSTRUCTOR, ("double", "int")),
        (MethodKind.CONVERTING_CONSTRUCTOR, ("const char *",)),
    ]
    explicit = [m.params[0].type_.name for m in ctors if m.is_explicit]
    assert explicit == ["float"]
    assert [m.is_defaulted for m in ctors[:3]] == [True, True, True]
    assert ctors[6].params[1].default_value == "2"
    deleted = ctors[7]
    assert deleted.is_deleted and deleted.exec_space is ExecutionSpace.UNDEFINED
    assert all(m.exec_space is ExecutionSpace.DEVICE for m in ctors[:7])
    assert ctors[3].mangled_name == "_ZN6WidgetC1Ei"
    (dtor,) = [m for m in widget.methods if m.kind is MethodKind.DESTRUCTOR]
    assert dtor.name == "~Widget" and dtor.parent_qual_name == "Widget"


def test_conversion_functions():
    fixed = struct(parse("conversion_operators.cuh"), "Fixed")
    conversions = [
        (m.return_type.name, m.is_const, m.is_explicit, m.exec_space)
        for m in fixed.methods
        if m.kind is MethodKind.CONVERSION_FUNCTION
    ]
    assert conversions == [
        ("float", True, False, ExecutionSpace.DEVICE),
        ("bool", True, True, ExecutionSpace.DEVICE),
        ("int", False, False, ExecutionSpace.HOST_DEVICE),
    ]
    # A conversion is a method kind, not an operator symbol.
    assert all(m.operator is None for m in fixed.methods)
    assert fixed.methods[0].name == "operator float"


def test_member_operators():
    vec = struct(parse("operators.cuh"), "Vec2")
    ops = [(m.operator, m.kind, m.is_const, len(m.params)) for m in vec.methods]
    assert ops == [
        ("+=", MethodKind.MEMBER_OPERATOR, False, 1),
        ("[]", MethodKind.MEMBER_OPERATOR, True, 1),
        ("()", MethodKind.MEMBER_OPERATOR, True, 1),
        ("-", MethodKind.MEMBER_OPERATOR, True, 0),
    ]
    plus_assign = vec.methods[0]
    assert plus_assign.return_type.kind is TypeKind.LVALUE_REFERENCE
    assert plus_assign.return_type.pointee.name == "Vec2"
    assert plus_assign.params[0].type_.unqualified_non_ref_type_name == "Vec2"
    assert plus_assign.qual_name == "Vec2::operator+="


def test_const_non_const_static_and_private_methods():
    buffer = struct(parse("methods.cuh"), "Buffer")
    summary = [(m.name, m.kind, m.is_const, m.access) for m in buffer.methods]
    assert summary == [
        ("at", MethodKind.METHOD, False, Access.PUBLIC),
        ("at", MethodKind.METHOD, True, Access.PUBLIC),
        ("size", MethodKind.METHOD, True, Access.PUBLIC),
        ("clear", MethodKind.METHOD, False, Access.PUBLIC),
        ("capacity", MethodKind.STATIC_METHOD, False, Access.PUBLIC),
    ]
    # methods are the public ones (NVIDIA's model); the others are kept aside.
    assert [(m.name, m.access) for m in buffer.non_public_methods] == [
        ("reset_all", Access.PRIVATE)
    ]
    at, at_const = buffer.methods[:2]
    assert at.return_type.name == "int &" and at_const.return_type.name == "const int &"
    assert at_const.return_type.pointee.is_const
    assert at.mangled_name != at_const.mangled_name
    data = buffer.fields[0].type_
    assert (data.kind, data.array_extents, data.pointee.name, data.sizeof_) == (
        TypeKind.ARRAY,
        (4,),
        "int",
        16,
    )


def test_class_templates_and_explicit_specialization():
    decls = parse("class_templates.cuh")
    assert decls.structs == []
    assert [t.qual_name for t in decls.class_templates] == ["Vec", "Holder"]

    vec = decls.class_templates[0]
    params = [(p.name, p.kind.value, p.default, p.is_pack) for p in vec.template_parameters]
    assert params == [("T", "type", None, False), ("N", "non_type", "3", False)]
    assert vec.template_parameters[1].type_.name == "int"
    assert vec.num_min_required_args == 1
    assert vec.record.sizeof_ is None  # dependent
    data = vec.record.fields[0].type_
    assert data.name == "T[N]" and data.kind is TypeKind.ARRAY
    assert data.pointee.kind is TypeKind.DEPENDENT
    (get,) = vec.record.methods
    assert get.return_type.kind is TypeKind.DEPENDENT and get.is_const

    holder = decls.class_templates[1]
    assert holder.record.tag == "class"
    assert holder.record.fields[0].access is Access.PRIVATE
    # Constructors are named after the class, not the template-id clang spells inside it.
    ctor = holder.record.methods[0]
    assert (ctor.name, ctor.qual_name, ctor.kind.value) == (
        "Holder",
        "Holder::Holder",
        "converting_constructor",
    )

    # The explicit specialization has a real layout; the partial one is not reported.
    (spec,) = decls.class_template_specializations
    assert spec.template_qual_name == "Vec"
    assert spec.template_arguments == ("float", "2")
    assert spec.qual_name == "Vec<float, 2>"
    assert (spec.record.sizeof_, [f.offset for f in spec.record.fields]) == (8, [0, 4])
    assert spec.record.methods[0].mangled_name == "_ZNK3VecIfLi2EE3getEi"


@pytest.mark.parametrize(
    "header", ["struct_access.cuh", "constructors.cuh", "methods.cuh", "class_templates.cuh"]
)
def test_declarations_record_their_file_and_line(header):
    decls = parse(header)
    records = decls.structs + [t.record for t in decls.class_templates]
    assert records
    for record in records:
        assert record.file == str((DATA / header).resolve())
        assert record.line > 1

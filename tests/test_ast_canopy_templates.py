"""ast_canopy on what template binding needs: implicit instances named by fields and parameters,
member function templates, partial specializations, alias templates and parameter packs, with
names qualified by their namespaces everywhere. Each test header under tests/data/parser/ shows
one feature."""

from __future__ import annotations

import functools
import pickle
from pathlib import Path

from ast_canopy import Declarations, TemplateParamKind, TypeKind

DATA = Path(__file__).parent / "data" / "parser"


@functools.cache
def parse(name: str) -> Declarations:
    from ast_canopy import parse_declarations_from_source

    header = DATA / name
    return parse_declarations_from_source(str(header), [str(header)], "sm_90")


def specializations(decls: Declarations) -> dict:
    return {s.qual_name: s for s in decls.class_template_specializations}


def test_instances_named_by_fields_and_parameters_are_reported():
    decls = parse("implicit_instances.cuh")
    found = specializations(decls)
    assert set(found) == {
        "geo::Arr<float, 3>",  # a field
        "geo::Arr<geo::Pair<int>, 2>",  # a field
        "geo::Pair<int>",  # the element type of that field's instance
        "geo::Arr<float, 4>",  # a parameter, by reference
        "geo::Arr<double, 2>",  # a parameter, by value
    }  # not geo::Arr<T, 4>, which the function template names: it is dependent
    assert not any(s.is_explicit for s in found.values())

    position = found["geo::Arr<float, 3>"]
    assert position.template_qual_name == "geo::Arr"
    assert position.template_arguments == ("float", "3")
    assert (position.name, position.specialized_name) == ("Arr", "Arr<float, 3>")
    # Layout and members as clang instantiated them.
    assert (position.sizeof_, position.alignof_) == (12, 4)
    assert [(f.name, f.type_.name, f.offset) for f in position.fields] == [("v", "float[3]", 0)]
    get, set_, plus = position.methods
    assert (get.name, get.qual_name, get.return_type.name, get.is_const) == (
        "get",
        "geo::Arr<float, 3>::get",
        "float",
        True,
    )
    assert get.mangled_name == "_ZNK3geo3ArrIfLi3EE3getEi"
    assert [p.type_.name for p in set_.params] == ["int", "float"]
    # The class's own name inside it is the instance.
    assert plus.return_type.fully_qualified_name == "geo::Arr<float, 3>"
    assert plus.params[0].type_.fully_qualified_name == "const geo::Arr<float, 3> &"

    links = found["geo::Arr<geo::Pair<int>, 2>"]
    assert links.template_arguments == ("geo::Pair<int>", "2")
    assert links.fields[0].type_.canonical_name == "geo::Pair<int>[2]"
    pair = found["geo::Pair<int>"]
    assert [(f.name, f.offset) for f in pair.fields] == [("first", 0), ("second", 4)]


def test_an_instance_clang_did_not_complete_has_no_layout():
    # `float norm(const Arr<float, 4> &)` is a declaration: nothing made clang instantiate it.
    by_ref = specializations(parse("implicit_instances.cuh"))["geo::Arr<float, 4>"]
    assert by_ref.sizeof_ is None and by_ref.alignof_ is None
    assert by_ref.fields == () and by_ref.methods == ()
    # By value in a definition, the instance is complete.
    by_value = specializations(parse("implicit_instances.cuh"))["geo::Arr<double, 2>"]
    assert (by_value.sizeof_, by_value.fields[0].type_.name) == (16, "double[2]")


def test_types_spell_namespaces_fully():
    decls = parse("implicit_instances.cuh")
    (body,) = decls.structs
    position = body.fields[0].type_
    # As written, canonical, and fully qualified: the last is what generated C++ should use.
    assert (position.name, position.canonical_name, position.fully_qualified_name) == (
        "Arr<float, 3>",
        "geo::Arr<float, 3>",
        "geo::Arr<float, 3>",
    )
    assert body.fields[1].type_.fully_qualified_name == "geo::Arr<geo::Pair<int>, 2>"
    norm = next(f for f in decls.functions if f.name == "norm")
    assert norm.qual_name == "geo::norm"
    assert norm.params[0].type_.fully_qualified_name == "const geo::Arr<float, 4> &"
    (arr, pair) = decls.class_templates
    assert (arr.qual_name, arr.record.qual_name, pair.qual_name) == (
        "geo::Arr",
        "geo::Arr",
        "geo::Pair",
    )
    assert arr.record.methods[0].qual_name == "geo::Arr::get"
    plus = arr.record.methods[2]
    assert plus.params[0].type_.fully_qualified_name == "const geo::Arr<T, N> &"
    # A function template over a namespaced class template: the probe must spell geo::Arr.
    (head,) = decls.function_templates
    assert head.qual_name == "geo::head"
    assert head.function.params[0].type_.name == "const Arr<T, 4> &"
    assert head.function.params[0].type_.fully_qualified_name == "const geo::Arr<T, 4> &"


def test_member_function_templates():
    decls = parse("member_templates.cuh")
    (scale,) = decls.structs
    (apply,) = scale.templated_methods  # the private `hidden` is not listed
    assert (apply.qual_name, apply.function.is_const) == ("mt::Scale::apply", True)
    assert [(p.name, p.kind) for p in apply.template_parameters] == [("T", TemplateParamKind.TYPE)]
    assert apply.function.return_type.kind is TypeKind.DEPENDENT

    (box,) = decls.class_templates
    as_, mixed = box.record.templated_methods
    assert (as_.qual_name, [p.name for p in as_.template_parameters]) == ("mt::Box::as", ["U"])
    params = [(p.name, p.kind, p.default) for p in mixed.template_parameters]
    assert params == [("U", TemplateParamKind.TYPE, None), ("K", TemplateParamKind.NON_TYPE, "2")]
    assert mixed.num_min_required_args == 1
    assert [p.type_.name for p in mixed.function.params] == ["U"]
    # No symbol until instantiated: distinct, deterministic stand-ins.
    assert as_.function.mangled_name.startswith("mt__Box__as__dependent_signature__")
    assert as_.function.mangled_name != mixed.function.mangled_name
    again = parse.__wrapped__("member_templates.cuh")
    assert again.class_templates[0].record.templated_methods[0].function.mangled_name == (
        as_.function.mangled_name
    )


def test_partial_specializations():
    decls = parse("partial_specializations.cuh")
    assert [t.qual_name for t in decls.class_templates] == ["ps::Grid"]
    one, pointers = decls.class_template_partial_specializations
    assert (one.qual_name, one.name) == ("ps::Grid<T, 1>", "Grid")
    assert one.template_qual_name == "ps::Grid"
    assert one.template_arguments == ("T", "1")
    assert [(p.name, p.kind) for p in one.template_parameters] == [("T", TemplateParamKind.TYPE)]
    assert [f.name for f in one.record.fields] == ["only"]
    assert [m.name for m in one.record.methods] == ["get"]
    assert one.record.sizeof_ is None  # dependent

    assert pointers.template_arguments == ("T *", "N")
    assert [p.name for p in pointers.template_parameters] == ["T", "N"]
    assert pointers.record.fields[0].type_.name == "T *[N]"


def test_alias_templates():
    decls = parse("alias_templates.cuh")
    aliases = {a.qual_name: a for a in decls.alias_templates}
    assert list(aliases) == ["al::V3", "al::Floats", "Ptr"]
    v3 = aliases["al::V3"]
    assert [(p.name, p.kind) for p in v3.template_parameters] == [("T", TemplateParamKind.TYPE)]
    assert (v3.underlying_type.name, v3.underlying_name) == ("Vec<T, 3>", "al::Vec<T, 3>")
    assert v3.underlying_type.kind is TypeKind.DEPENDENT
    floats = aliases["al::Floats"]
    assert floats.template_parameters[0].type_.name == "int"
    assert floats.underlying_name == "al::Vec<float, N>"
    assert aliases["Ptr"].underlying_type.kind is TypeKind.POINTER
    assert decls.typedefs == []  # alias templates are not typedefs


def test_parameter_packs_are_flagged():
    decls = parse("parameter_packs.cuh")
    templates = {t.qual_name: t for t in decls.class_templates}
    (ts,) = templates["Tuple"].template_parameters
    assert (ts.name, ts.kind, ts.is_pack) == ("Ts", TemplateParamKind.TYPE, True)
    assert templates["Tuple"].num_min_required_args == 0
    scale, ns = templates["Dims"].template_parameters
    assert (scale.is_pack, ns.is_pack, ns.kind, ns.type_.name) == (
        False,
        True,
        TemplateParamKind.NON_TYPE,
        "int",
    )
    (wrappers,) = templates["Wrapped"].template_parameters
    assert (wrappers.kind, wrappers.is_pack) == (TemplateParamKind.TEMPLATE, True)

    (first_of,) = decls.function_templates
    assert [(p.name, p.is_pack) for p in first_of.template_parameters] == [
        ("T", False),
        ("Rest", True),
    ]
    assert first_of.num_min_required_args == 1

    # Instances: one argument per argument, and (NVIDIA's layout) one entry per parameter.
    found = specializations(decls)
    tuple_ = found["Tuple<int, float, double>"]
    assert tuple_.template_arguments == ("int", "float", "double")
    assert tuple_.actual_template_arguments == ["int, float, double"]
    dims = found["Dims<float, 2, 3>"]
    assert dims.actual_template_arguments == ["float", "2, 3"]
    assert [(f.name, f.offset) for f in dims.fields] == [("scale", 0)]


def test_template_declarations_pickle():
    for name in (
        "implicit_instances.cuh",
        "member_templates.cuh",
        "partial_specializations.cuh",
        "alias_templates.cuh",
        "parameter_packs.cuh",
    ):
        decls = parse(name)
        assert pickle.loads(pickle.dumps(decls)) == decls

"""ast_canopy on template parameter defaults as libraries write them: inside a namespace (CUB's
``BLOCK_REDUCE_WARP_REDUCTIONS``, ``detail::warp_threads``, ``NullType``), through macros
(libcu++'s ``_CCCL_REQUIRES``), ending in ``>>``. Each default keeps its text as written and
gets a fully qualified text that means the same at global scope; every template records the
namespace its defaults are written in."""

from __future__ import annotations

import functools
from pathlib import Path

from support import compile_cuda_source_to_ltoir

from ast_canopy import Declarations, TemplateParamKind

DATA = Path(__file__).parent / "data" / "parser"


@functools.cache
def parse(name: str) -> Declarations:
    from ast_canopy import parse_declarations_from_source

    header = DATA / name
    return parse_declarations_from_source(str(header), [str(header)], "sm_90")


def defaults_of(template) -> dict[str, tuple[str | None, str | None]]:
    return {p.name: (p.default, p.default_qualified) for p in template.template_parameters}


def test_defaults_written_in_a_namespace_are_qualified():
    decls = parse("template_defaults.cuh")
    reducer = next(t for t in decls.class_templates if t.name == "Reducer")
    assert reducer.enclosing_namespace == "lib"
    assert defaults_of(reducer) == {
        "T": (None, None),
        "A": ("ALGO_WARP", "lib::ALGO_WARP"),  # an unscoped enumerator: no enum name needed
        "Threads": ("detail::warp_threads", "lib::detail::warp_threads"),
        "Extra": ("NullType", "lib::NullType"),
        # The `>>` closes the default, not the parameter list.
        "Cmp": ("detail::less<detail::less<T>>", "lib::detail::less<lib::detail::less<T>>"),
        "M": ("Mode::exact", "lib::Mode::exact"),
        "Small": ("is_small_v<T>", "lib::is_small_v<T>"),  # a variable template
        "Twice": ("twice<T>()", "lib::twice<T>()"),  # a function template
        "Marker": ("Tag", "lib::Tag"),  # behind an inline namespace, which C++ lets us skip
    }
    kinds = [p.kind for p in reducer.template_parameters]
    assert kinds[1] is TemplateParamKind.NON_TYPE and kinds[3] is TemplateParamKind.TYPE
    assert reducer.template_parameters[1].type_.canonical_name == "lib::Algorithm"
    assert reducer.num_min_required_args == 1


def test_every_kind_of_template_records_its_namespace():
    decls = parse("template_defaults.cuh")
    reducer = next(t for t in decls.class_templates if t.name == "Reducer")
    (member,) = reducer.record.templated_methods
    assert member.enclosing_namespace == "lib"
    assert defaults_of(member) == {
        "U": ("NullType", "lib::NullType"),
        "K": ("detail::warp_threads", "lib::detail::warp_threads"),
    }
    scale = next(t for t in decls.function_templates if t.name == "scale")
    assert (scale.enclosing_namespace, defaults_of(scale)["N"]) == (
        "lib",
        ("detail::warp_threads", "lib::detail::warp_threads"),
    )
    (alias,) = decls.alias_templates
    assert (alias.enclosing_namespace, defaults_of(alias)["E"]) == (
        "lib",
        ("NullType", "lib::NullType"),
    )
    glob = next(t for t in decls.class_templates if t.name == "Global")
    assert (glob.enclosing_namespace, defaults_of(glob)["T"]) == (
        "",
        ("lib::NullType", "lib::NullType"),
    )


def test_qualified_defaults_mean_the_same_at_global_scope():
    """Spell every default of Reducer<int> at global scope: NVRTC must find the same type."""
    decls = parse("template_defaults.cuh")
    reducer = next(t for t in decls.class_templates if t.name == "Reducer")
    arguments = ["int"] + [
        p.default_qualified.replace("<T>", "<int>") for p in reducer.template_parameters[1:]
    ]
    source = (
        f'#include "{DATA / "template_defaults.cuh"}"\n'
        "template <class A, class B> struct same { static constexpr bool value = false; };\n"
        "template <class A> struct same<A, A> { static constexpr bool value = true; };\n"
        f"static_assert(same<lib::Reducer<int>, lib::Reducer<{', '.join(arguments)}>>::value);\n"
        "__device__ int use() { return 0; }\n"
    )
    assert compile_cuda_source_to_ltoir(source, "defaults.cu")


def test_parameters_written_by_macros_take_their_expanded_defaults():
    decls = parse("macro_template_params.cuh")
    four, widened = decls.function_templates
    assert [p.name for p in four.template_parameters] == ["T", "mt_true_", ""]
    _, flag, enabler = four.template_parameters
    assert (flag.default, flag.default_qualified) == ("true", "true")
    assert flag.type_.name == "bool" and not flag.is_pack
    # The unnamed enable_if parameter: its default and its type come from the expansion.
    assert (enabler.kind, enabler.default) == (TemplateParamKind.NON_TYPE, "0")
    assert four.num_min_required_args == 1
    assert four.enclosing_namespace == "mt"
    # Written in place, the default stays as written (a macro name); qualified, it is expanded.
    (_, width) = widened.template_parameters
    assert (width.default, width.default_qualified) == ("MT_DEFAULT_WIDTH", "mt::detail::width")

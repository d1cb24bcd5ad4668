"""ast_canopy's API: enums, typedefs, constexpr variables, retained files and inclusions, errors,
command-line options, pickling, and the promise that importing ast_canopy does not load clang."""

from __future__ import annotations

import functools
import logging
import os
import pickle
import subprocess
import sys
from pathlib import Path

import pytest

from ast_canopy import Declarations, TypeKind

DATA = Path(__file__).parent / "data" / "parser"


@functools.cache
def parse(name: str) -> Declarations:
    from ast_canopy import parse_declarations_from_source

    header = DATA / name
    return parse_declarations_from_source(str(header), [str(header)], "sm_90")


def test_enums_plain_and_scoped_with_underlying_types():
    enums = {e.qual_name: e for e in parse("enums.cuh").enums}
    summary = {
        name: (e.enumerators, e.enumerator_ints, e.underlying_type.name, e.is_scoped)
        for name, e in enums.items()
    }
    assert summary == {
        "Color": (("RED", "GREEN", "BLUE"), (0, 5, 6), "unsigned int", False),
        "Mode": (("Off", "On", "Auto"), (0, 1, 255), "unsigned char", True),
        "Sign": (("Negative", "Zero", "Positive"), (-1, 0, 1), "short", False),
        "gfx::Filter": (("Nearest", "Linear"), (0, 1 << 40), "long long", True),
        # typedef enum {...} greek_t: the enum takes the typedef's name.
        "greek_t": (("ALPHA", "BETA"), (1, 2), "unsigned int", False),
    }
    assert enums["Mode"].underlying_type.sizeof_ == 1
    # NVIDIA's layout: the values as decimal text.
    assert enums["Sign"].enumerator_values == ("-1", "0", "1")
    assert enums["gfx::Filter"].enumerator_values == ("0", str(1 << 40))
    # `typedef enum {...} greek_t;` is also a typedef of greek_t to itself.
    assert [(t.name, t.underlying_name) for t in parse("enums.cuh").typedefs] == [
        ("greek_t", "greek_t")
    ]


def test_typedefs_and_using():
    decls = parse("typedefs.cuh")
    typedefs = {t.qual_name: t for t in decls.typedefs}
    summary = {
        name: (t.underlying_name, t.underlying_type.canonical_name, t.underlying_type.kind)
        for name, t in typedefs.items()
    }
    assert summary == {
        "real_t": ("float", "float", TypeKind.BUILTIN),
        "index_t": ("unsigned int", "unsigned int", TypeKind.BUILTIN),
        "real_ptr": ("const real_t *", "const float *", TypeKind.POINTER),
        "pair_t": ("Pair", "Pair", TypeKind.RECORD),
        "pair_ref": ("const Pair &", "const Pair &", TypeKind.LVALUE_REFERENCE),
        "triple_t": ("int[3]", "int[3]", TypeKind.ARRAY),
        "ns::real": ("real_t", "float", TypeKind.BUILTIN),
        # typedef struct {...} halves_t; is the struct halves_t and a typedef of it to itself.
        "halves_t": ("halves_t", "halves_t", TypeKind.RECORD),
    }
    assert typedefs["triple_t"].underlying_type.array_extents == (3,)
    assert typedefs["real_ptr"].underlying_type.pointee.is_const
    assert [s.name for s in decls.structs] == ["Pair", "halves_t"]
    assert decls.structs[1].sizeof_ == 4


def test_constexpr_variables():
    variables = {v.qual_name: v for v in parse("constexpr_vars.cuh").constexpr_vars}
    values = {
        name: (v.value, v.value_serialized, v.type_.unqualified_non_ref_type_name)
        for name, v in variables.items()
    }
    assert values == {
        "kAnswer": (42, "42", "int"),
        "kHalf": (0.5, "0.5", "float"),
        # The shortest text that is the same float: 3.14, not 3.140000104904175.
        "kPi": (3.14, "3.14", "float"),
        "kThird": (0.33333334, "0.33333334", "float"),
        "kScale": (0.25, "0.25", "double"),
        "kEnabled": (True, "true", "bool"),
        "kBig": (1 << 40, str(1 << 40), "unsigned long long"),
        "kNegative": (-7, "-7", "int"),
        "kComputed": (85, "85", "int"),
        "limits::kMax": (32767, "32767", "short"),
    }
    assert all(type(v.value) is bool for v in variables.values() if v.type_.name == "const bool")
    assert variables["kAnswer"].type_.is_const
    assert "kNotConstexpr" not in values


def test_value_from_constexpr_vardecl():
    from ast_canopy import value_from_constexpr_vardecl

    source = "namespace cfg { constexpr int kLanes = 4 * 8; }\nconstexpr double kRate = 1.5;\n"
    lanes = value_from_constexpr_vardecl(source, "cfg::kLanes", "sm_90")
    assert (lanes.name, lanes.value, lanes.value_serialized) == ("kLanes", 32, "32")
    assert value_from_constexpr_vardecl(source, "kRate", "sm_90").value == 1.5
    assert value_from_constexpr_vardecl(source, "missing", "sm_90") is None


def test_retained_files_and_included_files():
    from ast_canopy import parse_declarations_from_source

    main, second = DATA / "includes_main.cuh", DATA / "includes_second.cuh"
    only_main = parse("includes_main.cuh")
    assert [f.name for f in only_main.functions] == ["make_second"]
    assert only_main.structs == []

    both = parse_declarations_from_source(str(main), [str(main), str(second)], "sm_90")
    assert [f.name for f in both.functions] == ["read_second", "make_second"]
    assert [s.name for s in both.structs] == ["Second"]
    assert both.functions[0].file == str(second.resolve())

    # Paths are compared by realpath: a symlink or a "dir/../" spelling still matches.
    roundabout = f"{DATA}/../parser/includes_second.cuh"
    via_other_spelling = parse_declarations_from_source(str(main), [roundabout], "sm_90")
    assert [f.name for f in via_other_spelling.functions] == ["read_second"]

    included = both.included_files
    assert included[0] == str(main.resolve())
    assert str(second.resolve()) in included
    assert any(path.endswith("/cuda_runtime.h") for path in included)
    assert all(os.path.isabs(path) and os.path.exists(path) for path in included)


def test_syntax_errors_are_all_reported():
    from ast_canopy import ParseError, parse_declarations_from_source

    header = DATA / "syntax_error.cuh"
    with pytest.raises(ParseError) as caught:
        parse_declarations_from_source(str(header), [str(header)], "sm_90")
    error = caught.value
    assert error.header == str(header)
    assert error.diagnostics == [
        f"{header}:7:1: error: expected ')'",
        f"{header}:13:12: error: unknown type name 'undeclared_type'",
    ]
    assert "syntax_error.cuh" in str(error) and "bypass_parse_error=True" in str(error)


def test_bypass_parse_error_keeps_what_clang_read(caplog):
    from ast_canopy import parse_declarations_from_source

    header = DATA / "syntax_error.cuh"
    with caplog.at_level(logging.WARNING, logger="ast_canopy"):
        decls = parse_declarations_from_source(
            str(header), [str(header)], "sm_90", bypass_parse_error=True
        )
    assert "fine" in [f.name for f in decls.functions]
    assert [s.name for s in decls.structs] == ["Good"]
    assert "2 clang error(s) ignored" in caplog.text


def test_missing_header_and_directories():
    from ast_canopy import parse_declarations_from_source

    with pytest.raises(FileNotFoundError, match="no_such_header.cuh"):
        parse_declarations_from_source("no_such_header.cuh", ["no_such_header.cuh"], "sm_90")
    header = str(DATA / "enums.cuh")
    with pytest.raises(FileNotFoundError, match="no_such_dir"):
        parse_declarations_from_source(
            header, [header], "sm_90", additional_includes=["no_such_dir"]
        )
    with pytest.raises(TypeError, match="list of paths"):
        parse_declarations_from_source(header, header, "sm_90")


@pytest.mark.parametrize("arch", ["hopper", "sm_9", "sm_90x", "", "compute"])
def test_malformed_arch_is_a_value_error(arch):
    from ast_canopy import parse_declarations_from_source

    header = str(DATA / "enums.cuh")
    with pytest.raises(ValueError, match="unknown GPU arch"):
        parse_declarations_from_source(header, [header], arch)


def test_arch_clang_does_not_know_is_a_value_error():
    from ast_canopy import parse_declarations_from_source

    header = str(DATA / "enums.cuh")
    with pytest.raises(ValueError, match="sm_99"):
        parse_declarations_from_source(header, [header], "sm_99")


@pytest.mark.parametrize("arch", ["sm_90", "90", "9.0", 90])
def test_arch_spellings(arch):
    from ast_canopy import parse_declarations_from_source

    header = str(DATA / "enums.cuh")
    assert len(parse_declarations_from_source(header, [header], arch).enums) == 5


def test_defines_and_additional_includes(caplog):
    from ast_canopy import parse_declarations_from_source

    header = str(DATA / "defines.cuh")
    include_dir = str(DATA / "include_dir")
    with caplog.at_level(logging.INFO, logger="ast_canopy"):
        decls = parse_declarations_from_source(
            header,
            [header],
            "sm_90",
            additional_includes=[include_dir],
            defines=["WITH_EXTRA", "SCALE=7"],
            verbose=True,
        )
    assert [f.name for f in decls.functions] == ["extra_function", "make_extra"]
    assert decls.functions[1].params[0].default_value == "SCALE"
    assert decls.functions[1].return_type.sizeof_ == 4
    # verbose logs the command line (never prints it).
    assert f"-I{include_dir}" in caplog.text and "-DSCALE=7" in caplog.text

    plain = parse_declarations_from_source(
        header, [header], "sm_90", additional_includes=[include_dir], defines=["SCALE=1"]
    )
    assert [f.name for f in plain.functions] == ["make_extra"]


def test_declarations_pickle_and_compare():
    for name in ("constructors.cuh", "class_templates.cuh", "function_templates.cuh"):
        decls = parse(name)
        clone = pickle.loads(pickle.dumps(decls))
        assert clone == decls
        assert clone is not decls


def test_importing_ast_canopy_does_not_load_clang():
    code = (
        "import sys, ast_canopy\n"
        "ast_canopy.Struct, ast_canopy.Enum, ast_canopy.ParseError, ast_canopy.Declarations\n"
        "loaded = sorted(m for m in sys.modules if m == 'clang' or m.startswith('clang.'))\n"
        "assert not loaded, loaded\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)

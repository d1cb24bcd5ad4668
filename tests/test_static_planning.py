"""The static generator's building blocks: Numba types described as data resolve to the same
types as dynamic binding's table, the per-arch merge, the literals the module writer emits and
the runtime copy a standalone module carries."""

from __future__ import annotations

import ast
import dataclasses
import importlib.util
from pathlib import Path

import pytest

import numbast
from ast_canopy.model import (
    Declarations,
    ExecutionSpace,
    Field,
    Function,
    ParamVar,
    Struct,
    Type,
    TypeKind,
)
from numbast.planning.declarations import remove_prefix
from numbast.planning.type_refs import is_integer, static_type_table
from numbast.static.arch_merge import (
    ArchMismatchError,
    arch_condition,
    guard_shim,
    merge_declarations,
)
from numbast.static.literals import literal, source_literal
from numbast.static.runtime_copy import FEATURES, runtime_sources


def _evaluate(ref):
    from numbast.runtime.row_types import resolve_types

    return resolve_types([ref.description], (), ())[0]


def _builtin(name: str, kind=TypeKind.BUILTIN) -> Type:
    return Type(name, name, name, kind)


def test_spelled_types_build_what_dynamic_binding_maps_to():
    from numbast.dynamic import numba_types

    table = static_type_table()
    expected = {**numba_types._BUILTINS, **numba_types._vector_type_table()}
    assert expected  # builtins and the CUDA vector types
    for cxx_name, numba_type in expected.items():
        assert _evaluate(table.lookup(cxx_name)) == numba_type, cxx_name
    pointer = Type("float *", "float *", "float *", TypeKind.POINTER, pointee=_builtin("float"))
    array = Type(
        "int[2][3]", "int[2][3]", "int[2][3]", TypeKind.ARRAY, pointee=_builtin("int"),
        array_extents=(2, 3),
    )  # fmt: skip
    for cxx_type in (pointer, array):
        assert _evaluate(table.to_type(cxx_type)) == numba_types.to_numba_type(cxx_type)


def test_integer_check_matches_numba():
    from numba.cuda import types

    table = static_type_table()
    for cxx_name in ("char", "unsigned long long", "int", "bool", "float"):
        expr = table.lookup(cxx_name)
        assert is_integer(expr) == isinstance(_evaluate(expr), types.Integer), cxx_name


def test_remove_prefix():
    assert remove_prefix("mylib_add", ("other_", "mylib_")) == "add"
    assert remove_prefix("mylib_", ("mylib_",)) == "mylib_"  # nothing would be left
    assert remove_prefix("add", ("mylib_",)) == "add"


# -- several arches ---------------------------------------------------------------------------

INT = _builtin("int")


def _function(name: str, space=ExecutionSpace.DEVICE) -> Function:
    return Function(name, name, INT, (ParamVar("x", INT),), space, mangled_name=f"_Z{name}i")


def _struct(size: int) -> Struct:
    return Struct("s", "s", size, 4, fields=(Field("a", INT, offset=0),))


def test_merge_keeps_the_union_and_remembers_partial_declarations():
    common, newer, host_on_80 = _function("common"), _function("newer"), _function("h")
    sm80 = Declarations(
        functions=[common, dataclasses.replace(host_on_80, exec_space=ExecutionSpace.HOST)]
    )
    sm90 = Declarations(functions=[common, newer, host_on_80], structs=[_struct(4)])
    merged = merge_declarations([("sm_80", sm80), ("sm_90", sm90)], "h.cuh")
    assert [f.name for f in merged.decls.functions] == ["common", "h", "newer"]
    assert merged.arches_of("_Zcommoni") is None
    assert merged.arches_of("_Zneweri") == ("sm_90",)
    assert merged.arches_of("_Zhi") == ("sm_90",)  # host-only on sm_80 counts as absent
    h = next(f for f in merged.decls.functions if f.name == "h")
    assert h.exec_space is ExecutionSpace.DEVICE


def test_merge_refuses_a_struct_whose_layout_differs():
    sm80 = Declarations(structs=[_struct(4)])
    sm90 = Declarations(structs=[_struct(8)])
    with pytest.raises(ArchMismatchError, match="struct s in h.cuh.*sm_90.*one module per arch"):
        merge_declarations([("sm_80", sm80), ("sm_90", sm90)], "h.cuh")


def test_arch_conditions_and_guarded_shims():
    assert arch_condition("sm_90") == "(__CUDA_ARCH__ == 900)"
    assert arch_condition("sm_100") == "(__CUDA_ARCH__ == 1000)"
    assert arch_condition("sm_90a") == (
        "(__CUDA_ARCH__ == 900 && defined(__CUDA_ARCH_FEAT_SM90_ALL))"
    )
    guarded = guard_shim("int f();\n", 'f "x"', ["sm_90"], ["sm_80", "sm_90"])
    assert guarded.startswith("#if defined(__CUDA_ARCH__) && ((__CUDA_ARCH__ == 900))\nint f();\n")
    assert "#error \"numbast: f 'x' is declared for sm_90 only" in guarded
    assert guarded.endswith("#endif\n")


# -- literals ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "value",
    [
        ("a", 1, None, True, (2, ("x",))),
        ('quote " and \\ backslash\nnew line\ttab é \U0001f600', ()),
        (),
    ],
)
def test_literals_round_trip(value):
    assert eval(literal(value)) == value


def test_embedded_sources_round_trip():
    for _name, text in runtime_sources():
        assert eval(source_literal(text)) == text
    tricky = "ends with a quote '"
    assert eval(source_literal(tricky)) == tricky


SOURCES = Path(numbast.__file__).parent


def test_the_runtime_copy_holds_what_apply_needs_dependencies_first():
    sources = runtime_sources()
    names = [name for name, _source in sources]
    assert "runtime.apply" in names and "runtime.templates.classes" in names
    assert "core.rows" in names
    assert "runtime.pointers" not in names  # element_pointer is for users' kernels, not modules

    def imported(name, node):  # the modules (named as runtime_sources names them) imported
        package = f"numbast.{name}".rpartition(".")[0]
        target = importlib.util.resolve_name("." * node.level + (node.module or ""), package)
        candidates = [target] + [f"{target}.{alias.name}" for alias in node.names]
        names = [c[len("numbast.") :] for c in candidates]
        return [n for n in names if (SOURCES / f"{n.replace('.', '/')}.py").is_file()]

    for position, (name, source) in enumerate(sources):
        for node in ast.parse(source).body:  # module-level imports: loaded before
            if isinstance(node, ast.ImportFrom) and node.level:
                for module in imported(name, node):
                    assert module in names[:position], (name, module)
        for node in ast.walk(ast.parse(source)):  # imports anywhere: carried
            if isinstance(node, ast.ImportFrom) and node.level:
                for module in imported(name, node):
                    assert module in names, (name, module)
    # What a copy for rows using no feature leaves out is exactly what the features bring: a
    # module imported lazily is carried or brought by a feature.
    base = dict(runtime_sources(()))
    brought = {n for feature in FEATURES for n, _ in runtime_sources([feature])} - set(base)
    assert brought and "runtime.templates.classes" in brought
    assert {"runtime.apply", "runtime.shim_library", "core.rows"} <= set(base)
    for name, source in base.items():
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.ImportFrom) and node.level:
                for module in imported(name, node):
                    assert module in base or module in brought, (name, module)

"""ast_canopy on the CUDA toolkit's own headers (found by cuda.pathfinder), each with its .hpp.

"Distinct" functions are counted by mangled name: the .h declares and the .hpp defines the same
function, which the parser already reports once, and overloads have different mangled names.
"""

from __future__ import annotations

import functools
from pathlib import Path

import pytest

from ast_canopy import Declarations, ExecutionSpace, MethodKind


@functools.cache
def parse_toolkit_header(name: str) -> Declarations:
    from ast_canopy import parse_declarations_from_source
    from ast_canopy.toolkit import cudart_include_dir

    include = Path(cudart_include_dir())
    header, impl = include / f"{name}.h", include / f"{name}.hpp"
    return parse_declarations_from_source(str(header), [str(header), str(impl)], "sm_90")


def device_free_functions(decls: Declarations) -> set[str]:
    return {f.mangled_name for f in decls.functions if f.exec_space.is_device_callable}


def test_cuda_fp16():
    decls = parse_toolkit_header("cuda_fp16")
    assert [s.name for s in decls.structs] == ["__half_raw", "__half2_raw", "__half", "__half2"]
    device = [f for f in decls.functions if f.exec_space.is_device_callable]
    assert len(device_free_functions(decls)) >= 278
    assert len(device) == len(device_free_functions(decls))  # redeclarations merged
    operators = {(f.operator, f.mangled_name) for f in device if f.is_operator}
    assert len(operators) >= 40
    assert {op for op, _ in operators} >= {"+", "-", "*", "/", "==", "!=", "<", ">=", "++", "+="}

    half = next(s for s in decls.structs if s.name == "__half")
    assert (half.sizeof_, half.alignof_) == (2, 2)
    kinds = {m.kind for m in half.methods}
    assert {MethodKind.DEFAULT_CONSTRUCTOR, MethodKind.CONVERTING_CONSTRUCTOR} <= kinds
    assert MethodKind.CONVERSION_FUNCTION in kinds
    to_float = next(m for m in half.methods if m.name == "operator float")
    assert to_float.is_const and to_float.exec_space is ExecutionSpace.HOST_DEVICE

    half2 = next(s for s in decls.structs if s.name == "__half2")
    assert [(f.name, f.type_.name, f.offset) for f in half2.fields] == [
        ("x", "__half", 0),
        ("y", "__half", 2),
    ]
    hadd = next(f for f in decls.functions if f.name == "__hadd")
    assert [p.type_.name for p in hadd.params] == ["const __half", "const __half"]
    assert hadd.return_type.name == "__half"
    assert {"half", "half2"} <= {t.name for t in decls.typedefs}


def test_cuda_bf16():
    decls = parse_toolkit_header("cuda_bf16")
    assert [s.name for s in decls.structs] == [
        "__nv_bfloat16_raw",
        "__nv_bfloat162_raw",
        "__nv_bfloat16",
        "__nv_bfloat162",
    ]
    assert len(device_free_functions(decls)) >= 320
    assert sum(1 for f in decls.functions if f.is_operator) >= 40


FP8_STRUCTS = {
    f"__nv_fp8{width}_{fmt}" for width in ("", "x2", "x4") for fmt in ("e5m2", "e4m3", "e8m0")
}
# CUDA 13.x releases after 13.0 add a fourth 8-bit format.
FP8_LATER_STRUCTS = {f"__nv_fp8{width}_ue5m3" for width in ("", "x2", "x4")}


def test_cuda_fp8():
    decls = parse_toolkit_header("cuda_fp8")
    names = {s.name for s in decls.structs}
    assert len(FP8_STRUCTS) == 9
    assert names - FP8_LATER_STRUCTS == FP8_STRUCTS
    assert next(s for s in decls.structs if s.name == "__nv_fp8x4_e4m3").sizeof_ == 4

    enums = {e.name: dict(zip(e.enumerators, e.enumerator_ints, strict=True)) for e in decls.enums}
    assert set(enums) == {"__nv_saturation_t", "__nv_fp8_interpretation_t"}
    assert enums["__nv_saturation_t"]["__NV_NOSAT"] == 0
    assert enums["__nv_saturation_t"]["__NV_SATFINITE"] == 1
    assert enums["__nv_fp8_interpretation_t"]["__NV_E4M3"] == 0
    assert enums["__nv_fp8_interpretation_t"]["__NV_E5M2"] == 1
    assert device_free_functions(decls)


@pytest.mark.parametrize("name", ["cuda_fp16", "cuda_bf16", "cuda_fp8"])
def test_every_declaration_comes_from_a_retained_file(name):
    decls = parse_toolkit_header(name)
    retained = {Path(decls.included_files[0]).name, f"{name}.hpp"}
    for decl in decls.functions + decls.structs + decls.enums + decls.typedefs:
        assert Path(decl.file).name in retained, decl.qual_name

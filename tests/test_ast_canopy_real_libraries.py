"""ast_canopy on real device libraries from the CUDA wheels (CCCL differs between toolkit
versions, so nothing here names a version's details): CUB's block and warp primitives parse
with no diagnostic, their template defaults qualified from the global namespace mean what they
mean inside ``namespace cub`` (NVRTC checks it), and CUB's host-only ``operator<<`` brings no
``std::basic_ostream``. The other libraries' parse times and diagnostics are measured by
``benchmarks/parse.py --libraries``."""

from __future__ import annotations

import logging

import pytest
from support import compile_cuda_source_to_ltoir

from ast_canopy import ExecutionSpace, TemplateParamKind

PRIMITIVES = ("cub/block/block_reduce.cuh", "cub/block/block_scan.cuh", "cub/warp/warp_reduce.cuh")


class _Diagnostics(logging.Handler):
    def __init__(self) -> None:
        super().__init__()
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        message = record.getMessage()
        if any(f": {s}:" in message for s in ("warning", "error", "fatal error")):
            self.lines.append(message)


@pytest.fixture(scope="module")
def cub(tmp_path_factory):
    from ast_canopy import parse_declarations_from_source
    from ast_canopy.toolkit import cccl_include_dir

    cccl = cccl_include_dir()
    wrapper = tmp_path_factory.mktemp("cub") / "cub_primitives.cuh"
    wrapper.write_text("".join(f"#include <{header}>\n" for header in PRIMITIVES))
    retained = [str(wrapper)] + [f"{cccl}/{header}" for header in PRIMITIVES]
    handler = _Diagnostics()
    logger = logging.getLogger("ast_canopy")
    logger.addHandler(handler)
    try:
        decls = parse_declarations_from_source(str(wrapper), retained, "sm_90", verbose=True)
    finally:
        logger.removeHandler(handler)
    return decls, handler.lines


def test_cub_primitives_parse_without_diagnostics(cub):
    decls, diagnostics = cub
    assert diagnostics == []
    names = {t.qual_name for t in decls.class_templates}
    assert {"cub::BlockReduce", "cub::BlockScan", "cub::WarpReduce"} <= names


def test_cub_defaults_mean_the_same_at_global_scope(cub):
    decls, _ = cub
    checks = []
    for name, given in (
        ("BlockReduce", "int, 128"),
        ("BlockScan", "int, 128"),
        ("WarpReduce", "int"),
    ):
        template = next(t for t in decls.class_templates if t.qual_name == f"cub::{name}")
        assert template.enclosing_namespace == "cub"
        count = len(given.split(","))
        params = template.template_parameters
        assert all(p.default_qualified is not None for p in params[count:])
        defaults = [p.default_qualified for p in params[count:]]
        spelled = ", ".join([given, *defaults])
        checks.append(f"static_assert(same<cub::{name}<{given}>, cub::{name}<{spelled}>>::value);")
    algorithm = next(t for t in decls.class_templates if t.qual_name == "cub::BlockReduce")
    enum_param = algorithm.template_parameters[2]
    assert (
        enum_param.kind is TemplateParamKind.NON_TYPE
        and enum_param.default_qualified.startswith("cub::")
    )
    source = (
        "".join(f"#include <{header}>\n" for header in PRIMITIVES)
        + "template <class A, class B> struct same { static constexpr bool value = false; };\n"
        + "template <class A> struct same<A, A> { static constexpr bool value = true; };\n"
        + "\n".join(checks)
        + "\n__device__ int use() { return 0; }\n"
    )
    assert compile_cuda_source_to_ltoir(source, "cub_defaults.cu")


def test_cub_host_only_operators_bring_no_host_library_instance(cub):
    decls, _ = cub
    shifts = [f for f in decls.functions if f.name == "operator<<"]
    assert shifts and all(f.exec_space is ExecutionSpace.UNDEFINED for f in shifts)
    named = [s.qual_name for s in decls.class_template_specializations]
    assert not [n for n in named if n.startswith("std::")], named

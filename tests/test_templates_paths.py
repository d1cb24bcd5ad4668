"""Templates through every way of binding (issue 11): tests/data/templates/geo.cuh, whose
templates live in a namespace, bound dynamically, as a static module and through the import
system; every role links to an sm_90 cubin, and on the GPU writes the expected numbers. An
instance made by one process is reused by the next with neither clang nor NVRTC."""

from __future__ import annotations

import functools
import shutil
import textwrap
import warnings
from pathlib import Path

import numpy as np
import pytest
from import_support import run_python
from numba import cuda
from static_support import import_path, render
from support import link_kernel_to_cubin
from template_support import GEO_EXPECTED, GEO_SIGNATURE, geo_kernel

from numbast.static.config import config_from_mapping

GEO = Path(__file__).parent / "data" / "templates" / "geo.cuh"


@functools.cache
def dynamic_geo():
    from numbast import bind_header

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return bind_header(GEO)


def static_geo(directory: Path):
    raw = {"Entry Point": str(GEO), "File List": [str(GEO)], "GPU Arch": ["sm_90"]}
    config = config_from_mapping(raw, base_dir=str(GEO.parent), source="<geo test config>")
    return import_path(render(config, directory))


def test_dynamic_binding_links_every_template_role():
    assert link_kernel_to_cubin(geo_kernel(dynamic_geo()), GEO_SIGNATURE)[:4] == b"\x7fELF"


def test_a_static_module_links_every_template_role(tmp_path):
    module = static_geo(tmp_path)
    assert {"Arr", "Arr3", "Pair", "clamp", "times", "widen", "pick"} <= set(module.__all__)
    assert link_kernel_to_cubin(geo_kernel(module), GEO_SIGNATURE)[:4] == b"\x7fELF"


def test_the_static_generator_renders_templates_as_rows(tmp_path):
    source = render(
        config_from_mapping(
            {"Entry Point": str(GEO), "File List": [str(GEO)], "GPU Arch": ["sm_90"]},
            base_dir=str(GEO.parent),
            source="<geo test config>",
        ),
        tmp_path,
    ).read_text()
    assert "class_templates=(" in source and '"geo::Arr"' in source
    assert "function_templates=(" in source and '"geo::clamp"' in source


def _project(tmp_path: Path) -> Path:
    project = tmp_path / "proj"
    project.mkdir()
    shutil.copy(GEO, project / "geo.cuh")
    (project / "pyproject.toml").write_text(
        '[tool.numbast-import]\narch = "sm_90"\n\n[tool.numbast-import.headers]\ngeo = "geo.cuh"\n'
    )
    return project


LINK = """
import cuda_headers.geo as geo
from support import link_kernel_to_cubin
from template_support import GEO_SIGNATURE, geo_kernel
print("linked", len(link_kernel_to_cubin(geo_kernel(geo), GEO_SIGNATURE)))
"""

# Neither clang nor NVRTC may run: clang cannot be imported, and every NVRTC entry point raises.
WITHOUT_COMPILERS = """
import sys

class _NoClang:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] == "clang":
            raise ImportError("clang is blocked in this test")
        return None

sys.meta_path.insert(0, _NoClang())

def _forbidden(*args, **kwargs):
    raise AssertionError("NVRTC was asked to compile")

from cuda.bindings import nvrtc as _nvrtc
_nvrtc.nvrtcCreateProgram = _forbidden
import cuda.core
cuda.core.Program = _forbidden
from numba.cuda.cudadrv import nvrtc as _numba_nvrtc
_numba_nvrtc.compile = _numba_nvrtc.Program = _forbidden
"""


def test_imported_templates_link_and_a_later_process_needs_no_compiler(tmp_path):
    project, cache = _project(tmp_path), tmp_path / "cache"
    first = run_python(LINK, project, cache, NUMBAST_IMPORT_QUIET="1")
    assert first.returncode == 0, first.stderr
    assert "linked" in first.stdout
    instances = list(cache.glob("*/*/instances/*/*"))
    assert any(p.name == "record.json" for p in instances)  # what the probes said
    assert any(p.name == "unit.ltoir" for p in instances)  # the shims with the instances
    assert all((p.parent / "manifest.json").is_file() for p in instances)
    second = run_python(WITHOUT_COMPILERS + LINK, project, cache)
    assert second.returncode == 0, second.stderr
    assert "linked" in second.stdout


@pytest.mark.gpu
def test_numbers_through_dynamic_and_static_bindings(tmp_path):
    for geo in (dynamic_geo(), static_geo(tmp_path)):
        out = cuda.to_device(np.zeros(len(GEO_EXPECTED), dtype=np.float64))
        cuda.jit(geo_kernel(geo))[1, 1](out)
        np.testing.assert_allclose(out.copy_to_host(), GEO_EXPECTED)


@pytest.mark.gpu
def test_numbers_through_the_import_system(tmp_path):
    run = textwrap.dedent(
        """
        import numpy as np
        from numba import cuda
        import cuda_headers.geo as geo
        from template_support import GEO_EXPECTED, geo_kernel
        out = cuda.to_device(np.zeros(len(GEO_EXPECTED), dtype=np.float64))
        cuda.jit(geo_kernel(geo))[1, 1](out)
        print("values", out.copy_to_host().tolist())
        """
    )
    project, cache = _project(tmp_path), tmp_path / "cache"
    for _cold_then_warm in range(2):
        result = run_python(run, project, cache)
        assert result.returncode == 0, result.stderr
        assert f"values {[float(v) for v in GEO_EXPECTED]}" in result.stdout


@pytest.mark.parametrize("which", ["dynamic", "static"])
def test_a_plain_overload_and_a_template_resolve_as_in_cxx(tmp_path, which):
    """pick(int) and template <class T> T pick(T): an int calls the plain one (exact), a float
    the template (exact, where the plain one would need a conversion)."""
    from numba.cuda import types
    from numba.cuda.descriptor import cuda_target

    geo = dynamic_geo() if which == "dynamic" else static_geo(tmp_path)
    typing = cuda_target.typing_context
    typing.refresh()
    pick = typing.resolve_value_type(geo.pick)
    assert typing.resolve_function_type(pick, (types.int32,), {}).return_type == types.int32
    on_float = typing.resolve_function_type(pick, (types.float32,), {})
    assert on_float.return_type == types.float32
    on_short = typing.resolve_function_type(pick, (types.int16,), {})
    assert on_short.return_type == types.int16  # the template again: T = short

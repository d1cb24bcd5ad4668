"""The three ways to bind a header go through one apply path and behave the same: dynamic
binding (``numbast.bind_header``), a generated module (``python -m numbast``) and the import
system (``import cuda_headers.x``). Regressions for what once differed between them: operators
of a bound enum, ``defines`` reaching the shims, include directories reaching NVRTC, and unscoped
enumerators in the enclosing scope."""

from __future__ import annotations

import functools
import shutil
import textwrap
from pathlib import Path

import numpy as np
import pytest
from import_support import run_python
from numba import cuda
from numba.cuda import types
from static_support import generate
from support import link_kernel_to_cubin

STATIC_DATA = Path(__file__).parent / "data" / "static"

# module name -> (header, bind_header options, static config keys, pyproject table entry)
HEADERS = {
    "enum_ops": ("enum_ops.cuh", {}, {}, '{ header = "enum_ops.cuh" }'),
    "macros": (
        "macros.cuh",
        {"defines": ["STATIC_FEATURE=7"]},
        {"Predefined_Macros": ["STATIC_FEATURE=7"]},
        '{ header = "macros.cuh", defines = ["STATIC_FEATURE=7"] }',
    ),
    "include_paths": (
        "include_paths.cuh",
        {"include_dirs": [str(STATIC_DATA / "include_dir")]},
        {"Clang_Include_Paths": ["include_dir"]},
        '{ header = "include_paths.cuh", include-dirs = ["include_dir"] }',
    ),
}

# What each kernel writes, given the modules of the three headers as enum_ops, macros and
# include_paths (the same source runs for every path).
KERNEL = """
def make_kernel(enum_ops, macros, include_paths):
    Flags, flag_bits, edge_code = enum_ops.Flags, enum_ops.flag_bits, enum_ops.edge_code
    CLAMPED, WRAPPED = enum_ops.CLAMPED, enum_ops.WRAPPED
    feature_value, uses_dep = macros.feature_value, include_paths.uses_dep

    def kernel(out):
        out[0] = flag_bits(Flags.Read | Flags.Write)  # an operator of a bound enum class
        out[1] = edge_code(CLAMPED) + edge_code(WRAPPED)  # unscoped enumerators, module scope
        out[2] = feature_value()  # exists only with STATIC_FEATURE defined, for the shims too
        out[3] = uses_dep(np.int32(3))  # its header includes one found through include dirs

    return kernel
"""
EXPECTED = [3, 100, 7, 10]
namespace: dict = {"np": np}
exec(KERNEL, namespace)
make_kernel = namespace["make_kernel"]


@functools.cache
def dynamic_modules():
    from numbast import bind_header

    return [
        bind_header(STATIC_DATA / header, **options)
        for header, options, _keys, _entry in HEADERS.values()
    ]


def static_modules(directory: Path):
    modules = []
    for name, (header, _options, keys, _entry) in HEADERS.items():
        (directory / name).mkdir()
        modules.append(generate(header, directory / name, **keys))
    return modules


def test_dynamic_binding_links():
    kernel = make_kernel(*dynamic_modules())
    assert link_kernel_to_cubin(kernel, (types.int32[:],))[:4] == b"\x7fELF"


def test_static_modules_link(tmp_path):
    kernel = make_kernel(*static_modules(tmp_path))
    assert link_kernel_to_cubin(kernel, (types.int32[:],))[:4] == b"\x7fELF"


def _import_project(tmp_path: Path) -> Path:
    project = tmp_path / "proj"
    shutil.copytree(STATIC_DATA, project)
    mappings = "\n".join(f"{name} = {entry}" for name, (*_, entry) in HEADERS.items())
    (project / "pyproject.toml").write_text(
        f'[tool.numbast-import]\narch = "sm_90"\n\n[tool.numbast-import.headers]\n{mappings}\n'
    )
    return project


IMPORTED = """
import numpy as np
from numba.cuda import types
from support import link_kernel_to_cubin
import cuda_headers.enum_ops as enum_ops
import cuda_headers.macros as macros
import cuda_headers.include_paths as include_paths
{kernel}
kernel = make_kernel(enum_ops, macros, include_paths)
{action}
"""


def test_imported_modules_link_when_built_and_when_cached(tmp_path):
    project, cache = _import_project(tmp_path), tmp_path / "cache"
    action = textwrap.dedent(
        """
        import inspect
        print(inspect.getsource(enum_ops.flag_bits))
        print("linked", len(link_kernel_to_cubin(kernel, (types.int32[:],))))
        """
    )
    script = IMPORTED.format(kernel=KERNEL, action=action)
    for _cold_then_warm in range(2):
        result = run_python(script, project, cache, NUMBAST_IMPORT_QUIET="1")
        assert result.returncode == 0, result.stderr
        assert "linked" in result.stdout
        assert "unsigned int flag_bits(Flags f)  // enum_ops.cuh:" in result.stdout


TYPED_OR_FIRST = """
import numpy as np
from numba.cuda import types
from support import link_kernel_to_cubin

def plain(out):
    out[0] = np.int32(1) | np.int32(2)  # Numba types `|` before any binding exists

link_kernel_to_cubin(plain, (types.int32[:],))
{bind}
Flags, flag_bits = enum_ops.Flags, enum_ops.flag_bits

def kernel(out):
    out[0] = flag_bits(Flags.Read | Flags.Write)  # needs enum_ops' operator|, not Numba's

print("linked", len(link_kernel_to_cubin(kernel, (types.int32[:],))))
"""


@pytest.mark.parametrize(
    "bind",
    [
        "from numbast import bind_header\nenum_ops = bind_header('enum_ops.cuh')",
        "import cuda_headers.enum_ops as enum_ops",
    ],
    ids=["dynamic", "imported"],
)
def test_enum_operators_win_when_numba_typed_the_operator_first(tmp_path, bind):
    # Numba appends templates registered after it first typed an operator; its integer `|`
    # accepts an enum class by conversion and would be tried first.
    script = TYPED_OR_FIRST.format(bind=bind)
    result = run_python(script, _import_project(tmp_path), tmp_path / "cache")
    assert result.returncode == 0, result.stderr
    assert "linked" in result.stdout


@pytest.mark.gpu
def test_numbers_through_dynamic_and_static_bindings(tmp_path):
    for modules in (dynamic_modules(), static_modules(tmp_path)):
        out = cuda.to_device(np.zeros(4, dtype=np.int32))
        cuda.jit(make_kernel(*modules))[1, 1](out)
        np.testing.assert_array_equal(out.copy_to_host(), EXPECTED)


@pytest.mark.gpu
def test_numbers_through_the_import_system(tmp_path):
    action = textwrap.dedent(
        """
        from numba import cuda
        out = cuda.to_device(np.zeros(4, dtype=np.int32))
        cuda.jit(kernel)[1, 1](out)
        print("values", out.copy_to_host().tolist())
        """
    )
    script = IMPORTED.format(kernel=KERNEL, action=action)
    result = run_python(script, _import_project(tmp_path), tmp_path / "cache")
    assert result.returncode == 0, result.stderr
    assert f"values {EXPECTED}" in result.stdout

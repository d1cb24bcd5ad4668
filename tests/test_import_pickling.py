"""Header modules pickle as their mapping (numbast_import.pickling): a process with no
pyproject.toml unpickles a kernel using one and gets the same bindings, or, where the header it
reaches differs, a module whose first use raises PickledHeaderMismatchError."""

from __future__ import annotations

import hashlib
import importlib.util
import textwrap
import types

import pytest
from import_support import make_project, run_python

HAS_DISTRIBUTED = importlib.util.find_spec("distributed") is not None

# In the project (its pyproject.toml maps vec, arch pinned to sm_90): pickle a kernel using the
# module, one using names taken from it, the module alone and (with distributed) the plugin.
PICKLE = """
import pickle
from numba import cuda
import cuda_headers.vec as vec
from cuda_headers.vec import Vec2, scaled_dot

@cuda.jit
def by_module(out):
    a = vec.Vec2(1.0, 2.0)
    out[0] = vec.scaled_dot(a, a)

@cuda.jit
def by_name(out):
    a = Vec2(1.0, 2.0)
    out[0] = scaled_dot(a, a)

pickled = {"by_module": by_module, "by_name": by_name, "module": vec}
if WITH_PLUGIN:
    from numbast_import.dask import HeaderModules

    pickled["plugin"] = HeaderModules()
for name, value in pickled.items():
    with open(f"{OUT}/{name}.pkl", "wb") as out:
        pickle.dump(value, out)
print(type(vec).__name__, vec.__file__)
"""

# Elsewhere (no pyproject.toml, no NUMBAST_IMPORT_ARCH: the pickled mapping's pin applies).
UNPICKLE = """
import pickle, sys
from numba.cuda import types
from support import link_kernel_to_cubin

def load(name):
    with open(f"{OUT}/{name}.pkl", "rb") as f:
        return pickle.load(f)

def link(kernel):
    return len(link_kernel_to_cubin(kernel.py_func, (types.float32[:],), arch="sm_90"))

try:
    load("by_name")
except ImportError as exc:  # a name pickles by reference to its module, unmapped here
    print("by name first:", type(exc).__name__)
if WITH_PLUGIN:
    load("plugin").setup(None)
else:
    load("module")
print("by name:", link(load("by_name")))
print("by module:", link(load("by_module")))
vec = sys.modules["cuda_headers.vec"]
print("module:", type(vec).__name__, vec.__file__)
print("same object:", load("module") is vec)
print("clang loaded:", "clang.cindex" in sys.modules)

# A pickle from a process that had another version of the header: this process has one.
from numbast_import.pickling import import_pickled, pickled_state
other = import_pickled(dict(pickled_state(vec), header_sha256="0" * 64))
print("other version:", type(other).__name__)
try:
    other.dot
except ImportError as exc:
    print(f"{type(exc).__name__}: {exc}")
"""

AFTER_EDIT = """
import pickle, sys
with open(f"{OUT}/module.pkl", "rb") as f:
    vec = pickle.load(f)
from numbast_import.registry import registered
# Not imported, not mapped: what pickles by reference to the name meets no other bindings.
print("unpickled:", type(vec).__name__, "cuda_headers.vec" in sys.modules, registered("vec"))
try:
    vec.Vec2
except ImportError as exc:
    print(f"{type(exc).__name__}: {exc}")
"""


def _code(template: str, out, with_plugin: bool) -> str:
    return f"OUT = {str(out)!r}\nWITH_PLUGIN = {with_plugin}\n" + textwrap.dedent(template)


@pytest.fixture(scope="module")
def pickled(tmp_path_factory):
    """The project, its cache (with the module's entry) and the pickles made there."""
    tmp = tmp_path_factory.mktemp("pickling")
    project, cache, out = make_project(tmp), tmp / "cache", tmp / "pickles"
    out.mkdir()
    result = run_python(_code(PICKLE, out, HAS_DISTRIBUTED), project, cache)
    assert result.returncode == 0, result.stderr
    kind, entry_file = result.stdout.split()
    assert kind == "HeaderModule"
    return project, cache, out, entry_file


def test_a_process_without_the_project_gets_the_same_bindings(pickled, tmp_path):
    project, cache, out, entry_file = pickled
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    result = run_python(_code(UNPICKLE, out, HAS_DISTRIBUTED), elsewhere, cache)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "by name first: HeaderNotMappedError", result.stdout
    assert lines[1].startswith("by name: ") and int(lines[1].split()[-1]) > 0
    assert lines[2].startswith("by module: ") and int(lines[2].split()[-1]) > 0
    # The pickled mapping names the same entry: a cache hit, nothing parsed.
    assert lines[3] == f"module: HeaderModule {entry_file}"
    assert lines[4:6] == ["same object: True", "clang loaded: False"]
    assert lines[6] == "other version: UnavailableHeaderModule"
    assert lines[7].startswith("PickledHeaderMismatchError: cannot use cuda_headers.vec as ")
    assert "A process holds one version of a module" in lines[7]
    assert "numbast-import: generating" not in result.stderr


def test_an_edited_header_or_include_gives_the_digest_error(pickled, tmp_path):
    project, cache, out, _entry_file = pickled
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    header, include = project / "include" / "vec.cuh", project / "include" / "scale.h"
    original_header, original_include = header.read_text(), include.read_text()
    header.write_text(original_header + "// edited after pickling\n")
    try:
        edited = run_python(_code(AFTER_EDIT, out, False), elsewhere, cache)
    finally:
        header.write_text(original_header)
    assert edited.returncode == 0, edited.stderr
    lines = edited.stdout.splitlines()
    # Checked before anything is built: nothing imported, the error waits for the first use.
    assert lines[0] == "unpickled: UnavailableHeaderModule False None"
    new_digest = hashlib.sha256((original_header + "// edited after pickling\n").encode())
    assert lines[1].startswith("PickledHeaderMismatchError: cannot import cuda_headers.vec")
    assert f"has sha256 {new_digest.hexdigest()} here" in lines[1]
    assert str(header) in lines[1]
    # The header is the same, a file it includes is not: the module is built, then refused
    # (and taken out of the process again).
    include.write_text(original_include.replace("2.0f", "3.0f"))
    try:
        included = run_python(_code(AFTER_EDIT, out, False), elsewhere, cache)
    finally:
        include.write_text(original_include)
    assert included.returncode == 0, included.stderr
    lines = included.stdout.splitlines()
    assert lines[0] == "unpickled: UnavailableHeaderModule False None"
    assert "its header is the same, but of the" in lines[1]
    assert lines[1].startswith("PickledHeaderMismatchError: cannot use cuda_headers.vec")


def test_a_builtin_module_pickles_by_name_and_resolves_its_header_here():
    from numbast_import.builtin_headers import builtin_mapping
    from numbast_import.pickling import adopt, mapping_here, pickled_state

    mapping = builtin_mapping("cucomplex")
    with open(mapping.header, "rb") as header:
        digest = hashlib.sha256(header.read()).hexdigest()
    module = types.ModuleType("numbast.headers.cucomplex")
    adopt(module, mapping, {"key": {"header_sha256": digest}, "included_files": {}})
    state = pickled_state(module)
    assert state["mapping"] is None and state["header_sha256"] == digest
    assert mapping_here(state).header == mapping.header

"""Every copy of the runtime in a process (standalone generated modules carry their own) shares
one registration state with the installed runtime, so modules never shadow each other's
operators or mutating methods; the state's tables are joined by name, so runtimes of different
ages meet without a version to bump."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

from static_support import generate

import numbast.runtime.members as members
import numbast.runtime.overloads as overloads
import numbast.runtime.structs as structs
from numbast.runtime import state

DATA = Path(__file__).parent / "data"


def test_a_standalone_module_carries_a_copy_that_shares_the_registration_state(tmp_path):
    module = generate("structs.cuh", tmp_path)  # a static method: its copy carries members
    copy = module._nb_runtime
    package = copy.__name__.rpartition(".")[0]
    assert package.startswith("_numbast_runtime_")
    copied = {
        name: sys.modules[f"{package}.{name}"] for name in ("overloads", "members", "structs")
    }
    assert copied["structs"].BoundCxxStruct is not structs.BoundCxxStruct  # a real second copy
    assert copied["overloads"]._OVERLOADS is overloads._OVERLOADS
    assert copied["structs"]._BUILTIN_CONVERSIONS is structs._BUILTIN_CONVERSIONS
    for table in ("_MUTATORS", "_MUTATING_STUBS", "_STATIC_MEMBERS"):
        assert getattr(copied["members"], table) is getattr(members, table), table
    # A second module made by the same numbast reuses the copy already loaded.
    again = tmp_path / "again"
    again.mkdir()
    assert generate("structs.cuh", again)._nb_runtime is copy


def test_stubs_are_recognised_across_copies(tmp_path):
    copy = generate("tiny.cuh", tmp_path)._nb_runtime
    package = copy.__name__.rpartition(".")[0]
    stub = sys.modules[f"{package}.overloads"].make_function_stub("ns::f", "f")
    assert overloads.is_binding_stub(stub)


def test_a_table_unknown_to_an_older_copy_is_added_by_the_newer_one():
    tables = state._TABLES
    tables.pop("numbast_test_table", None)
    made = state.shared_table("numbast_test_table", dict)
    assert state.shared_table("numbast_test_table", list) is made  # the first one stays
    del tables["numbast_test_table"]


def _run(script: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(script)],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=600,
    )


def test_an_older_generated_module_imported_first_then_the_installed_runtime(tmp_path):
    """A module generated before static methods existed (its runtime's state lacks the tables
    for them) is imported first; then the installed runtime binds a struct with static and
    non-const methods, and one kernel using both links to a cubin."""
    fixture = DATA / "runtime" / "tiny_generated_before_static_methods.py.txt"
    text = fixture.read_text()
    text = text.replace("@STATIC_DATA@", str(DATA / "static")).replace("@CONFIG@", "<fixture>")
    (tmp_path / "old_tiny.py").write_text(text.replace("@CUDA_INCLUDE@", "<toolkit>"))
    tests = Path(__file__).parent
    result = _run(
        f"""
        import sys
        sys.path[:0] = [{str(tmp_path)!r}, {str(tests)!r}]
        import old_tiny  # creates the shared state the old way, without static-method tables
        state = sys.modules["_numbast_runtime_state_v1"].state
        assert "static_members" not in state, sorted(state)
        from numba.cuda import types
        from support import bound_test_header, link_kernel_to_cubin
        lib = bound_test_header("structs.cuh", parent_types={{"Counter": types.Number}})
        assert "static_members" in state  # joined the old state, adding its own tables
        Counter, tiny_ops_add = lib.Counter, old_tiny.tiny_ops_add
        import numpy as np

        def kernel(out):
            c = Counter.make(np.int32(5))
            c.bump(np.int32(1))
            out[0] = tiny_ops_add(c.count, np.int32(2))

        cubin = link_kernel_to_cubin(kernel, (types.int32[:],))
        print("linked", len(cubin))
        """,
        tmp_path,
    )
    assert result.returncode == 0, result.stderr
    assert "linked" in result.stdout

"""Every copy of numbast/runtime.py in a process (generated modules embed their own) shares one
registration state, so two modules never shadow each other's operators or mutating methods."""

from __future__ import annotations

from pathlib import Path

import numbast.runtime as runtime


def test_an_embedded_copy_shares_the_registration_state():
    import numbast.runtime_members as members

    source = Path(runtime.__file__).read_text()
    copy: dict = {"__name__": "embedded_runtime_copy"}
    exec(compile(source, "<embedded runtime>", "exec"), copy)
    for table in ("_OVERLOADS", "_BUILTIN_CONVERSIONS", "_LOCK"):
        assert copy[table] is getattr(runtime, table), table
    assert copy["BoundCxxStruct"] is not runtime.BoundCxxStruct  # a real second copy

    # runtime_members.py, embedded as a generated module does: built on the copy above.
    members_source = Path(members.__file__).read_text()
    members_copy: dict = {"__name__": "embedded_members_copy", "__numbast_runtime__": None}
    members_copy["__numbast_runtime__"] = type("Runtime", (), copy)
    exec(compile(members_source, "<embedded runtime members>", "exec"), members_copy)
    assert members_copy["rt"] is members_copy["__numbast_runtime__"]
    for table in ("_MUTATORS", "_MUTATING_STUBS", "_STATIC_MEMBERS"):
        assert members_copy[table] is getattr(members, table), table


def test_stubs_are_recognised_across_copies():
    source = Path(runtime.__file__).read_text()
    copy: dict = {"__name__": "embedded_runtime_copy"}
    exec(compile(source, "<embedded runtime>", "exec"), copy)
    stub = copy["make_function_stub"]("ns::f", "f")
    assert runtime._is_binding_stub(stub)

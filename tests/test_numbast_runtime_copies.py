"""Every copy of numbast/runtime.py in a process (generated modules embed their own) shares one
registration state, so two modules never shadow each other's operators or mutating methods."""

from __future__ import annotations

from pathlib import Path

import numbast.runtime as runtime


def test_an_embedded_copy_shares_the_registration_state():
    source = Path(runtime.__file__).read_text()
    copy: dict = {"__name__": "embedded_runtime_copy"}
    exec(compile(source, "<embedded runtime>", "exec"), copy)
    for table in ("_OVERLOADS", "_MUTATORS", "_MUTATING_STUBS", "_BUILTIN_CONVERSIONS"):
        assert copy[table] is getattr(runtime, table), table
    assert copy["_LOCK"] is runtime._LOCK
    assert copy["BoundCxxStruct"] is not runtime.BoundCxxStruct  # a real second copy


def test_stubs_are_recognised_across_copies():
    source = Path(runtime.__file__).read_text()
    copy: dict = {"__name__": "embedded_runtime_copy"}
    exec(compile(source, "<embedded runtime>", "exec"), copy)
    stub = copy["make_function_stub"]("ns::f", "f")
    assert runtime._is_binding_stub(stub)

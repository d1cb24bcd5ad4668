"""How a declaration reads in messages, skip reports and rows: its C++ declaration, signature,
location, and why it cannot be called from a kernel."""

from __future__ import annotations

import os
from typing import Any

from ast_canopy.model import Function, Method


def not_device_callable(func: Function) -> str:
    """Why ``func`` cannot be called from a kernel, from its execution space."""
    described = {
        "host": "a host function (__host__ only)",
        "global": "a __global__ kernel",
        "undefined": "a host function (declared without __device__)",
    }
    space = func.exec_space.value
    return f"it is {described.get(space, space)}, {NOT_DEVICE_CALLABLE}"


NOT_DEVICE_CALLABLE = "not callable on the device"  # how skips of host-only declarations end


def callee_spelling(func: Function) -> str:
    # Qualified with a leading :: so a same-named shim-local name can never capture the call.
    return f"::{func.qual_name}" if not func.qual_name.startswith("::") else func.qual_name


def signature_text(func: Function) -> str:
    params = ", ".join(p.type_.canonical_name for p in func.params)
    return f"{func.qual_name}({params})"


def method_text(method: Method) -> str:
    params = ", ".join(p.type_.canonical_name for p in method.params)
    const = " const" if method.is_const else ""
    return f"{method.qual_name}({params}){const}"


def declaration_text(func: Function) -> str:
    """The C++ declaration as a user reads it, with where it is: ``float dot(const Vec3 &a,
    const Vec3 &b)  // demo.cuh:12``."""
    params = ", ".join(f"{p.type_.name} {p.name}".strip() for p in func.params)
    where = f"  // {os.path.basename(func.file)}:{func.line}" if func.file else ""
    return f"{func.return_type.name} {func.qual_name}({params}){where}"


def location_of(decl: Any) -> str:
    return f"{decl.file}:{decl.line}" if getattr(decl, "file", "") else ""

"""How a declaration reads in messages, skip reports and rows: its C++ declaration, signature,
location, and why it cannot be called from a kernel."""

from __future__ import annotations

import os
from typing import Any

from ast_canopy.host_only import function_host_library_type, struct_host_library_type
from ast_canopy.model import Function, Method, Struct
from ast_canopy.nvrtc_hidden import nvrtc_hidden_branch


def host_only_reason(func: Function) -> str | None:
    """Why device code cannot call ``func`` (its execution space, a type of the host C++
    standard library in its signature, or a branch of its header that NVRTC never compiles:
    no shim can call it); None when it can."""
    if not func.exec_space.is_device_callable:
        return not_device_callable(func)
    host_type = function_host_library_type(func)
    if host_type is not None:
        return f"it names {host_type} of the host C++ standard library, {NOT_DEVICE_CALLABLE}"
    hidden = nvrtc_hidden_branch(func.file, func.line)
    if hidden is not None:
        where = f"{os.path.basename(func.file)}:{hidden.directive}"
        return (
            f"it is declared only where __CUDACC_RTC__ is not defined ({where}: {hidden.text}), "
            f"so NVRTC, which compiles every shim, never sees it: {NOT_DEVICE_CALLABLE}"
        )
    return None


def struct_host_only_reason(struct: Struct) -> str | None:
    """Why device code cannot hold ``struct`` (it is, holds or derives from a type of the host
    C++ standard library); None when it can."""
    host_type = struct_host_library_type(struct)
    if host_type is None:
        return None
    if host_type == struct.qual_name:
        return f"it is a type of the host C++ standard library, {NOT_DEVICE_CALLABLE}"
    return f"it holds {host_type} of the host C++ standard library, {NOT_DEVICE_CALLABLE}"


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

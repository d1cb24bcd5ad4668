"""The C++ text of shims: ``extern "C" __device__`` wrappers that Numba can call.

Every shim has the same shape, so one lowering routine calls them all::

    extern "C" __device__ int <name>(R* nbi_ret, T0* a0, T1* a1, ...) { <statement> return 0; }

Arguments always arrive by pointer (so structs of any layout cross the boundary intact) and the
result is constructed in the storage ``nbi_ret`` points to (``store_result``). Shim names
derive from the C++ mangled name, so overloads and same-named declarations from different
headers never clash. With LTO the shim and the C++ body inline into the kernel.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass

_IDENTIFIER_UNSAFE = re.compile(r"[^A-Za-z0-9_]")
SHIM_PREFIX = "nbi_shim_"


def shim_name_for(mangled_name: str, fallback_signature: str, role: str = "") -> str:
    """A C identifier unique to one C++ callable (and the role it is called in).

    ``mangled_name`` is the Itanium name from the parser; when it is empty (e.g. for
    declarations clang does not mangle) a digest of ``fallback_signature`` is used instead.
    """
    if mangled_name:
        core = _IDENTIFIER_UNSAFE.sub("_", mangled_name)
    else:
        digest = hashlib.sha256(fallback_signature.encode()).hexdigest()[:16]
        core = f"h{digest}"
    return f"{SHIM_PREFIX}{role + '_' if role else ''}{core}"


@dataclass(frozen=True)
class ShimParam:
    """One shim parameter: a pointer to a value of C++ type ``value_type``."""

    value_type: str  # canonical spelling without cv/ref, e.g. "ns::Vec3", "float *"
    rvalue: bool = False  # the C++ parameter is T&&: pass the object as an xvalue

    def argument(self, index: int) -> str:
        if self.rvalue:
            return f"static_cast<{self.value_type}&&>(*a{index})"
        return f"(*a{index})"


def pointer_declaration(type_spelling: str, name: str) -> str:
    """Declare ``name`` as a pointer to ``type_spelling``: ``float *a0``, and for types whose
    declarator wraps the name (a pointer to an array, ``unsigned int (*)[3]``), the name inside
    it: ``unsigned int (**a0)[3]``."""
    depth = 0
    for index, char in enumerate(type_spelling):
        depth += {"<": 1, ">": -1}.get(char, 0)
        if depth == 0 and type_spelling.startswith("(*)", index):
            return f"{type_spelling[:index]}(**{name}){type_spelling[index + 3 :]}"
    if type_spelling.endswith("*"):
        return f"{type_spelling}*{name}"
    return f"{type_spelling} *{name}"


RESULT_TYPE = "nbi_result_t"  # the shim's alias of its result type


def render_shim(name: str, return_type: str | None, params: Sequence[ShimParam], body: str) -> str:
    """The full shim definition. ``return_type`` None means the shim writes no result; else
    the body may name it as ``nbi_result_t`` (any declarator: ``unsigned int (*)[3]``)."""
    ret_param = pointer_declaration(return_type, "nbi_ret") if return_type else "void *nbi_ret"
    param_list = ", ".join(
        [ret_param] + [pointer_declaration(p.value_type, f"a{i}") for i, p in enumerate(params)]
    )
    alias = f"using {RESULT_TYPE} = {return_type};\n  " if return_type else ""
    return f'extern "C" __device__ int {name}({param_list}) {{\n  {alias}{body}\n  return 0;\n}}\n'


def store_result(expression: str) -> str:
    """The statement that constructs the result from ``expression`` in the result slot.

    The slot is storage holding no object yet, so the result is constructed there, not
    assigned: libraries make copy assignment private, undefined or deleted where copying is
    fine (cooperative_groups' ``thread_group``, ``thread_block`` with a const member), and a
    prvalue result is then not even copied (C++17). Through the alias, the value converts to
    the declared result type as a cast does (an enum to the integer it crosses as)."""
    converted = f"static_cast<{RESULT_TYPE}>({expression})"
    return f"::new (static_cast<void *>(nbi_ret)) {RESULT_TYPE}({converted});"


def call_arguments(params: Sequence[ShimParam], start: int = 0) -> str:
    return ", ".join(p.argument(i) for i, p in enumerate(params) if i >= start)


def function_call_body(callee: str, params: Sequence[ShimParam], returns_value: bool) -> str:
    """The result of ``callee(args)`` stored, or for void, ``callee(args);``."""
    call = f"{callee}({call_arguments(params)})"
    return store_result(call) if returns_value else f"{call};"


def method_call_body(method: str, params: Sequence[ShimParam], returns_value: bool) -> str:
    """``a0`` is the object; the rest are the method's arguments."""
    call = f"(*a0).{method}({call_arguments(params, start=1)})"
    return store_result(call) if returns_value else f"{call};"


# The METHOD name under which a non-const ``operator[]`` returning a reference binds a second
# time, as ``v[i] = x`` (its shim assigns through the reference: ``element_assignment_body``).
SETITEM = "__setitem__"


def element_assignment_body(params: Sequence[ShimParam], _returns_value: bool) -> str:
    """``v[i] = x`` through a non-const ``operator[]``: ``a0`` is the object, ``a1`` the index,
    ``a2`` the value."""
    target, index, value = (p.argument(i) for i, p in enumerate(params))
    return f"{target}[{index}] = {value};"


def constructor_body(class_name: str, params: Sequence[ShimParam]) -> str:
    """Construct in place in the result slot (no default constructor or assignment needed)."""
    return f"new (nbi_ret) {class_name}({call_arguments(params)});"


def conversion_body(target_type: str) -> str:
    """``a0`` is the object; invoke its conversion operator to ``target_type``."""
    return store_result(f"static_cast<{target_type}>(*a0)")


def operator_body(symbol: str, params: Sequence[ShimParam], returns_value: bool) -> str:
    """Spell the operator as an expression, so free, member and friend operators all resolve."""
    expression = operator_expression(symbol, [p.argument(i) for i, p in enumerate(params)])
    return store_result(expression) if returns_value else f"{expression};"


def operator_expression(symbol: str, operands: Sequence[str]) -> str:
    """C++'s expression applying operator ``symbol`` to ``operands`` (``a[i]`` for ``[]``)."""
    if symbol == "[]" and len(operands) == 2:
        return f"{operands[0]}[{operands[1]}]"
    if len(operands) == 1:
        return f"{symbol}{operands[0]}"
    if len(operands) == 2:
        return f"{operands[0]} {symbol} {operands[1]}"
    raise ValueError(f"operator{symbol} with {len(operands)} operands cannot be spelled")


def shim_preamble(include: str, macros: Sequence[str] = ()) -> str:
    """``#define`` lines for the predefined macros (``NAME`` or ``NAME=value``), then
    ``#include <include>``: the header as the parser saw it."""
    lines = []
    for macro in macros:
        name, _, value = macro.partition("=")
        lines.append(f"#define {name} {value or '1'}")
    lines.append(f"#include <{include}>")
    return "\n".join(lines)

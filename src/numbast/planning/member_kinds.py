"""How a struct's member binds: the one table from C++ method kinds to member rows' kinds,
shared by structs (``declarations.plan_member``) and class templates
(``templates.member_row``)."""

from __future__ import annotations

from typing import NamedTuple

from ast_canopy.model import Access, Method, MethodKind
from numbast.core import rows
from numbast.planning.descriptions import host_only_reason
from numbast.planning.diagnostics import BindingError
from numbast.planning.operators import no_python_syntax, python_operator_for

# The method name a function object's ``operator()`` binds to: calling the object calls it.
CALL_OPERATOR = "__call__"


class MemberKind(NamedTuple):
    kind: str  # a member kind of numbast.core.rows (CONSTRUCTOR, CONVERSION, ...)
    name: str  # the Python name: the method's, an operator's function name, "" otherwise
    cxx_name: str  # the C++ name: the method's, an operator's symbol, "" otherwise
    flag: bool  # CONSTRUCTOR: also an implicit conversion; METHOD: non-const


def assigns_elements(method: Method) -> bool:
    """Whether ``v[i] = x`` assigns through ``method``: a public non-const ``operator[]`` of one
    parameter returning a reference to a non-const element (bound a second time as the
    non-const method ``shim_text.SETITEM``)."""
    if method.kind is not MethodKind.MEMBER_OPERATOR or method.operator != "[]":
        return False
    if method.access is not Access.PUBLIC or method.is_deleted or method.is_const:
        return False
    result = method.return_type
    return (
        len(method.params) == 1
        and result.is_lvalue_reference
        and not (result.referenced().is_const)
    )


def member_kind(method: Method) -> MemberKind | None:
    """How ``method`` binds; None for members not bound by design (non-public, deleted,
    copy/move constructors, destructors: Numba copies values bitwise and runs no destructors);
    raises BindingError for a member that cannot be bound."""
    if method.access is not Access.PUBLIC or method.is_deleted:
        return None
    kind = method.kind
    if kind in (MethodKind.COPY_CONSTRUCTOR, MethodKind.MOVE_CONSTRUCTOR, MethodKind.DESTRUCTOR):
        return None
    host_only = host_only_reason(method)
    if host_only is not None:
        raise BindingError(host_only)
    if method.is_variadic:
        raise BindingError("variadic methods cannot be bound")
    if kind.is_constructor:
        implicit = kind is MethodKind.CONVERTING_CONSTRUCTOR and not method.is_explicit
        return MemberKind(rows.CONSTRUCTOR, "", "", implicit)
    if kind is MethodKind.CONVERSION_FUNCTION:
        return MemberKind(rows.CONVERSION, "", "", False)
    if kind is MethodKind.MEMBER_OPERATOR and method.operator == "()":
        # A function object's call operator: ``f(args)`` in a kernel (Python's __call__).
        return MemberKind(rows.METHOD, CALL_OPERATOR, "operator()", not method.is_const)
    if kind is MethodKind.MEMBER_OPERATOR:
        symbol = method.operator or ""
        key = python_operator_for(symbol, len(method.params) + 1)
        if key is None:
            raise BindingError(
                no_python_syntax(symbol, len(method.params) + 1)
                or f"operator{symbol} has no Python counterpart"
            )
        return MemberKind(rows.OPERATOR, key.__name__, symbol, False)
    if kind is MethodKind.METHOD:
        return MemberKind(rows.METHOD, method.name, method.name, not method.is_const)
    if kind is MethodKind.STATIC_METHOD:
        return MemberKind(rows.STATIC_METHOD, method.name, method.name, False)
    raise BindingError(f"{kind.value} members are not bound yet")

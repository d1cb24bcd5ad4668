"""Type rows -> Numba types: enums, struct types, and the type descriptions (``rows.TypeRow``)
that signatures and fields are written in, including types another bindings module binds.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Sequence
from typing import Any

from numba.cuda import types as numba_types

from ..core.rows import EnumRow, StructRow
from .structs import make_struct_type


def resolve_class(value: Any, namespace: Any, what: str, struct: str, module_name: str) -> type:
    """``value`` itself when it is a class, else the class it names in ``namespace``."""
    found = value if isinstance(value, type) else getattr(namespace, str(value), None)
    if isinstance(found, type):
        return found
    if module_name:  # a generated module: the name came from its config
        key = "Types" if what == "type class" else "Data Models"
        raise TypeError(
            f"{module_name}: the config maps struct {struct} to {what} {value!r}, which is not "
            f"a class in {namespace.__name__}; fix that entry of the config's {key} and "
            "regenerate the bindings."
        )
    raise TypeError(f"{what} {value!r} for struct {struct} is not a class; pass a class")


def make_enum(row: EnumRow, module_name: str = "") -> type[enum.IntEnum]:
    """The IntEnum of a C++ enum (usable as constants and as kernel arguments). Made for module
    ``module_name``, it names that module as its own (as a struct's class does)."""
    python_name, qual_name, members, scoped = row
    py_enum = enum.IntEnum(python_name, dict(members), module=module_name or None)
    py_enum.__doc__ = f"C++ enum {qual_name} (bound by numbast)."
    # The mark that makes its members bound types (operators of the enum apply to them).
    py_enum._cxx_name_ = qual_name
    py_enum._cxx_scoped_ = scoped
    return py_enum


def enum_member_type(py_enum: type[enum.IntEnum]) -> numba_types.Type:
    # Numba types enum members by their Python value (int64); shims convert to and from the C++
    # underlying type at the boundary.
    return numba_types.IntEnumMember(py_enum, numba_types.int64)


def make_struct_type_of(row: StructRow, module_name: str = "") -> numba_types.Type:
    """The Numba type of a struct (made first: signatures and fields refer to it)."""
    parent = resolve_class(row.parent_type, numba_types, "type class", row.qual_name, module_name)
    return make_struct_type(parent, row.qual_name, row.sizeof, row.alignof)


def resolve_types(
    rows: Sequence[tuple],
    struct_types: Sequence[Any],
    enums: Sequence[type],
    instance: Callable[[tuple], numba_types.Type] | None = None,
) -> tuple[numba_types.Type, ...]:
    """The Numba types that type descriptions (see ``rows.TypeRow``) stand for; ``instance``
    makes the class template instances that ``("instance", ...)`` descriptions name."""
    from numba.cuda.vector_types import vector_types

    def build(description: tuple) -> numba_types.Type:
        kind = description[0]
        if kind == "builtin":
            return getattr(numba_types, description[1])
        if kind == "vector":
            return vector_types[description[1]]
        if kind == "pointer":
            return numba_types.CPointer(build(description[1]))
        if kind == "voidptr":
            return numba_types.voidptr
        if kind == "unituple":
            return numba_types.UniTuple(build(description[1]), description[2])
        if kind == "struct":
            return struct_types[description[1]]
        if kind == "enum":
            return enum_member_type(enums[description[1]])
        if kind == "instance" and instance is not None:
            return instance(description)
        if kind == "external":
            return external_type(description[1], description[2])
        if kind == "object":  # dynamic binding: a type of this process
            return description[1]
        raise ValueError(f"unknown type description {description!r}")

    return tuple(build(row) for row in rows)


# A module's table of the structs it binds under their C++ spelling (spelling -> stub).
SPELLED_NAMES = "__numbast_spelled__"


class ExternalTypeError(ImportError):
    """A type another bindings module was expected to bind is not there."""


def external_type(module_name: str, python_name: str) -> numba_types.Type:
    """The Numba type of the struct or enum ``python_name`` bound by module ``module_name``."""
    import importlib

    module = importlib.import_module(module_name)
    bound = getattr(module, python_name, None)
    if bound is None:  # a struct named by C++ spelling (``runtime.spelled_names``)
        bound = getattr(module, SPELLED_NAMES, {}).get(python_name)
    numba_type = getattr(bound, "_numba_type_", None)
    if isinstance(numba_type, numba_types.Type):
        return numba_type
    if isinstance(bound, type) and issubclass(bound, enum.IntEnum):
        return enum_member_type(bound)
    raise ExternalTypeError(
        f"bindings that use {module_name}.{python_name} were generated, but {module_name} binds "
        f"no struct or enum of that name (it was generated differently since): regenerate "
        "these bindings (numbast-cache clear NAME, then import again)"
    )

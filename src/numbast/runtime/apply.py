"""The one apply path: register rows (``numbast.core.rows``) with Numba.

Dynamic binding (``bind_cxx_*``) plans a declaration into rows and applies them here at once; a
generated module holds its rows as literals and calls :func:`apply_module` when imported. Every
registration of a binding goes through these functions, so a generated module and dynamic
bindings behave the same by construction. This module composes the runtime's layers: structs
and functions (``registration``) and, only for rows that have them, templates
(``numbast.runtime.templates``, imported on first need).

This is also the entry point a generated module imports (``numbast.runtime.apply``, or the
module's own copy of the runtime when numbast is not installed), so it re-exports what such a
module uses.
"""

# No ``from __future__ import annotations`` here: typing.NamedTuple turns string annotations
# into ForwardRefs, compiling each when a warm import defines the classes below.

import operator
import threading
from collections.abc import Sequence
from functools import partial
from typing import Any, NamedTuple

from numba.cuda import types as numba_types
from numba.cuda.datamodel import models as numba_models

from ..core.rows import (
    FORMAT,
    SUPPORTED_FORMATS,
    EnumRow,
    FunctionRow,
    ModuleRows,
    StructBodyRow,
    StructRow,
)
from .deferred import LazyOverloads, defer
from .overloads import (
    DEFAULT_REGISTRIES,
    FunctionStubs,
    Registries,
    add_declaration,
)
from .registration import expect_struct_pointer_calls, hand_over, register_function, register_struct
from .row_types import (
    SPELLED_NAMES,
    enum_member_type,
    external_type,
    make_enum,
    make_struct_type_of,
    resolve_class,
    resolve_types,
)
from .shim_library import ShimLibrary
from .structs import (
    make_struct_stub,
)
from .toolkit import warn_if_older_cuda


def shim_preamble(include: str, macros: Sequence[str] = ()) -> str:
    """``numbast.core.shim_text.shim_preamble``, for modules that spell their preamble with it
    (a Shim Include Override evaluated at import); loaded only by those."""
    from ..core.shim_text import shim_preamble as preamble

    return preamble(include, macros)


class BindingsFormatError(ImportError):
    """A generated module's rows are in a format this runtime does not read."""


# -- structs and functions --------------------------------------------------------------------


def apply_struct(
    row: StructRow,
    numba_type: numba_types.Type,
    body: StructBodyRow,
    types_: Sequence[Any],
    shims: Sequence[tuple[str, str]],
    library: ShimLibrary,
    registries: Registries = DEFAULT_REGISTRIES,
    module_name: str = "",
    templates: Any = None,
    class_arguments: Sequence[Any] = (),
    stub: type | None = None,
    *,
    others: bool = True,
) -> type:
    """Data model, Python stub (``stub``, made when None) and members of one struct; returns
    the stub. Member function templates are instantiated in ``templates`` (a TemplateContext;
    made when None) with the struct's ``class_arguments`` (a class template instance's).
    ``others``: hand the struct to the other backends too (``backends``; a module's rows are
    handed over together by :func:`apply_rows`)."""
    stub = register_struct(
        row, numba_type, body, types_, shims, library, registries, module_name, stub
    )
    if others:
        entry = (row, numba_type, StructBodyRow(*body), stub)
        hand_over(module_name, library, shims, types_, structs=[entry])
    member_templates = StructBodyRow(*body).member_templates
    if member_templates:
        from .templates.context import TemplateContext
        from .templates.members import add_member_templates

        if templates is None:
            templates = TemplateContext(module_name or row.qual_name, library, registries)
        add_member_templates(numba_type, member_templates, class_arguments, templates)
    return stub


def apply_function(
    row: FunctionRow,
    types_: Sequence[Any],
    shims: Sequence[tuple[str, str]],
    library: ShimLibrary,
    stubs: FunctionStubs,
    registries: Registries = DEFAULT_REGISTRIES,
    *,
    others: bool = True,
) -> Any:
    """A free function or operator; returns what kernels call (the stub, or the ``operator``
    function). All overloads of one stub share it. ``others``: as for :func:`apply_struct`."""
    key = register_function(row, types_, shims, library, stubs, registries)
    if others:
        hand_over("", library, shims, types_, functions=[(FunctionRow(*row), key)])
    return key


# -- a whole module ---------------------------------------------------------------------------


class AppliedRows(NamedTuple):
    """What applying a module's rows made: its public names -> bound objects, and the Numba
    types of its structs and the Python enums of its enums, in row order."""

    names: dict[str, Any]
    struct_types: tuple[numba_types.Type, ...]
    enums: tuple[type, ...]


def apply_module(
    module_name: str,
    rows: ModuleRows,
    library: ShimLibrary,
    registries: Registries = DEFAULT_REGISTRIES,
    regenerate: str = "",
    *,
    arch: str | None = None,
    instances: Any = None,
) -> dict[str, Any]:
    """Apply a generated module's rows; returns its public names -> bound objects (see
    :func:`apply_rows`)."""
    applied = apply_rows(
        module_name, rows, library, registries, regenerate, arch=arch, instances=instances
    )
    return applied.names


def apply_rows(
    module_name: str,
    rows: ModuleRows,
    library: ShimLibrary,
    registries: Registries = DEFAULT_REGISTRIES,
    regenerate: str = "",
    *,
    arch: str | None = None,
    instances: Any = None,
    register_now: bool = False,
) -> AppliedRows:
    """Apply a module's rows (a generated module's, or dynamic binding's, which sets
    ``register_now``).

    The Python objects (stubs, enums, class templates) are made now; their registrations with
    Numba run before Numba next types or loads a kernel (``numbast.runtime.deferred``), so
    importing a module costs little. Templates are instantiated for ``arch`` (None: the current
    GPU's), with what the compiler said about their instances kept in ``instances`` (an
    InstanceStore; None: in memory).
    """
    rows = ModuleRows(*rows)
    if rows.format not in SUPPORTED_FORMATS:
        raise BindingsFormatError(
            f"{module_name} holds bindings in row format {rows.format}, which this numbast "
            f"runtime does not read (it reads {sorted(SUPPORTED_FORMATS)}, writes {FORMAT}); "
            f"regenerate the module: {regenerate or 'run the generator again'}"
        )
    enum_rows = [EnumRow(*row) for row in rows.enums]
    enums = tuple(make_enum(row, module_name) for row in enum_rows)
    library.bound_types += [enum_member_type(e) for e in enums]
    struct_rows = [StructRow(*row) for row in rows.structs]
    struct_types = tuple(make_struct_type_of(row, module_name) for row in struct_rows)
    for row in struct_rows:  # a misnamed data model fails the import, not a later compile
        resolve_class(row.data_model, numba_models, "data model", row.qual_name, module_name)
    struct_stubs = [make_struct_stub(r.python_name, r.qual_name, t, module_name)
                    for r, t in zip(struct_rows, struct_types, strict=True)]  # fmt: skip
    context = templates = None
    bodies = [StructBodyRow(*body) for body in rows.struct_bodies]
    if rows.class_templates or rows.function_templates or rows.alias_templates:
        from .templates.bindings import ModuleTemplates
        from .templates.context import TemplateContext

        context = TemplateContext(
            module_name, library, registries, arch, instances, own_types=struct_types
        )
        templates = ModuleTemplates(
            context,
            rows.class_templates,
            rows.function_templates,
            rows.alias_templates,
            struct_types,
        )
    elif any(body.member_templates for body in bodies):
        from .templates.context import TemplateContext

        context = TemplateContext(
            module_name, library, registries, arch, instances, own_types=struct_types
        )
    bound: dict[str, Any] = {row.python_name: e for row, e in zip(enum_rows, enums, strict=True)}
    spelled: dict[str, Any] = {}  # structs whose name is C++ spelling (runtime.spelled_names)
    for index, (row, stub) in enumerate(zip(struct_rows, struct_stubs, strict=True)):
        if templates is None or not templates.add_struct(index, stub):
            table = bound if row.python_name.isidentifier() else spelled
            table[row.python_name] = stub
    stubs = FunctionStubs(origin=module_name)
    if templates is not None:
        templates.prepare_stubs(stubs)
    function_rows = [FunctionRow(*row) for row in rows.functions]
    with_templates = set(stubs.stubs)  # names a function template shares: registered with it
    # Functions (not operators, not sharing a name with a function template) whose overloads
    # are registered when a kernel first looks them up (deferred.LazyOverloads).
    lazily = registries is DEFAULT_REGISTRIES and not register_now
    waiting: dict[Any, tuple] = {}  # stub -> the module's tuples (not tracked by the cyclic GC)
    eager_functions = []
    for plain, function_row in zip(rows.functions, function_rows, strict=True):
        name = function_row.python_name
        if not function_row.operator:
            key = bound[name] = stubs.stub(name, function_row.qual_name)
            add_declaration(key, function_row.declaration)
            if lazily and name not in with_templates:
                waiting[key] = (*waiting.get(key, ()), plain)
                continue
        eager_functions.append(function_row)
    on_lookup = LazyOverloads(waiting) if lazily else None  # handed over in one step
    if templates is not None:
        bound.update(templates.stubs())
    # A typedef may name a struct bound under its C++ spelling (``typedef Holder<int> X;``):
    # that stub is in no table of names, or belongs to its class template.
    by_python_name = {r.python_name: s for r, s in zip(struct_rows, struct_stubs, strict=True)}
    for alias, target in rows.aliases:
        bound[alias] = bound[target] if target in bound else by_python_name[target]
    if spelled:
        from .spelled_names import spelled_names

        by_qual_name = {r.qual_name: s for r, s in zip(struct_rows, struct_stubs, strict=True)}
        bound.update(spelled_names(spelled, by_qual_name, bound))
        bound[SPELLED_NAMES] = spelled  # other modules' rows name these types by spelling
    # Unscoped enumerators also live in the enclosing scope, as in C++ (``lib.CLAMPED``).
    for row, py_enum in zip(enum_rows, enums, strict=True):
        if not row.scoped:
            for name, _value in row.members:
                bound.setdefault(name, py_enum[name])

    resolved: list[tuple] = []
    resolving = threading.Lock()

    def resolved_types() -> tuple:
        # Once, for whichever backend registers first: resolving may import the modules whose
        # types the rows name, and instantiate the class template instances they name.
        with resolving:
            if not resolved:
                instance = templates.instance_type if templates is not None else None
                resolved.append(tuple(resolve_types(rows.types, struct_types, enums, instance)))
            return resolved[0]

    def register() -> None:
        types_ = resolved_types()
        structs = zip(struct_rows, struct_types, bodies, struct_stubs, strict=True)
        for row, numba_type, body, stub in structs:
            apply_struct(row, numba_type, body, types_, rows.shims, library, registries,
                         module_name, context, stub=stub, others=False)  # fmt: skip
        for function_row in eager_functions:
            apply_function(
                function_row, types_, rows.shims, library, stubs, registries, others=False
            )
        if on_lookup is not None:  # one step, whatever the number of functions
            on_lookup.ready(partial(_apply_functions, types_=types_, shims=rows.shims,
                                    library=library, stubs=stubs))  # fmt: skip
            waiting = on_lookup.rows_by_stub().values()
            named = ([FunctionRow(*row) for row in plain] for plain in waiting)
            expect_struct_pointer_calls(named, stubs, types_, rows.shims)
        if templates is not None:
            templates.register(stubs)

    keys = [
        getattr(operator, row.operator)
        if row.operator
        else stubs.stub(row.python_name, row.qual_name)
        for row in function_rows
    ]
    hand_over(
        module_name,
        library,
        rows.shims,
        resolved_types,
        structs=list(zip(struct_rows, struct_types, bodies, struct_stubs, strict=True)),
        functions=list(zip(function_rows, keys, strict=True)),
    )

    if lazily:
        defer(register)
    else:
        # Use Separate Registry: the user installs the registries into Numba's contexts, which
        # read them when installed, so they must be filled now; dynamic binding registers now
        # as binding one declaration does (its types are usable as soon as it returns).
        register()
    return AppliedRows(bound, struct_types, enums)


def _apply_functions(
    rows: Sequence[FunctionRow],
    types_: Sequence[Any],
    shims: Sequence[tuple[str, str]],
    library: ShimLibrary,
    stubs: FunctionStubs,
) -> None:
    """The overloads of one bound function (the module's rows), registered when a kernel
    first looks it up."""
    for row in rows:
        apply_function(FunctionRow(*row), types_, shims, library, stubs, others=False)


__all__ = [
    "DEFAULT_REGISTRIES",
    "AppliedRows",
    "BindingsFormatError",
    "Registries",
    "ShimLibrary",
    "apply_function",
    "apply_module",
    "apply_rows",
    "apply_struct",
    "enum_member_type",
    "external_type",
    "make_enum",
    "make_struct_type_of",
    "resolve_types",
    "shim_preamble",
    "warn_if_older_cuda",
]

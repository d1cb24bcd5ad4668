"""The one apply path: register rows (``numbast.runtime.rows``) with Numba.

Dynamic binding (``bind_cxx_*``) plans a declaration into rows and applies them here at once; a
generated module holds its rows as literals and calls :func:`apply_module` when imported. Every
registration of a binding goes through these functions, so a generated module and dynamic
bindings behave the same by construction.

This is also the entry point a generated module imports (``numbast.runtime.apply``, or the
module's own copy of the runtime when numbast is not installed), so it re-exports what such a
module uses.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from typing import Any

from numba.cuda import types as numba_types
from numba.cuda.datamodel import models as numba_models
from numba.cuda.typing.templates import signature

from .calls import Call
from .deferred import defer
from .members import add_mutating_methods, add_static_methods
from .native_twins import link_native_twin
from .overloads import (
    DEFAULT_REGISTRIES,
    FunctionStubs,
    Registries,
    add_declaration,
    add_overload,
)
from .row_types import (
    enum_member_type,
    external_type,
    make_enum,
    make_struct_type_of,
    resolve_class,
    resolve_types,
)
from .rows import (
    CONSTRUCTOR,
    CONVERSION,
    FORMAT,
    METHOD,
    OPERATOR,
    STATIC_METHOD,
    SUPPORTED_FORMATS,
    EnumRow,
    FunctionRow,
    ModuleRows,
    StructBodyRow,
    StructRow,
)
from .shim_library import ShimLibrary, shim_preamble
from .struct_pointers import (
    add_struct_pointer_parameters,
    is_struct_value,
    struct_pointer_positions,
)
from .structs import (
    add_conversion,
    add_conversion_to_struct,
    add_implicit_constructor,
    add_methods,
    add_struct_stub,
    make_struct_stub,
    register_struct_model,
)
from .toolkit import warn_if_older_cuda


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
) -> type:
    """Data model, Python stub (``stub``, made when None) and members of one struct; returns
    the stub. Member function templates are instantiated in ``templates`` (a TemplateContext;
    made when None) with the struct's ``class_arguments`` (a class template instance's)."""
    fields, public_fields, members, member_templates = StructBodyRow(*body)
    model = resolve_class(row.data_model, numba_models, "data model", row.qual_name, module_name)
    if fields is not None and issubclass(model, numba_models.StructModel):
        layout = [(name, types_[index]) for name, index in fields]
    else:
        layout = None
    register_struct_model(numba_type, model, layout, public_fields if layout else ())
    link_native_twin(row.qual_name, numba_type)
    if stub is None:
        stub = make_struct_stub(row.python_name, row.qual_name, numba_type)
    add_struct_stub(numba_type, stub, registries)
    library.bound_types.append(numba_type)
    methods: dict[str, list[Call]] = {}
    mutating: dict[str, list[Call]] = {}
    statics: dict[str, list[Call]] = {}
    for kind, name, call_row, flag in members:
        call = Call(call_row, types_, shims)
        if kind == CONSTRUCTOR:
            sig = signature(numba_type, *call.visible_args)
            add_overload(stub, sig, call.lowering(library), row.python_name, registries)
            if flag:
                add_implicit_constructor(numba_type, call.visible_args[0], call.lowering(library))
        elif kind == CONVERSION:
            add_conversion(numba_type, call.cxx_result, call.lowering(library), registries)
            if is_struct_value(call.cxx_result):
                add_conversion_to_struct(
                    numba_type, call.cxx_result, call.lowering(library), registries
                )
        elif kind == OPERATOR:
            key = getattr(operator, name)
            add_overload(key, call.signature(), call.lowering(library), name, registries)
        elif kind == STATIC_METHOD:
            statics.setdefault(name, []).append(call)
        elif kind == METHOD:
            methods.setdefault(name, []).append(call)
            if flag:
                mutating.setdefault(name, []).append(call)
        else:
            raise ValueError(f"{module_name}: unknown member kind {kind!r} of {row.qual_name}")
    if statics:
        overloads = {
            name: [(c.signature(), c.lowering(library)) for c in calls]
            for name, calls in statics.items()
        }
        add_static_methods(stub, row.qual_name, overloads, registries)
    if methods:
        overloads = {
            name: [(c.visible_args[1:], c.numba_return_type, c.lowering(library)) for c in calls]
            for name, calls in methods.items()
        }
        add_methods(numba_type, row.qual_name, overloads, registries)
    if mutating:
        mutators = {
            name: [
                (c.visible_args[1:], c.numba_return_type, c.lowering(library, True)) for c in calls
            ]
            for name, calls in mutating.items()
        }
        add_mutating_methods(numba_type, mutators, registries)
    if member_templates:
        from .template_members import add_member_templates
        from .templates import TemplateContext

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
) -> Any:
    """A free function or operator; returns what kernels call (the stub, or the ``operator``
    function). All overloads of one stub share it."""
    call = Call(row.call, types_, shims)
    if row.operator:
        key = getattr(operator, row.operator)
    else:
        key = stubs.stub(row.python_name, row.qual_name)
        add_declaration(key, row.declaration)
    lowering = call.lowering(library)
    if row.cooperative:
        lowering = _cooperative(lowering)
    add_overload(key, call.signature(), lowering, row.label, registries)
    positions = struct_pointer_positions(call.visible_args)
    if positions and not row.operator:
        # ``f(state)`` for ``f(State *)``: the kernel's struct is passed by address and updated.
        add_struct_pointer_parameters(key, positions, registries)
    return key


def _cooperative(lowering: Callable) -> Callable:
    """Kernels calling this need a cooperative launch (grid-wide synchronization): mark the
    code library as numba-cuda's cooperative groups do, so the kernel is launched that way."""

    def lower_cooperative_call(context, builder, sig, args):
        context.active_code_library.use_cooperative = True
        return lowering(context, builder, sig, args)

    return lower_cooperative_call


# -- a whole module ---------------------------------------------------------------------------


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
    """Apply a generated module's rows; returns its public names -> bound objects.

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
    enums = tuple(make_enum(row) for row in enum_rows)
    library.bound_types += [enum_member_type(e) for e in enums]
    struct_rows = [StructRow(*row) for row in rows.structs]
    struct_types = tuple(make_struct_type_of(row, module_name) for row in struct_rows)
    for row in struct_rows:  # a misnamed data model fails the import, not a later compile
        resolve_class(row.data_model, numba_models, "data model", row.qual_name, module_name)
    struct_stubs = [make_struct_stub(r.python_name, r.qual_name, t)
                    for r, t in zip(struct_rows, struct_types, strict=True)]  # fmt: skip
    context = templates = None
    bodies = [StructBodyRow(*body) for body in rows.struct_bodies]
    if rows.class_templates or rows.function_templates or rows.alias_templates:
        from .template_bindings import ModuleTemplates
        from .templates import TemplateContext

        context = TemplateContext(module_name, library, registries, arch, instances)
        templates = ModuleTemplates(
            context,
            rows.class_templates,
            rows.function_templates,
            rows.alias_templates,
            struct_types,
        )
    elif any(body.member_templates for body in bodies):
        from .templates import TemplateContext

        context = TemplateContext(module_name, library, registries, arch, instances)
    bound: dict[str, Any] = {row.python_name: e for row, e in zip(enum_rows, enums, strict=True)}
    for index, (row, stub) in enumerate(zip(struct_rows, struct_stubs, strict=True)):
        if templates is None or not templates.add_struct(index, stub):
            bound[row.python_name] = stub
    stubs = FunctionStubs(origin=module_name)
    if templates is not None:
        templates.prepare_stubs(stubs)
    function_rows = [FunctionRow(*row) for row in rows.functions]
    for function_row in function_rows:
        if not function_row.operator:
            key = bound[function_row.python_name] = stubs.stub(
                function_row.python_name, function_row.qual_name
            )
            add_declaration(key, function_row.declaration)
    if templates is not None:
        bound.update(templates.stubs())
    for alias, target in rows.aliases:
        bound[alias] = bound[target]
    # Unscoped enumerators also live in the enclosing scope, as in C++ (``lib.CLAMPED``).
    for row, py_enum in zip(enum_rows, enums, strict=True):
        if not row.scoped:
            for name, _value in row.members:
                bound.setdefault(name, py_enum[name])

    def register() -> None:
        instance = templates.instance_type if templates is not None else None
        types_ = resolve_types(rows.types, struct_types, enums, instance)
        structs = zip(struct_rows, struct_types, bodies, struct_stubs, strict=True)
        for row, numba_type, body, stub in structs:
            apply_struct(row, numba_type, body, types_, rows.shims, library, registries,
                         module_name, context, stub=stub)  # fmt: skip
        for function_row in function_rows:
            apply_function(function_row, types_, rows.shims, library, stubs, registries)
        if templates is not None:
            templates.register(stubs)

    if registries is DEFAULT_REGISTRIES:
        defer(register)
    else:
        # Use Separate Registry: the user installs the registries into Numba's contexts, which
        # read them when installed, so they must be filled now.
        register()
    return bound


__all__ = [
    "DEFAULT_REGISTRIES",
    "BindingsFormatError",
    "Registries",
    "ShimLibrary",
    "apply_function",
    "apply_module",
    "apply_struct",
    "enum_member_type",
    "external_type",
    "make_enum",
    "make_struct_type_of",
    "resolve_types",
    "shim_preamble",
    "warn_if_older_cuda",
]

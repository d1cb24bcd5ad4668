"""Register one struct's or one free function's rows with Numba: the data model, the Python
stub, constructors, conversions, operators and methods (``register_struct``), and the overloads
of a function (``register_function``); and handing what was registered to the other compilers'
backends (``hand_over``). Templates are the template runtime's
(``numbast.runtime.templates``); ``numbast.runtime.apply`` composes both.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from numba.cuda import types as numba_types
from numba.cuda.datamodel import models as numba_models
from numba.cuda.typing.templates import signature

from ..core.cxx_names import NATIVE_TWIN_TYPES, toolkit_vector_function
from ..core.rows import (
    CONSTRUCTOR,
    CONVERSION,
    METHOD,
    OPERATOR,
    STATIC_METHOD,
    FunctionRow,
    StructBodyRow,
    StructRow,
)
from .calls import Call
from .overloads import (
    DEFAULT_REGISTRIES,
    FunctionStubs,
    Registries,
    add_declaration,
    add_overload,
    overload_template,
)
from .row_types import resolve_class
from .shim_library import ShimLibrary, runtime_part
from .structs import (
    add_conversion,
    add_conversion_to_struct,
    add_implicit_constructor,
    add_methods,
    add_struct_stub,
    is_struct_value,
    make_struct_stub,
    register_struct_model,
    struct_pointer_positions,
)


def register_struct(
    row: StructRow,
    numba_type: numba_types.Type,
    body: StructBodyRow,
    types_: Sequence[Any],
    shims: Sequence[tuple[str, str]],
    library: ShimLibrary,
    registries: Registries = DEFAULT_REGISTRIES,
    module_name: str = "",
    stub: type | None = None,
) -> type:
    """Data model, Python stub (``stub``, made when None) and members of one struct; returns
    the stub. Its member function templates are the template runtime's (``apply_struct``)."""
    fields, public_fields, members, _member_templates = StructBodyRow(*body)
    model = resolve_class(row.data_model, numba_models, "data model", row.qual_name, module_name)
    if fields is not None and issubclass(model, numba_models.StructModel):
        layout = [(name, types_[index]) for name, index in fields]
    else:
        layout = None
    register_struct_model(numba_type, model, layout, public_fields if layout else ())
    if row.qual_name in NATIVE_TWIN_TYPES:  # __half, __nv_bfloat16: numba-cuda has its own
        from .native_twins import link_native_twin

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
    if not statics:
        # The stub is a typed global of kernels even when no constructor binds, so that the
        # typing error says why it cannot construct one (static members make it one already).
        overload_template(stub, row.python_name, registries)
    if statics:
        overloads = {
            name: [(c.signature(), c.lowering(library)) for c in calls]
            for name, calls in statics.items()
        }
        from .members import add_static_methods

        add_static_methods(stub, row.qual_name, overloads, registries)
    if methods:
        # Non-const overloads first: among equally good matches the first is taken, and C++
        # prefers the non-const member for a non-const object (``T &at(int)`` over
        # ``const T &at(int) const``).
        overloads = {
            name: [
                (c.visible_args[1:], c.numba_return_type, c.lowering(library))
                for c in sorted(calls, key=lambda c: c not in mutating.get(name, ()))
            ]
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
        from .members import add_mutating_methods

        add_mutating_methods(numba_type, mutators, registries)
    return stub


def register_function(
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
    if not row.operator and toolkit_vector_function(row.qual_name):
        from .vector_functions import add_toolkit_vector_function

        add_toolkit_vector_function(key, row.qual_name, registries)
    positions = struct_pointer_positions(call.visible_args)
    if positions and not row.operator:
        from .struct_pointers import add_struct_pointer_parameters

        # ``f(state)`` for ``f(State *)``: the kernel's struct is passed by address and updated.
        add_struct_pointer_parameters(key, positions, registries)
    return key


def expect_struct_pointer_calls(
    functions: Iterable[Sequence[FunctionRow]],
    stubs: FunctionStubs,
    types_: Sequence[Any],
    shims: Sequence[tuple[str, str]],
) -> None:
    """Tell the rewrite that passes structs by address (``struct_pointers``) which of
    ``functions`` (the overload rows of each, registered on first lookup) take a pointer to a
    bound struct: it runs before any lookup, so it would not know them from their
    registrations (``curand_init(seed, i, 0, state)`` with a local state found no overload)."""
    candidates = {
        index
        for index, numba_type in enumerate(types_)
        if is_struct_value(numba_type)
        or (isinstance(numba_type, numba_types.CPointer) and is_struct_value(numba_type.dtype))
    }
    if not candidates:  # no struct or struct pointer anywhere: most headers, no Call built
        return
    for rows in functions:
        positions = set()
        for row in rows:
            if not row.operator and any(argument[0] in candidates for argument in row.call[1]):
                positions.update(
                    struct_pointer_positions(Call(row.call, types_, shims).visible_args)
                )
        if positions:
            from .struct_pointers import expect_struct_pointer_parameters

            stub = stubs.stub(rows[0].python_name, rows[0].qual_name)
            expect_struct_pointer_parameters(stub, positions)


def _cooperative(lowering: Callable) -> Callable:
    """Kernels calling this need a cooperative launch (grid-wide synchronization): mark the
    code library as numba-cuda's cooperative groups do, so the kernel is launched that way."""

    def lower_cooperative_call(context, builder, sig, args):
        context.active_code_library.use_cooperative = True
        return lowering(context, builder, sig, args)

    return lower_cooperative_call


def hand_over(*parts: Any, **entries: Any) -> None:
    """Hand what one apply registers with numba-cuda to the other compilers' backends (a
    ``backends.Registration`` of ``parts`` and ``entries``). A runtime copy carries no
    backends: it uses the installed numbast's, and where there is none, bindings serve
    numba-cuda only."""
    # Nothing to make where no other backend's compiler is imported or installed; asked of
    # other_backends, so that such a process does not import the hand-over (``backends``).
    other_backends = runtime_part("runtime.other_backends", required=False)
    if other_backends is not None and not other_backends.wanted():
        return
    backends = runtime_part("runtime.backends", required=False)
    # (An older installed numbast has no ``wanted``: it is handed everything.)
    if backends is not None and getattr(backends, "wanted", lambda: True)():
        backends.hand_over(backends.Registration(*parts, **entries))

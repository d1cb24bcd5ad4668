"""Register one Registration (``numbast.runtime.backends``) with numba-cuda-mlir: each struct's
model, stub typing, constructors, conversions, operators and methods, and each function's
overloads, from the same rows and shims numba-cuda's registration uses
(``numbast.runtime.registration``).

What numba-cuda-mlir kernels cannot do yet is left out of them, with a reason kept in
``NOT_REGISTERED`` and logged: non-const methods (they update their object, which needs
numba-cuda's call rewrites), static methods, ``operator()``, the toolkit's vector functions
beside a header's, and anything whose types have no numba-cuda-mlir counterpart.
"""

from __future__ import annotations

import logging
import operator
from typing import Any

from numba_cuda_mlir.numba_cuda.typing.templates import signature

from ..core.cxx_names import toolkit_vector_function
from ..core.rows import CONSTRUCTOR, CONVERSION, METHOD, OPERATOR, STATIC_METHOD
from ..runtime.backends import FunctionEntry, Registration, StructEntry
from ..runtime.calls import Call
from ..runtime.state import shared_table
from ..runtime.structs import struct_pointer_positions
from .calls import MlirCall
from .overloads import add_methods, add_overload
from .structs import (
    add_conversion,
    add_implicit_constructor,
    add_struct_stub,
    register_struct_model,
)
from .type_translation import NoMlirCounterpart, struct_twin

logger = logging.getLogger(__name__)

# "<C++ name>" or "<C++ type>::<member>" -> why numba-cuda-mlir kernels cannot call it yet
NOT_REGISTERED: dict[str, str] = shared_table("mlir_not_registered", dict)


def register(registration: Registration) -> None:
    """Register everything ``registration`` holds with numba-cuda-mlir."""
    types_ = registration.types
    for entry in registration.structs:
        register_struct(entry, types_, registration)
    for entry in registration.functions:
        register_function(entry, types_, registration)


def _left_out(name: str, reason: str) -> None:
    NOT_REGISTERED[name] = reason
    logger.info("%s is not callable from numba-cuda-mlir kernels: %s", name, reason)


def register_struct(entry: StructEntry, types_: Any, registration: Registration) -> None:
    row, numba_type, body, stub = entry
    library, shims = registration.library, registration.shims
    twin = struct_twin(numba_type)
    fields = None if body.fields is None else [(name, types_[i]) for name, i in body.fields]
    register_struct_model(twin, row.data_model, fields, body.public_fields,
                          registration.module_name)  # fmt: skip
    add_struct_stub(twin, stub)
    methods: dict[str, list] = {}
    for kind, name, call_row, flag in body.members:
        where = f"{row.qual_name}::{name}"
        try:
            call = MlirCall.of(Call(call_row, types_, shims))
        except NoMlirCounterpart as exc:
            _left_out(where, str(exc))
            continue
        if kind == CONSTRUCTOR:
            add_overload(stub, signature(twin, *call.visible_args), call.lowering(library),
                         row.python_name)  # fmt: skip
            if flag:
                add_implicit_constructor(twin, call.visible_args[0], call.lowering(library))
        elif kind == CONVERSION:
            add_conversion(twin, call.cxx_result, call.lowering(library))
        elif kind == OPERATOR:
            if name == "__call__":
                _left_out(where, "operator() is not bound for numba-cuda-mlir yet")
                continue
            add_overload(getattr(operator, name), call.signature(), call.lowering(library),
                         name, builtin=True)  # fmt: skip
        elif kind == METHOD and not flag:
            sig = signature(call.numba_return_type, *call.visible_args[1:], recvr=twin)
            methods.setdefault(name, []).append((sig, call.lowering(library)))
        elif kind == METHOD:
            _left_out(f"{where} (non-const)", "a method updating its object is not supported "
                      "in numba-cuda-mlir kernels yet; numba-cuda kernels can call it")  # fmt: skip
        elif kind == STATIC_METHOD:
            _left_out(where, "static methods are not bound for numba-cuda-mlir yet")
    if methods:
        add_methods(twin, row.qual_name, methods)


def register_function(entry: FunctionEntry, types_: Any, registration: Registration) -> None:
    row, key = entry
    cuda_call = Call(row.call, types_, registration.shims)
    try:
        call = MlirCall.of(cuda_call)
    except NoMlirCounterpart as exc:
        _left_out(row.qual_name, str(exc))
        return
    lowering = call.lowering(registration.library)
    if row.cooperative:
        lowering = _cooperative(lowering)
    add_overload(key, call.signature(), lowering, row.label, builtin=bool(row.operator))
    positions = struct_pointer_positions(cuda_call.visible_args)  # numba-cuda's, the same
    if positions and not row.operator:
        from .struct_pointers import add_struct_pointer_parameters

        # ``f(state)`` for ``f(State *)``: the kernel's struct is passed by address and updated
        add_struct_pointer_parameters(key, positions)
    if not row.operator and toolkit_vector_function(row.qual_name):
        _left_out(f"{row.qual_name} (the toolkit's overloads)", "the toolkit's vector "
                  "functions are not joined to a header's in numba-cuda-mlir yet")  # fmt: skip


def _cooperative(lowering):
    """Kernels calling this need a cooperative launch: tell numba-cuda-mlir, as its own
    external functions with ``use_cooperative`` do."""

    def lower_cooperative_call(builder, values):
        builder.metadata["use_cooperative"] = True
        return lowering(builder, values)

    return lower_cooperative_call

"""Bound structs in numba-cuda-mlir: the twin's data model, its readable fields, and the
conversions into and out of it (numba-cuda's are ``numbast.runtime.structs``).

A struct with a field layout gets a struct model of its fields at their C++ offsets: the
padding members the rows carry (``_numbast_pad<offset>``, bytes) become LLVM byte arrays.
Others (an opaque model in the rows, bit-fields, a field type numba-cuda-mlir cannot hold in a
struct) get an opaque value of the C++ size, as numba-cuda's opaque model.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from numba.cuda.datamodel import models as cuda_models
from numba_cuda_mlir import types as mlir_types
from numba_cuda_mlir._mlir import ir
from numba_cuda_mlir.extending import lowering_registry, make_attribute_wrapper
from numba_cuda_mlir.models import StructModel, register_model
from numba_cuda_mlir.numba_cuda.datamodel.models import PrimitiveModel
from numba_cuda_mlir.numba_cuda.typing.templates import signature

from ..runtime.row_types import resolve_class
from ..runtime.state import LOCK, shared_table
from .overloads import Lowering, add_overload
from .type_translation import NoMlirCounterpart, mlir_type

logger = logging.getLogger(__name__)

PADDING_PREFIX = "_numbast_pad"


class Padding(mlir_types.Type):
    """Bytes a struct model holds where C++ pads and LLVM would not: never read."""

    def __init__(self, size: int) -> None:
        self.size = size
        super().__init__(name=f"numbast_padding_{size}")


@register_model(Padding)
class PaddingModel(PrimitiveModel):
    def __init__(self, dmm, fe_type):
        super().__init__(dmm, fe_type, ir.Type.parse(f"!llvm.array<{fe_type.size} x i8>"))


def _opaque_mlir_type(size: int) -> Any:
    if size in (1, 2, 4, 8, 16):
        return ir.IntegerType.get_signless(size * 8)
    return ir.Type.parse(f"!llvm.array<{size} x i8>")


def register_struct_model(
    twin: Any, data_model: Any, fields: Sequence[tuple[str, Any]] | None, public_fields, where: str
) -> None:
    """The twin's model: ``fields`` (name, numba-cuda type) as a struct model with the public
    fields readable, when the rows' model (``data_model``, a numba-cuda model class or its
    name) is a StructModel; else an opaque value of the C++ size."""
    model = resolve_class(data_model, cuda_models, "data model", twin.cxx_qual_name, where)
    members = None
    if fields and issubclass(model, cuda_models.StructModel):
        try:
            members = [(name, _member_type(name, t)) for name, t in fields]
        except NoMlirCounterpart as exc:
            logger.info("%s: opaque in numba-cuda-mlir kernels (%s)", twin.cxx_qual_name, exc)
    type_class = type(twin)
    if members is not None:

        class BoundStructModel(StructModel):
            def __init__(self, dmm, fe_type):
                super().__init__(dmm, fe_type, members)

        register_model(type_class)(BoundStructModel)
        for name in public_fields:
            make_attribute_wrapper(type_class, name, name)
        return
    if not issubclass(model, (cuda_models.StructModel, cuda_models.PrimitiveModel)):
        logger.info(
            "%s: data model %s has no numba-cuda-mlir counterpart; opaque in its kernels",
            twin.cxx_qual_name,
            model.__name__,
        )
    size = twin.sizeof_

    class BoundOpaqueModel(PrimitiveModel):
        def __init__(self, dmm, fe_type):
            super().__init__(dmm, fe_type, _opaque_mlir_type(size))

    register_model(type_class)(BoundOpaqueModel)


def _member_type(name: str, numba_type: Any) -> Any:
    if name.startswith(PADDING_PREFIX) and getattr(numba_type, "count", None) is not None:
        return Padding(numba_type.count)
    translated = mlir_type(numba_type)
    if isinstance(translated, mlir_types.BaseTuple):
        # numba-cuda-mlir holds tuples as several values, not as one member of a struct
        raise NoMlirCounterpart(f"field {name} is an array ({numba_type})")
    return translated


# twin -> the struct stub kernels construct it with; conversions to a twin whose stub is not
# known yet (``S::operator T()`` is also ``T(s)``)
_STUBS: dict[Any, type] = shared_table("mlir_struct_stubs", dict)
_PENDING_CONVERSIONS: dict[Any, list] = shared_table("mlir_pending_struct_conversions", dict)


def add_struct_stub(twin: Any, stub: type) -> None:
    with LOCK:
        _STUBS[twin] = stub
        pending = _PENDING_CONVERSIONS.pop(twin, [])
    for source, lowering in pending:
        add_overload(stub, signature(twin, source), lowering, stub.__name__)


def add_implicit_constructor(twin: Any, source: Any, lowering: Lowering) -> None:
    """A non-explicit converting constructor: ``source`` converts to the struct."""
    twin.implicit_from.add(source)
    _add_cast(source, twin, lowering)


def add_conversion(twin: Any, target: Any, lowering: Lowering) -> None:
    """``operator T()``: casts to ``target`` (``types.float64(x)`` for a struct whose parent
    type is ``Number``), ``T(s)`` for a bound struct ``T``, and Python's ``float(x)`` /
    ``int(x)`` / ``bool(x)`` through the widest conversion of that kind."""
    _add_cast(twin, target, lowering)
    if isinstance(target, mlir_types.Number):
        _add_number_class_call(twin, target)
    if getattr(target, "cxx_qual_name", None) is not None:
        with LOCK:
            stub = _STUBS.get(target)
            if stub is None:
                _PENDING_CONVERSIONS.setdefault(target, []).append((twin, lowering))
                return
        add_overload(stub, signature(target, twin), lowering, stub.__name__)
        return
    builtin = _builtin_for(target)
    if builtin is None:
        return
    python_builtin, result = builtin
    slot = (twin, python_builtin)
    with LOCK:
        current = _BUILTIN_CONVERSIONS.get(slot)
        if current is not None and getattr(current, "bitwidth", 0) >= getattr(
            target, "bitwidth", 0
        ):
            return
        _BUILTIN_CONVERSIONS[slot] = target

    def lower_builtin_call(builder, values):
        chosen = _BUILTIN_CONVERSIONS[slot]
        converted = builder.lower_cast(twin, chosen, values[0])
        return builder.lower_cast(chosen, result, converted)

    add_overload(
        python_builtin,
        signature(result, twin),
        lower_builtin_call,
        python_builtin.__name__,
        builtin=True,
    )


# (twin, builtin) -> the conversion target float() / int() / bool() use
_BUILTIN_CONVERSIONS: dict = shared_table("mlir_builtin_conversions", dict)


def _builtin_for(target: Any) -> tuple | None:
    if isinstance(target, mlir_types.Float):
        return float, mlir_types.float64
    if isinstance(target, mlir_types.Integer):
        return int, mlir_types.int64
    if isinstance(target, mlir_types.Boolean):
        return bool, mlir_types.boolean
    return None


def _add_cast(source: Any, target: Any, lowering: Lowering) -> None:
    def cast(context, builder, fromty, toty, value):
        return lowering(builder, [value])

    lowering_registry.lower_cast(source, target)(cast)


# twin -> the numbers it has a conversion operator to
_NUMBER_TARGETS: dict[Any, list] = shared_table("mlir_number_conversions", dict)


def _add_number_class_call(twin: Any, target: Any) -> None:
    """``types.float64(x)``: numba-cuda-mlir lowers a number type called on a ``Number`` by
    converting the value's bits; a bound struct converts through its conversion operator: to
    that type, else the widest conversion to a number, then as numbers convert."""
    with LOCK:
        first = twin not in _NUMBER_TARGETS
        _NUMBER_TARGETS.setdefault(twin, []).append(target)
    if not first:
        return

    def lower_number_class_call(builder, target_var, args, kws):
        wanted = builder.get_numba_type(target_var.name)
        value = builder.load_var(args[0])
        targets = _NUMBER_TARGETS[twin]
        via = wanted if wanted in targets else max(targets, key=lambda t: t.bitwidth)
        converted = builder.lower_cast(twin, via, value)
        if via != wanted:
            converted = builder.lower_cast(via, wanted, converted)
        builder.store_var(target_var, converted)

    lowering_registry.lower(mlir_types.NumberClass, type(twin))(lower_number_class_call)

"""numba-cuda types -> numba-cuda-mlir types.

Rows are resolved once, as numba-cuda types (``numbast.runtime.backends``); numba-cuda-mlir has
a type system of its own (its own copy of Numba's types), so each type a registration names is
translated here: scalars, vectors, pointers and tuples by what they are, enum members by their
Python enum (the same class in both), and each bound struct (a numba-cuda type made by
``numbast.runtime.structs``) to one numba-cuda-mlir type made for it, its twin, with the same C++
name, size and alignment, and a parent class of the same name where numba-cuda-mlir has one.
Twins live in the process-wide registration state, so every copy of the runtime finds the same.
"""

from __future__ import annotations

from typing import Any

from numba.cuda import types as cuda_types
from numba_cuda_mlir import types as mlir_types
from numba_cuda_mlir.numba_cuda import types as vendored_types
from numba_cuda_mlir.numba_cuda.typeconv import Conversion

from ..runtime.state import LOCK, shared_table

# numba-cuda struct type -> its twin
_TWINS: dict[Any, Any] = shared_table("mlir_struct_twins", dict)


class NoMlirCounterpart(TypeError):
    """A numba-cuda type that numba-cuda-mlir has no counterpart of (yet)."""


def mlir_type(numba_type: Any) -> Any:
    """The numba-cuda-mlir type standing for the numba-cuda type ``numba_type``."""
    if getattr(numba_type, "cxx_qual_name", None) is not None:
        return struct_twin(numba_type)
    if isinstance(numba_type, cuda_types.CPointer):
        return mlir_types.CPointer(mlir_type(numba_type.dtype))
    if numba_type == cuda_types.voidptr:
        return mlir_types.voidptr
    if isinstance(numba_type, cuda_types.UniTuple):
        return mlir_types.UniTuple(mlir_type(numba_type.dtype), numba_type.count)
    if isinstance(numba_type, cuda_types.Tuple):
        return mlir_types.Tuple([mlir_type(t) for t in numba_type.types])
    if isinstance(numba_type, cuda_types.IntEnumMember):
        return mlir_types.IntEnumMember(numba_type.instance_class, mlir_type(numba_type.dtype))
    if isinstance(numba_type, cuda_types.NoneType):
        return mlir_types.none
    if isinstance(numba_type, cuda_types.Boolean):
        return mlir_types.boolean
    if numba_type.name == "__nv_bfloat16":  # numba-cuda's bfloat16 extension type
        return vendored_types.bfloat16
    if _is_vector(numba_type):
        from numba_cuda_mlir.cuda import vector_types

        found = getattr(vector_types, numba_type.name, None)
        if found is not None:
            return found
    scalar = getattr(cuda_types, numba_type.name, None)
    if scalar == numba_type and isinstance(numba_type, (cuda_types.Integer, cuda_types.Float)):
        return getattr(mlir_types, numba_type.name)
    raise NoMlirCounterpart(
        f"numba-cuda type {numba_type} has no numba-cuda-mlir counterpart in numbast yet"
    )


def _is_vector(numba_type: Any) -> bool:
    from numba.cuda.vector_types import VectorType

    return isinstance(numba_type, VectorType)


def struct_twin(numba_type: Any) -> Any:
    """The numba-cuda-mlir type of a bound struct, made the first time it is asked for."""
    with LOCK:
        twin = _TWINS.get(numba_type)
        if twin is None:
            twin = _TWINS[numba_type] = _make_twin(numba_type)
        return twin


def _make_twin(numba_type: Any) -> Any:
    parent = _parent_class(type(numba_type))
    qual_name = numba_type.cxx_qual_name

    def __init__(self) -> None:
        parent.__init__(self, name=qual_name)

    def can_convert_from(self, typingctx, other):
        # As numba-cuda's bound types do: exact sources of non-explicit converting
        # constructors convert safely, numbers that convert to such a source unsafely.
        if other in self.implicit_from:
            return Conversion.safe
        for source in self.implicit_from:
            if isinstance(other, mlir_types.Number) and isinstance(source, mlir_types.Number):
                if typingctx.can_convert(other, source) is not None:
                    return Conversion.unsafe
        return None

    type_class = type(
        f"{qual_name.replace('::', '_')}_MlirType",
        (parent,),
        {"__init__": __init__, "can_convert_from": can_convert_from, "mutable": True},
    )
    twin = type_class()
    twin.implicit_from = set()
    twin.sizeof_ = numba_type.sizeof_
    twin.alignof_ = numba_type.alignof_
    twin.cxx_qual_name = qual_name
    twin.numba_cuda_type = numba_type
    return twin


def _parent_class(bound_class: type) -> type:
    """numba-cuda-mlir's type class named as the struct's parent (``Number``, ``Type``...)."""
    for base in bound_class.__mro__[1:]:
        found = getattr(vendored_types, base.__name__, None)
        if isinstance(found, type) and issubclass(found, vendored_types.Type):
            return found
    return vendored_types.Type


def is_bound_type(numba_type: Any) -> bool:
    """True for the numba-cuda-mlir types of C++ classes and enums: twins of bound structs and
    enums, and the CUDA vector types (as ``numbast.runtime.overloads.is_bound_type``)."""
    if getattr(numba_type, "cxx_qual_name", None) is not None:
        return True
    from numba_cuda_mlir.type_defs.vector_types import VectorType

    if isinstance(numba_type, VectorType):
        return True
    return isinstance(numba_type, mlir_types.IntEnumMember) and hasattr(
        numba_type.instance_class, "_cxx_name_"
    )

"""The Numba side of a bound C++ struct: its type class, its data model and its Python stub."""

from __future__ import annotations

from typing import Any

from llvmlite import ir
from numba.cuda import types
from numba.cuda.datamodel.models import PrimitiveModel, StructModel
from numba.cuda.extending import as_numba_type, register_model
from numba.cuda.typeconv import Conversion

from ast_canopy.model import Struct
from numbast.diagnostics import BindingError
from numbast.type_mapping import UnsupportedTypeError, to_numba_type


class BoundCxxStruct:
    """Base of the Python objects that stand for bound C++ structs in kernels.

    ``MyStruct(args)`` inside a kernel calls the matching C++ constructor. Outside a kernel
    there is no device object to make, so instantiation says so.
    """

    _numba_type_: types.Type
    _cxx_decl_: Struct

    def __new__(cls, *args: Any, **kwargs: Any) -> Any:
        raise TypeError(
            f"{cls._cxx_decl_.qual_name} is a CUDA C++ type bound by numbast: construct it "
            "inside a @cuda.jit kernel or device function"
        )


def make_struct_type(parent_type: type[types.Type], decl: Struct) -> types.Type:
    """A new Numba type class derived from ``parent_type``, and its single instance.

    The class answers Numba's implicit-conversion questions from ``implicit_from``, which the
    binder fills with the argument types of non-explicit converting constructors.
    """
    if not (isinstance(parent_type, type) and issubclass(parent_type, types.Type)):
        raise BindingError(f"parent type {parent_type!r} is not a Numba type class")

    def __init__(self) -> None:
        parent_type.__init__(self, name=decl.qual_name)

    def can_convert_from(self, typingctx, other):
        if other in self.implicit_from:
            return Conversion.safe
        for source in self.implicit_from:
            # One standard conversion before the converting constructor, as C++ allows.
            if isinstance(other, types.Number) and isinstance(source, types.Number):
                if typingctx.can_convert(other, source) is not None:
                    return Conversion.unsafe
        return None

    type_class = type(
        f"{decl.name}_NumbaType",
        (parent_type,),
        {"__init__": __init__, "can_convert_from": can_convert_from},
    )
    instance = type_class()
    instance.implicit_from = set()
    instance.alignof_ = decl.alignof_
    instance.sizeof_ = decl.sizeof_
    instance.cxx_qual_name = decl.qual_name
    return instance


def _opaque_llvm_type(size: int) -> ir.Type:
    if size in (1, 2, 4, 8, 16):
        return ir.IntType(size * 8)
    return ir.ArrayType(ir.IntType(8), size)


def natural_layout_matches(decl: Struct) -> str | None:
    """None when laying the fields out naturally reproduces the C++ offsets and size.

    Otherwise the reason it does not (padding from alignas, bit-fields, bases...), in which
    case the struct gets an opaque model of the right size instead of a StructModel.
    """
    if decl.bases:
        return "it has base classes"
    offset = 0
    max_align = 1
    for field in decl.fields:
        if field.is_bitfield:
            return f"field {field.name} is a bit-field"
        size, align = field.type_.sizeof_, field.type_.alignof_
        if size is None or align is None:
            return f"field {field.name} has no known size"
        offset = (offset + align - 1) // align * align
        if field.offset is not None and field.offset != offset:
            return f"field {field.name} is at offset {field.offset}, not {offset}"
        offset += size
        max_align = max(max_align, align)
    total = (offset + max_align - 1) // max_align * max_align
    if decl.sizeof_ is not None and total != decl.sizeof_:
        return f"fields add up to {total} bytes, the C++ size is {decl.sizeof_}"
    return None


def register_data_model(numba_type: types.Type, decl: Struct, data_model: type) -> bool:
    """Register the data model; returns True when the fields are real members (StructModel)."""
    if decl.sizeof_ is None:
        raise BindingError("its size is unknown (incomplete or dependent type)")
    type_class = type(numba_type)
    if isinstance(data_model, type) and issubclass(data_model, StructModel):
        reason = natural_layout_matches(decl)
        members = None
        if reason is None:
            try:
                members = [(f.name, to_numba_type(f.type_)) for f in decl.fields]
            except UnsupportedTypeError as exc:
                reason = str(exc)
        if members is not None and members:

            class BoundStructModel(StructModel):
                def __init__(self, dmm, fe_type):
                    super().__init__(dmm, fe_type, members)

            register_model(type_class)(BoundStructModel)
            return True
        # Fall through to an opaque model of the right size; fields stay inaccessible.
        data_model = PrimitiveModel
        numba_type.opaque_reason = reason or "it has no fields"
    if isinstance(data_model, type) and issubclass(data_model, PrimitiveModel):
        backing = _opaque_llvm_type(decl.sizeof_)

        class BoundOpaqueModel(PrimitiveModel):
            def __init__(self, dmm, fe_type):
                super().__init__(dmm, fe_type, backing)

        register_model(type_class)(BoundOpaqueModel)
        return False
    register_model(type_class)(data_model)
    return False


def make_struct_stub(decl: Struct, numba_type: types.Type, python_name: str) -> type:
    stub = type(
        python_name,
        (BoundCxxStruct,),
        {
            "_numba_type_": numba_type,
            "_cxx_decl_": decl,
            "__doc__": f"CUDA C++ type {decl.qual_name} (bound by numbast).",
        },
    )
    as_numba_type.register(stub, numba_type)
    return stub

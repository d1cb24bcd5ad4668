"""Member types of class template instances: ``BlockReduce[types.int32, 128].TempStorage``.

A library's class often names a type its users must provide: CUB's primitives take their
``TempStorage`` (in shared memory) in the constructor. An instance's stub answers any public
member type by name, on the host and in kernels: the compiler says what the type is (once; the
answer is recorded with the instance's others). A type with a Numba counterpart is that type
(``Vec[...].value_type`` is ``float32``); any other is opaque storage of its size and alignment
(``storage``), which ``cuda.shared.array(1, Inst.TempStorage)`` allocates.
"""

from __future__ import annotations

from typing import Any

from numba.cuda import types
from numba.cuda.typing.templates import AttributeTemplate

from ..overloads import Registries
from ..state import LOCK, shared_table
from .probe import TemplateInstantiationError

# ids of the typing registries with the kernel-side attribute, and the member type names with a
# getattr lowering on function types (a compile-time value: nothing to compute)
_ATTRIBUTE: list = shared_table("member_type_attribute", list)
_LOWERED: set = shared_table("member_type_lowered", set)


class InstanceStubType(type):
    """The metaclass of class template instances' stubs: unknown public attributes are member
    types, asked of the compiler."""

    def __getattr__(cls, name: str) -> Any:
        names = cls.__dict__.get("_numbast_member_type_names_", ())
        if name not in names:
            raise AttributeError(f"type object {cls.__name__!r} has no attribute {name!r}")
        try:
            return cls._numbast_member_type_(name)
        except TemplateInstantiationError as exc:
            raise AttributeError(
                f"{cls._cxx_name_}::{name} is no type a kernel can hold: {exc}"
            ) from None

    def __dir__(cls) -> list[str]:
        return sorted({*super().__dir__(), *cls.__dict__.get("_numbast_member_type_names_", ())})


def member_type(context: Any, layout: dict, spelling: str, name: str) -> types.Type:
    """The Numba type of ``::spelling::name`` (an instance's member type), from the instance's
    ``layout`` record (the compiler answered it with the layout); raises
    TemplateInstantiationError when it names no type a kernel can hold."""
    description = layout.get("member_types", {}).get(name)
    if description is None or description[0] in ("void", "unknown"):
        raise TemplateInstantiationError(
            f"::{spelling}::{name} has no Numba counterpart and no size (an incomplete type?)"
        )
    return context.undescribe(description)


def install_kernel_member_types(registries: Registries) -> None:
    """``Inst.TempStorage`` inside a kernel (``Inst`` a global instance stub): a type
    reference, as a host-side ``Inst.TempStorage`` global would be."""
    with LOCK:
        if id(registries.typing) in _ATTRIBUTE:
            return
        _ATTRIBUTE.append(id(registries.typing))

    class MemberTypeAttributes(AttributeTemplate):
        key = types.Function

        def generic_resolve(self, value_type, attr):
            stub = getattr(value_type, "typing_key", None)
            if not isinstance(stub, InstanceStubType):
                return None
            if attr not in stub.__dict__.get("_numbast_member_type_names_", ()):
                return None
            try:
                found = getattr(stub, attr)
            except AttributeError:
                return None
            if not isinstance(found, types.Type):
                return None
            _lower_as_constant(attr, registries)
            return types.TypeRef(found)

    registries.typing.register_attr(MemberTypeAttributes)


def _lower_as_constant(attr: str, registries: Registries) -> None:
    with LOCK:
        if attr in _LOWERED:
            return
        _LOWERED.add(attr)
    registries.lowering.lower_getattr(types.Function, attr)(_no_value)
    from .context import refresh_numba

    refresh_numba()


def _no_value(context, builder, typ, value):
    return context.get_dummy_value()


__all__ = ["InstanceStubType", "install_kernel_member_types", "member_type"]

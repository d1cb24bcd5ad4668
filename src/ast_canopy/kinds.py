"""The enumerations of the declaration model.

Each member also answers to the name NVIDIA's ``pylibastcanopy`` gives it (``host_device``,
``global_``, ``public_``, ``type_``, ...): those are Python enum aliases of the same member, so
``ExecutionSpace.HOST is execution_space.host`` and code written against either spelling works.
"""

from __future__ import annotations

from enum import Enum


class TypeKind(str, Enum):
    """The kind of a type after resolving typedefs (its canonical type)."""

    BUILTIN = "builtin"  # bool, char, int..., float, double, void
    POINTER = "pointer"
    LVALUE_REFERENCE = "lvalue_reference"
    RVALUE_REFERENCE = "rvalue_reference"
    ARRAY = "array"  # constant-size array; extents in Type.array_extents
    RECORD = "record"  # struct / class / union (incl. template specializations)
    ENUM = "enum"
    DEPENDENT = "dependent"  # depends on a template parameter
    FUNCTION = "function"  # function type (pointee of a function pointer)
    OTHER = "other"  # anything the generator does not bind (vector extension types, ...)


class ExecutionSpace(str, Enum):
    """Where a function runs, from its CUDA attributes.

    UNDEFINED means the declaration carries no execution-space attribute at all (as NVIDIA's
    ``execution_space.undefined``); CUDA compiles such a function for the host only.
    """

    HOST = "host"
    DEVICE = "device"
    HOST_DEVICE = "host_device"
    GLOBAL = "global"
    UNDEFINED = "undefined"
    # NVIDIA's names.
    host = "host"
    device = "device"
    host_device = "host_device"
    global_ = "global"
    undefined = "undefined"

    @property
    def is_device_callable(self) -> bool:
        return self in (ExecutionSpace.DEVICE, ExecutionSpace.HOST_DEVICE)


class Access(str, Enum):
    PUBLIC = "public"
    PROTECTED = "protected"
    PRIVATE = "private"
    # NVIDIA's names.
    public_ = "public"
    protected_ = "protected"
    private_ = "private"


class MethodKind(str, Enum):
    DEFAULT_CONSTRUCTOR = "default_constructor"
    COPY_CONSTRUCTOR = "copy_constructor"
    MOVE_CONSTRUCTOR = "move_constructor"
    CONVERTING_CONSTRUCTOR = "converting_constructor"  # one argument, not copy/move
    OTHER_CONSTRUCTOR = "other_constructor"
    DESTRUCTOR = "destructor"
    CONVERSION_FUNCTION = "conversion_function"  # operator T()
    MEMBER_OPERATOR = "member_operator"  # operator+ etc. declared in the class
    METHOD = "method"
    STATIC_METHOD = "static_method"
    # NVIDIA's names. NVIDIA has one `other` for every non-special member; here operators and
    # static methods have kinds of their own, and `other` names plain methods.
    default_constructor = "default_constructor"
    copy_constructor = "copy_constructor"
    move_constructor = "move_constructor"
    converting_constructor = "converting_constructor"
    other_constructor = "other_constructor"
    destructor = "destructor"
    conversion_function = "conversion_function"
    other = "method"

    @property
    def is_constructor(self) -> bool:
        return self.value.endswith("_constructor")


class TemplateParamKind(str, Enum):
    TYPE = "type"
    NON_TYPE = "non_type"
    TEMPLATE = "template"
    # NVIDIA's names.
    type_ = "type"
    non_type = "non_type"
    template_ = "template"

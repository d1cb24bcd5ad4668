"""The declaration model: what the parser produces and the binding generator consumes.

Plain, frozen, picklable data with no clang objects in it, so declarations can be compared in
tests, cached, and rendered without libclang loaded. Attribute names follow NVIDIA's ast_canopy
where it has one (``qual_name``, ``type_``, ``sizeof_``, ``exec_space``...), so code written
against it runs; the rest is what binding generation needs so that it never parses C++ type
strings itself.
"""

from __future__ import annotations

from dataclasses import dataclass, field
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


@dataclass(frozen=True)
class Type:
    """A C++ type as written at the use site, plus its canonical form.

    For pointers and references ``pointee`` is the type pointed or referred to; for arrays it is
    the element type and ``array_extents`` the sizes (outermost first).
    """

    name: str  # spelling as written, e.g. "const __half &"
    canonical_name: str  # spelling with typedefs resolved, e.g. "const __half &"
    unqualified_non_ref_type_name: str  # name with cv-qualifiers and reference removed
    kind: TypeKind
    is_const: bool = False
    pointee: Type | None = None
    array_extents: tuple[int, ...] = ()
    sizeof_: int | None = None  # bytes; None when incomplete or dependent
    alignof_: int | None = None

    @property
    def is_pointer(self) -> bool:
        return self.kind is TypeKind.POINTER

    @property
    def is_lvalue_reference(self) -> bool:
        return self.kind is TypeKind.LVALUE_REFERENCE

    @property
    def is_rvalue_reference(self) -> bool:
        return self.kind is TypeKind.RVALUE_REFERENCE

    @property
    def is_reference(self) -> bool:
        return self.kind in (TypeKind.LVALUE_REFERENCE, TypeKind.RVALUE_REFERENCE)

    @property
    def is_array(self) -> bool:
        return self.kind is TypeKind.ARRAY

    # NVIDIA ast_canopy spells these as methods.
    def is_left_reference(self) -> bool:
        return self.is_lvalue_reference

    def is_right_reference(self) -> bool:
        return self.is_rvalue_reference

    def referenced(self) -> Type:
        """The type a reference refers to; the type itself when it is not a reference."""
        return self.pointee if self.is_reference and self.pointee is not None else self


class ExecutionSpace(str, Enum):
    HOST = "host"
    DEVICE = "device"
    HOST_DEVICE = "host_device"
    GLOBAL = "global"

    @property
    def is_device_callable(self) -> bool:
        return self in (ExecutionSpace.DEVICE, ExecutionSpace.HOST_DEVICE)


class Access(str, Enum):
    PUBLIC = "public"
    PROTECTED = "protected"
    PRIVATE = "private"


@dataclass(frozen=True)
class ParamVar:
    name: str  # "" for an unnamed parameter
    type_: Type
    default_value: str | None = None  # source text of the default argument, if any


@dataclass(frozen=True)
class Function:
    """A free function, or (through Method) a member function."""

    name: str  # e.g. "hsqrt", "operator+"
    qual_name: str  # with namespaces (and class for methods), e.g. "ns::hsqrt"
    return_type: Type
    params: tuple[ParamVar, ...]
    exec_space: ExecutionSpace
    mangled_name: str = ""
    is_constexpr: bool = False
    is_noexcept: bool = False
    is_inline: bool = False
    is_deleted: bool = False
    is_variadic: bool = False
    # For "operator+" this is "+"; "operator()" -> "()"; conversions are Method kinds instead.
    operator: str | None = None
    attributes: tuple[str, ...] = ()  # e.g. ("device", "host", "forceinline", "deprecated")
    file: str = ""  # realpath of the declaring file
    line: int = 0

    @property
    def is_operator(self) -> bool:
        return self.operator is not None

    # NVIDIA ast_canopy spelling.
    def is_overloaded_operator(self) -> bool:
        return self.is_operator


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

    @property
    def is_constructor(self) -> bool:
        return self.name.endswith("_CONSTRUCTOR")


@dataclass(frozen=True)
class Method(Function):
    kind: MethodKind = MethodKind.METHOD
    access: Access = Access.PUBLIC
    is_const: bool = False  # const-qualified member function
    is_explicit: bool = False  # explicit constructor or conversion function
    is_defaulted: bool = False
    is_virtual: bool = False
    parent_qual_name: str = ""  # the class it belongs to


@dataclass(frozen=True)
class Field:
    name: str
    type_: Type
    access: Access = Access.PUBLIC
    offset: int | None = None  # bytes from the start of the record; None for bit-fields
    is_bitfield: bool = False


@dataclass(frozen=True)
class BaseClass:
    qual_name: str
    access: Access = Access.PUBLIC
    is_virtual: bool = False


class TemplateParamKind(str, Enum):
    TYPE = "type"
    NON_TYPE = "non_type"
    TEMPLATE = "template"


@dataclass(frozen=True)
class TemplateParam:
    name: str
    kind: TemplateParamKind
    type_: Type | None = None  # the parameter's type for non-type parameters
    default: str | None = None  # source text of the default argument
    is_pack: bool = False


@dataclass(frozen=True)
class FunctionTemplate:
    template_parameters: tuple[TemplateParam, ...]
    function: Function  # the templated declaration; its types may be DEPENDENT
    num_min_required_args: int = 0

    @property
    def name(self) -> str:
        return self.function.name

    @property
    def qual_name(self) -> str:
        return self.function.qual_name


@dataclass(frozen=True)
class Struct:
    """A struct, class or union definition."""

    name: str
    qual_name: str
    sizeof_: int | None
    alignof_: int | None
    fields: tuple[Field, ...] = ()
    methods: tuple[Method, ...] = ()
    templated_methods: tuple[FunctionTemplate, ...] = ()
    nested_records: tuple[Struct, ...] = ()
    bases: tuple[BaseClass, ...] = ()
    tag: str = "struct"  # "struct", "class" or "union"
    is_abstract: bool = False
    file: str = ""
    line: int = 0

    def constructors(self) -> tuple[Method, ...]:
        return tuple(m for m in self.methods if m.kind.is_constructor)


@dataclass(frozen=True)
class ClassTemplate:
    template_parameters: tuple[TemplateParam, ...]
    record: Struct  # the templated definition; sizes are None, types may be DEPENDENT
    num_min_required_args: int = 0

    @property
    def name(self) -> str:
        return self.record.name

    @property
    def qual_name(self) -> str:
        return self.record.qual_name


@dataclass(frozen=True)
class ClassTemplateSpecialization:
    """An explicit (full) specialization written in the header, with its concrete layout."""

    record: Struct  # name is the template's name; qual_name includes the arguments
    template_qual_name: str  # the primary template, e.g. "ns::Vec"
    template_arguments: tuple[str, ...]  # spelled as written, e.g. ("float", "3")

    @property
    def name(self) -> str:
        return self.record.name

    @property
    def qual_name(self) -> str:
        return self.record.qual_name


@dataclass(frozen=True)
class Enum_:
    """An enumeration. Exported as ``Enum`` from ast_canopy (``Enum_`` avoids enum.Enum)."""

    name: str
    qual_name: str
    underlying_type: Type
    enumerators: tuple[str, ...]
    enumerator_values: tuple[int, ...]
    is_scoped: bool = False
    file: str = ""
    line: int = 0


@dataclass(frozen=True)
class Typedef:
    """``typedef T name;`` or ``using name = T;``."""

    name: str
    qual_name: str
    underlying_type: Type
    file: str = ""
    line: int = 0

    @property
    def underlying_name(self) -> str:
        return self.underlying_type.name


@dataclass(frozen=True)
class ConstExprVar:
    name: str
    qual_name: str
    type_: Type
    value: str  # the evaluated value as C++ literal text, e.g. "3", "1.5", "true"
    file: str = ""
    line: int = 0


@dataclass
class Declarations:
    """Everything retained from one parse, each list in source order."""

    structs: list[Struct] = field(default_factory=list)
    functions: list[Function] = field(default_factory=list)
    function_templates: list[FunctionTemplate] = field(default_factory=list)
    class_templates: list[ClassTemplate] = field(default_factory=list)
    class_template_specializations: list[ClassTemplateSpecialization] = field(default_factory=list)
    typedefs: list[Typedef] = field(default_factory=list)
    enums: list[Enum_] = field(default_factory=list)
    constexpr_vars: list[ConstExprVar] = field(default_factory=list)
    # Every file clang read for this parse (realpaths), for cache keys.
    included_files: list[str] = field(default_factory=list)

"""The declaration model: what the parser produces and the binding generator consumes.

Plain, frozen, picklable data with no clang objects in it, so declarations can be compared in
tests, cached, and rendered without libclang loaded. Attribute names follow NVIDIA's ast_canopy
where it has one (``qual_name``, ``type_``, ``sizeof_``, ``exec_space``...), so code written
against it runs; the rest is what binding generation needs so that it never parses C++ type
strings itself.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ast_canopy.kinds import Access, ExecutionSpace, MethodKind, TemplateParamKind, TypeKind
from ast_canopy.model_templates import (
    AliasTemplate,
    ClassTemplate,
    ClassTemplatePartialSpecialization,
    ClassTemplateSpecialization,
    FunctionTemplate,
    Template,
    TemplateParam,
)
from ast_canopy.operators import OperatorQueries
from ast_canopy.spelling import drop_tag_keywords


@dataclass(frozen=True)
class Type:
    """A C++ type as written at the use site, plus its canonical form.

    For pointers and references ``pointee`` is the type pointed or referred to; for arrays it is
    the element type and ``array_extents`` the sizes (outermost first).
    """

    name: str  # spelling as written, e.g. "const __half &"
    canonical_name: str  # spelling with typedefs resolved, e.g. "const __half &"
    # The written type without reference and cv-qualifiers, at every pointer level (NVIDIA's
    # definition): "const int *const &" -> "int *", "int **" -> "int * *".
    unqualified_non_ref_type_name: str
    kind: TypeKind
    is_const: bool = False
    pointee: Type | None = None
    array_extents: tuple[int, ...] = ()
    sizeof_: int | None = None  # bytes; None when incomplete or dependent
    alignof_: int | None = None
    # The written type with every name qualified by its namespaces and classes, typedef and
    # template parameter names kept: "const ns::Arr<T, 4> &". What generated C++ should spell.
    fully_qualified_name: str = ""

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


@dataclass(frozen=True)
class ParamVar:
    name: str  # "" for an unnamed parameter
    type_: Type
    default_value: str | None = None  # source text of the default argument, if any


@dataclass(frozen=True)
class Function(OperatorQueries):
    """A free function, or (through Method) a member function."""

    name: str  # e.g. "hsqrt", "operator+"
    qual_name: str  # with namespaces (and class for methods), e.g. "ns::hsqrt"
    return_type: Type
    params: tuple[ParamVar, ...]
    exec_space: ExecutionSpace
    # The Itanium symbol; for a template or a member of a class template, whose signature is
    # dependent, a deterministic stand-in: "<qual_name>__dependent_signature__<hash>".
    mangled_name: str = ""
    is_constexpr: bool = False
    is_noexcept: bool = False
    is_inline: bool = False
    is_deleted: bool = False
    is_variadic: bool = False
    # For "operator+" this is "+"; "operator()" -> "()"; conversions are Method kinds instead.
    operator: str | None = None
    # Attribute names as clang spells them, CUDA's included: {"device", "always_inline", ...}.
    attributes: frozenset[str] = frozenset()
    file: str = ""  # realpath of the declaring file
    line: int = 0
    parse_entry_point: str = ""  # the header given to parse_declarations_from_source
    # An explicit specialization of a function template (``template <> int pick<plus>(int,
    # int)``): the template's qualified name, through which calls reach it; else None.
    specializes: str | None = None

    @property
    def is_operator(self) -> bool:
        return self.operator is not None

    @property
    def param_types(self) -> list[Type]:
        return [p.type_ for p in self.params]


@dataclass(frozen=True)
class Method(Function):
    kind: MethodKind = MethodKind.METHOD
    access: Access = Access.PUBLIC
    is_const: bool = False  # const-qualified member function
    is_explicit: bool = False  # explicit constructor or conversion function
    is_defaulted: bool = False
    is_virtual: bool = False
    parent_qual_name: str = ""  # the class it belongs to

    _IMPLICIT_OPERANDS = 1  # the object itself

    @property
    def is_move_constructor(self) -> bool:
        return self.kind is MethodKind.MOVE_CONSTRUCTOR

    @property
    def decl_name(self) -> str:
        """The name without template arguments (constructors are already named so here)."""
        return self.name.split("<", 1)[0].rstrip()


@dataclass(frozen=True)
class Field:
    name: str
    type_: Type
    access: Access = Access.PUBLIC
    offset: int | None = None  # bytes from the start of the record; None for bit-fields
    is_bitfield: bool = False


@dataclass(frozen=True)
class BaseClass:
    qual_name: str  # canonical spelling, e.g. "ns::CRTPBase<ns::Vec3<float>>"
    access: Access = Access.PUBLIC
    is_virtual: bool = False
    type_: Type | None = None


@dataclass(frozen=True)
class Struct:
    """A struct, class or union definition.

    Like NVIDIA's, ``methods``, ``templated_methods``, ``nested_records`` and
    ``nested_class_templates`` hold public members only; every field is listed (the layout
    needs them all) with its ``access``. Protected and private methods are in
    ``non_public_methods``.
    """

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
    nested_class_templates: tuple[ClassTemplate, ...] = ()
    non_public_methods: tuple[Method, ...] = ()
    parse_entry_point: str = ""
    # Public member types by name: nested records, typedefs and aliases (``TempStorage``).
    member_type_names: tuple[str, ...] = ()

    def constructors(self) -> tuple[Method, ...]:
        return tuple(m for m in self.methods if m.kind.is_constructor)

    # NVIDIA's queries.
    def public_fields(self) -> list[Field]:
        return [f for f in self.fields if f.access is Access.PUBLIC]

    def overloaded_operators(self) -> list[Method]:
        return [m for m in self.methods if m.is_overloaded_operator()]

    def conversion_operators(self) -> list[Method]:
        return [m for m in self.methods if m.is_conversion_operator()]

    def regular_member_functions(self) -> list[Method]:
        """Methods that are neither constructors, overloaded operators nor conversions."""
        return [
            m
            for m in self.methods
            if not m.kind.is_constructor
            and not m.is_overloaded_operator()
            and not m.is_conversion_operator()
        ]

    def templated_member_functions(self) -> list[FunctionTemplate]:
        return list(self.templated_methods)


@dataclass(frozen=True)
class Enum_:
    """An enumeration. Exported as ``Enum`` from ast_canopy (``Enum_`` avoids enum.Enum).

    ``enumerator_values`` are the values as decimal text, as NVIDIA's model has them ("-1",
    "255"); ``enumerator_ints`` the same values as Python ints.
    """

    name: str
    qual_name: str
    underlying_type: Type
    enumerators: tuple[str, ...]
    enumerator_values: tuple[str, ...]
    is_scoped: bool = False
    file: str = ""
    line: int = 0
    enumerator_ints: tuple[int, ...] = ()


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
        """The aliased type as written, without a ``struct``/``enum`` keyword."""
        return drop_tag_keywords(self.underlying_type.name)


@dataclass(frozen=True)
class ConstExprVar:
    """A constexpr variable and its value, from clang's constant evaluator.

    ``value`` is typed (int, float, bool or str); ``value_serialized`` is the same value as C++
    literal text ("42", "3.14", "true", "INFINITY", a quoted string). A float holds the
    shortest text that reads back as the same single-precision value, so ``constexpr float x =
    3.14`` has value 3.14.
    """

    name: str
    qual_name: str
    type_: Type
    value_serialized: str
    value: bool | int | float | str
    file: str = ""
    line: int = 0


@dataclass(frozen=True)
class MacroConstant:
    """An object-like macro whose replacement is a literal: ``#define CUDART_PI_F 3.141592654f``.

    ``type_`` is the literal's C++ type (``float``; for an integer the first of C++'s candidate
    types that holds it, for a string ``const char[N]``), ``value`` what the compiler makes of
    it (the correctly rounded float for an ``f`` suffix), ``value_serialized`` C++ literal text
    of that value as ConstExprVar's, and ``expansion`` the replacement as written. A macro
    naming another such macro (``#define PI CUDART_PI_F``) has that one's value and type.
    """

    name: str
    type_: Type
    value_serialized: str
    value: bool | int | float | str
    expansion: str
    file: str = ""
    line: int = 0


@dataclass
class Declarations:
    """Everything retained from one parse, each list in source order."""

    structs: list[Struct] = field(default_factory=list)
    functions: list[Function] = field(default_factory=list)
    function_templates: list[FunctionTemplate] = field(default_factory=list)
    class_templates: list[ClassTemplate] = field(default_factory=list)
    # Explicit specializations written in retained files, then implicit ones clang made for
    # what the reported declarations name (is_explicit tells them apart).
    class_template_specializations: list[ClassTemplateSpecialization] = field(default_factory=list)
    typedefs: list[Typedef] = field(default_factory=list)
    enums: list[Enum_] = field(default_factory=list)
    constexpr_vars: list[ConstExprVar] = field(default_factory=list)
    # Every file clang read for this parse (realpaths), for cache keys.
    included_files: list[str] = field(default_factory=list)
    class_template_partial_specializations: list[ClassTemplatePartialSpecialization] = field(
        default_factory=list
    )
    alias_templates: list[AliasTemplate] = field(default_factory=list)
    # Object-like macros of the retained files that expand to a literal (not NVIDIA's).
    macro_constants: list[MacroConstant] = field(default_factory=list)


__all__ = [
    "Access",
    "AliasTemplate",
    "BaseClass",
    "ClassTemplate",
    "ClassTemplatePartialSpecialization",
    "ClassTemplateSpecialization",
    "ConstExprVar",
    "Declarations",
    "Enum_",
    "ExecutionSpace",
    "Field",
    "Function",
    "FunctionTemplate",
    "MacroConstant",
    "Method",
    "MethodKind",
    "ParamVar",
    "Struct",
    "Template",
    "TemplateParam",
    "TemplateParamKind",
    "Type",
    "TypeKind",
    "Typedef",
]

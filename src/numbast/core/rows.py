"""The row format: bindings as plain data, the one contract between planning and the runtime.

Planning (``numbast.planning``) turns declarations into rows; the runtime
(``numbast.runtime.apply``) registers rows with Numba. Dynamic binding builds rows and applies
them at once; a generated module holds its rows as literals and applies them when imported. Rows
are tuples of str, int, bool, None and tuples, so a module writes them as literals and reads them
back with no code. They refer to types and shims by index into the module's type and shim tables.

This module imports nothing but the standard library: planning (which must not import Numba)
reads the layouts from here too.

Layouts (``NamedTuple``\\ s below; generated modules hold plain tuples in these positions):

- shim:        (C name, C++ text)
- type:        a type description, see ``TypeRow`` (static modules), or a Numba type object
               (dynamic binding, which has the types in hand)
- call:        (shim index, ((type index, mode, align), ...), result type index or -1,
               result align or None, returns its first argument)
- enum:        (Python name, C++ qualified name, ((enumerator, value), ...), scoped)
- struct:      (Python name, C++ qualified name, sizeof, alignof, parent type, data model):
               parent type and model are names in ``numba.cuda.types`` /
               ``numba.cuda.datamodel.models`` (or the classes themselves, in dynamic binding)
- struct body: (fields ((name, type index), ...) or None for an opaque model, public fields,
               members (member row, ...), member function templates (template callable, ...))
- member:      (kind, name, call, flag); kinds below; flag: CONSTRUCTOR: also an implicit
               conversion; METHOD: non-const (updates its object)
- function:    (Python name, C++ qualified name, operator function name or "", call, typing
               label, needs a cooperative launch, C++ declaration with its location)

Templates are rows too, instantiated at run time (``numbast.runtime.templates``):

- template parameter: (name, "type", "value" or "template" (a template template parameter,
               format 5), the value's C++ type ("" for types), default as C++ text with ``{i}``
               standing for argument i, or None)
- template type: (C++ spelling with ``{i}`` placeholders, pattern, reference: "", "&" or "&&")
               where the pattern says how the type is built from the arguments (deduction reads
               it): ("param", i), ("pointer", pattern), ("template", qualified name, (pattern
               or ("value", i) or ("text", C++ text), ...)), ("template_param", i, (...))
               for ``Op<T>`` where template parameter i is a template (format 5), ("array",
               element pattern, extent text), ("type", canonical C++ spelling) for a type that
               depends on no parameter, ("dependent",) for what only the compiler can tell
- template callable: (kind (a member kind, or "function"), name (operator function name for
               operators), C++ name (qualified for functions, the symbol for operators),
               ((parameter name, template type, has a default), ...), result
               template type or None for void, flag (as a member's), own template parameters
               (member function templates; numbered after the class's), C++ declaration,
               argument intents (one per parameter; format 3))
- function template: (Python name, C++ qualified name, operator function name or "",
               template parameters, template callable)
- class template: (Python name, C++ qualified name, template parameters, parent type, data
               model, fields ((name, template type), ...), public fields, members (template
               callable, ...), specializations ((argument spellings, struct index), ...),
               partial specializations (class template row, argument patterns), declaration,
               public member type names (format 3))
- alias template: (Python name, C++ qualified name, template parameters, aliased pattern or
                 NAMED_BY_ALIAS)
- kernel:      (Python name, C++ qualified name, mangled name, C++ declaration): a
               ``__global__`` function, launched from the host (the import system compiles the
               header with NVRTC and loads it; the runtime itself does not use these rows)
"""

# No ``from __future__ import annotations`` here: typing.NamedTuple turns string annotations
# into ForwardRefs, compiling each (~0.8 ms of every warm import for these ~80 fields).
from collections.abc import Sequence
from typing import Any, NamedTuple

# The version of the layouts above. Generated modules record the one they were written with;
# the runtime applies the versions in SUPPORTED_FORMATS and refuses others with a clear error.
# Change a layout only together with this number (and keep reading the old one where cheap).
FORMAT = 5
# 1: before templates; 2: before intents in templates; 3: before class templates' bases;
# 4: before template template parameters (a runtime reading 4 would not know their kind)
SUPPORTED_FORMATS = frozenset({1, 2, 3, 4, 5})

# How an argument reaches the shim (every shim parameter is a pointer).
COPY = "copy"  # the kernel passes a value; the shim gets a pointer to an aligned copy
POINTER = "pointer"  # the kernel passes a pointer (inout_ptr / out_ptr); passed through
HIDDEN_OUT = "hidden_out"  # out_return: not a kernel argument; written by the shim, returned

# Member kinds.
CONSTRUCTOR = "constructor"
CONVERSION = "conversion"  # operator T(): a cast to the call's result type
OPERATOR = "operator"  # name: the ``operator`` module's function
METHOD = "method"
STATIC_METHOD = "static_method"  # called on the type: ``MyType.create(args)``
MEMBER_KINDS = (CONSTRUCTOR, CONVERSION, OPERATOR, METHOD, STATIC_METHOD)

# Type descriptions: ("builtin", name in numba.cuda.types), ("vector", key of numba-cuda's
# vector_types), ("pointer", pointee description), ("voidptr",), ("unituple", element
# description, count), ("struct", index into the module's structs), ("enum", index into its
# enums: the IntEnumMember type Numba infers for members, int64), ("external", module name,
# Python name): a struct or enum another bindings module binds (imported when resolved),
# ("object", Numba type): a type of this process (dynamic binding's rows only, never written).
TypeRow = tuple


class ArgumentRow(NamedTuple):
    type: Any  # type index in a row; the value's type once resolved (POINTER: the pointee's)
    mode: str = COPY
    align: int | None = None  # the C++ alignment when it exceeds Numba's


class CallRow(NamedTuple):
    shim: int
    arguments: tuple[ArgumentRow, ...]
    result: int  # -1: void
    result_align: int | None
    returns_first_argument: bool  # compound assignment: the updated left operand


class EnumRow(NamedTuple):
    python_name: str
    qual_name: str
    members: tuple[tuple[str, int], ...]
    scoped: bool


class StructRow(NamedTuple):
    python_name: str
    qual_name: str
    sizeof: int
    alignof: int
    parent_type: Any  # str (a name in numba.cuda.types) or a Numba type class
    data_model: Any  # str (a name in numba.cuda.datamodel.models) or a model class


class MemberRow(NamedTuple):
    kind: str
    name: str
    call: Any  # CallRow
    flag: bool


class StructBodyRow(NamedTuple):
    fields: tuple[tuple[str, int], ...] | None
    public_fields: tuple[str, ...]
    members: tuple[MemberRow, ...]
    member_templates: tuple = ()  # template callables: instantiated when called


class FunctionRow(NamedTuple):
    python_name: str  # "" for operators
    qual_name: str
    operator: str  # the ``operator`` module's function name, "" for functions
    call: Any  # CallRow
    label: str
    cooperative: bool
    declaration: str  # C++ declaration and location, for help() and inspect.getsource


# Kinds of template parameters; "function" is the callable kind of a function template.
TYPE_PARAMETER = "type"
VALUE_PARAMETER = "value"
# A template template parameter (``template <class> class Op``): its argument is a class
# template, spelled by its qualified name.
TEMPLATE_PARAMETER = "template"
FUNCTION = "function"


class TemplateParamRow(NamedTuple):
    name: str
    kind: str  # TYPE_PARAMETER, VALUE_PARAMETER or TEMPLATE_PARAMETER
    value_type: str  # a value parameter's C++ type ("int", "bool", an enum); "" for types
    default: str | None  # C++ text, {i} standing for argument i; None: no default


class TemplateTypeRow(NamedTuple):
    spelling: str  # C++ (fully qualified), {i} standing for argument i: "const ::v::Vec<{0}, 3> &"
    pattern: tuple
    reference: str = ""  # "", "&" or "&&"


class TemplateCallableRow(NamedTuple):
    kind: str  # FUNCTION or a member kind
    name: str  # the method's name; an operator's ``operator`` function name
    cxx_name: str  # a function's qualified name, a method's name, an operator's symbol
    params: tuple[tuple[str, TemplateTypeRow, bool], ...]  # (name, type, has a default)
    result: TemplateTypeRow | None  # None: void
    flag: bool
    # member function templates: their own parameters, numbered after the class's
    own_params: tuple[TemplateParamRow, ...]
    declaration: str
    # the argument intent of each parameter ("in", "inout_ptr", "out_ptr", "out_return");
    # empty: every parameter "in" (rows of format 2)
    intents: tuple[str, ...] = ()


class FunctionTemplateRow(NamedTuple):
    python_name: str  # "" for operators
    qual_name: str
    operator: str
    params: tuple[TemplateParamRow, ...]
    callable: TemplateCallableRow


class ClassTemplateRow(NamedTuple):
    python_name: str
    qual_name: str
    params: tuple[TemplateParamRow, ...]
    parent_type: Any
    data_model: Any
    fields: tuple[tuple[str, TemplateTypeRow], ...]
    public_fields: tuple[str, ...]
    members: tuple[TemplateCallableRow, ...]
    specializations: tuple[tuple[tuple[str, ...], int], ...]  # (argument spellings, struct index)
    partial_specializations: tuple[tuple[Any, tuple], ...]  # (ClassTemplateRow, patterns)
    declaration: str
    member_types: tuple[str, ...] = ()  # public member types by name (format 3)
    # Struct indexes of the specializations that are instances clang made (not written in the
    # header): clang lists no member templates for them, so they take the template's.
    instances: tuple[int, ...] = ()
    bases: tuple[TemplateTypeRow, ...] = ()  # public bases, whose members it inherits (format 4)


class AliasTemplateRow(NamedTuple):
    python_name: str
    qual_name: str
    params: tuple[TemplateParamRow, ...]
    pattern: tuple  # ("template", class template, arguments), or NAMED_BY_ALIAS


# An alias template's pattern when it names no bound class template: an instance is the C++ type
# that the alias's template-id names (``::ns::is_small<3>``), one the module does not bind.
NAMED_BY_ALIAS = ("alias",)


# Generated modules hold rows as plain tuples; these give the template rows their field names
# back, nested rows included.


def callable_row(row: Sequence) -> TemplateCallableRow:
    kind, name, cxx_name, params, result, flag, own_params, declaration, *intents = row
    return TemplateCallableRow(
        kind,
        name,
        cxx_name,
        tuple((n, TemplateTypeRow(*t), d) for n, t, d in params),
        None if result is None else TemplateTypeRow(*result),
        flag,
        tuple(TemplateParamRow(*p) for p in own_params),
        declaration,
        tuple(intents[0]) if intents else (),
    )


def function_template_row(row: Sequence) -> FunctionTemplateRow:
    python_name, qual_name, operator, params, callable_ = row
    return FunctionTemplateRow(
        python_name,
        qual_name,
        operator,
        tuple(TemplateParamRow(*p) for p in params),
        callable_row(callable_),
    )


def class_template_row(row: Sequence) -> ClassTemplateRow:
    fields = ClassTemplateRow(*row)
    return fields._replace(
        params=tuple(TemplateParamRow(*p) for p in fields.params),
        fields=tuple((name, TemplateTypeRow(*t)) for name, t in fields.fields),
        members=tuple(callable_row(m) for m in fields.members),
        bases=tuple(TemplateTypeRow(*b) for b in fields.bases),
        partial_specializations=tuple(
            (class_template_row(partial), tuple(patterns))
            for partial, patterns in fields.partial_specializations
        ),
    )


class KernelRow(NamedTuple):
    python_name: str
    qual_name: str
    mangled_name: str
    declaration: str


class ModuleRows(NamedTuple):
    """Everything a bindings module registers: what a generated module holds as data."""

    format: int
    shims: tuple[tuple[str, str], ...]
    types: tuple[Any, ...]
    enums: tuple[EnumRow, ...]
    structs: tuple[StructRow, ...]
    struct_bodies: tuple[StructBodyRow, ...]
    functions: tuple[FunctionRow, ...]
    aliases: tuple[tuple[str, str], ...] = ()  # (alias, Python name it stands for)
    class_templates: tuple[ClassTemplateRow, ...] = ()
    function_templates: tuple[FunctionTemplateRow, ...] = ()
    alias_templates: tuple[AliasTemplateRow, ...] = ()
    kernels: tuple[KernelRow, ...] = ()


__all__ = [
    "COPY",
    "FORMAT",
    "HIDDEN_OUT",
    "POINTER",
    "SUPPORTED_FORMATS",
    "ArgumentRow",
    "CallRow",
    "EnumRow",
    "FunctionRow",
    "MemberRow",
    "ModuleRows",
    "StructBodyRow",
    "StructRow",
]

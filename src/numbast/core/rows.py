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

Templates are rows too (class, function and alias templates, instantiated at run time by
``numbast.runtime.templates``): their layouts are ``numbast.core.template_rows``'s, a module of
their own so that a module without templates does not define them when it is imported.

- kernel:      (Python name, C++ qualified name, mangled name, C++ declaration): a
               ``__global__`` function, launched from the host (the import system compiles the
               header with NVRTC and loads it; the runtime itself does not use these rows)
"""

# No ``from __future__ import annotations`` here: typing.NamedTuple turns string annotations
# into ForwardRefs, compiling each (~0.8 ms of every warm import for these fields).
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
    # template rows (``template_rows``): ClassTemplateRow, FunctionTemplateRow, AliasTemplateRow
    class_templates: tuple = ()
    function_templates: tuple = ()
    alias_templates: tuple = ()
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

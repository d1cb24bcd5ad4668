"""The layouts of template rows: class, function and alias templates, which the runtime
instantiates when a kernel uses them (``numbast.runtime.templates``). ``numbast.core.rows`` has
the rest of the row format (and its version, ``FORMAT``); these are apart so that a module without
templates, which imports ``rows`` on every warm import, does not define them (seven named tuples,
~0.5 ms).

Layouts (``NamedTuple``\\ s below; generated modules hold plain tuples in these positions):

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
"""

# No ``from __future__ import annotations`` here: typing.NamedTuple turns string annotations
# into ForwardRefs, compiling each.
from collections.abc import Sequence
from typing import Any, NamedTuple

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

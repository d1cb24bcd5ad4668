"""Templates as rows: what the runtime needs to instantiate them later, with no clang.

A template's types are kept twice: spelled in C++ with ``{i}`` standing for template argument i
(for shims and compiler probes), and as a pattern saying how the type is built from the
arguments (for deduction and for substituting in Python). Both are read off the parsed
declaration here, once; instantiation happens at run time (``numbast.runtime.template_*``).
Templates that cannot be bound (parameter packs, template template parameters) are reported.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from ast_canopy.model import (
    Access,
    AliasTemplate,
    ClassTemplate,
    ClassTemplatePartialSpecialization,
    FunctionTemplate,
    Method,
    TemplateParam,
    TemplateParamKind,
    Type,
    TypeKind,
)
from numbast.core import rows
from numbast.core.rows import (
    AliasTemplateRow,
    ClassTemplateRow,
    FunctionTemplateRow,
    TemplateCallableRow,
    TemplateParamRow,
    TemplateTypeRow,
)
from numbast.planning.descriptions import declaration_text, host_only_reason, location_of
from numbast.planning.diagnostics import BindingError
from numbast.planning.member_kinds import MemberKind, member_kind
from numbast.planning.operators import COMPOUND, python_operator_for
from numbast.planning.type_rules import normalize_cxx_name, strip_cv

_PARAMETER = re.compile(r"\b(?:type|value)-parameter-(\d+)-(\d+)")
_IDENTIFIER = re.compile(r"(?<![\w:.])([A-Za-z_]\w*)")


class ClassTemplateIndex(dict):
    """Class template qualified names by their normalized spelling and by their last name.
    Built once per header and handed to every row (a header with thousands of templates would
    otherwise rebuild it for each: quadratic)."""

    def __init__(self, qual_names: Iterable[str]) -> None:
        names = list(qual_names)
        super().__init__({normalize_cxx_name(q): q for q in names})
        self.update({q.split("::")[-1]: q for q in names})
        self.qual_names = names


class TemplateNames:
    """The template parameters in scope (a class template's, then a member template's) and
    the class templates patterns can name."""

    def __init__(
        self,
        params: Sequence[TemplateParam],
        class_templates: Iterable[str] | ClassTemplateIndex,
    ) -> None:
        self.params = list(params)
        self.depths = [len(self.params)]  # where each nesting level's parameters start
        if not isinstance(class_templates, ClassTemplateIndex):
            class_templates = ClassTemplateIndex(class_templates)
        self.class_templates = class_templates

    def nested(self, params: Sequence[TemplateParam]) -> TemplateNames:
        inner = TemplateNames((), ())
        inner.params = self.params + list(params)
        inner.depths = [0, len(self.params)]
        inner.class_templates = self.class_templates
        return inner

    def index(self, name: str) -> int | None:
        for position in range(len(self.params) - 1, -1, -1):  # inner parameters shadow outer
            if self.params[position].name == name:
                return position
        return None

    def by_depth(self, depth: int, position: int) -> int:
        start = 0 if depth == 0 or len(self.depths) < 2 else self.depths[1]
        return start + position

    def class_template(self, name: str) -> str | None:
        return self.class_templates.get(normalize_cxx_name(name))


def unsupported_parameter(params: Sequence[TemplateParam]) -> str | None:
    """Why a template with these parameters cannot be bound, or None."""
    for param in params:
        if param.is_pack:
            return f"template parameter pack {param.name}... is not supported"
        if param.kind is TemplateParamKind.TEMPLATE:
            return f"template template parameter {param.name} is not supported"
    return None


# -- spellings and patterns -------------------------------------------------------------------


def spelled(text: str, names: TemplateNames) -> str:
    """C++ text with every template parameter written as ``{i}`` (and braces escaped)."""
    text = text.replace("{", "{{").replace("}", "}}")
    text = _PARAMETER.sub(lambda m: f"{{{names.by_depth(int(m[1]), int(m[2]))}}}", text)

    def by_name(match: re.Match) -> str:
        index = names.index(match[1])
        return match[0] if index is None else f"{{{index}}}"

    return _IDENTIFIER.sub(by_name, text)


def type_row(cxx_type: Type, names: TemplateNames) -> TemplateTypeRow:
    reference = (
        "&" if cxx_type.is_lvalue_reference else "&&" if cxx_type.is_rvalue_reference else ""
    )
    text = cxx_type.fully_qualified_name or cxx_type.name
    return TemplateTypeRow(spelled(text, names), pattern(cxx_type.referenced(), names), reference)


def pattern(cxx_type: Type, names: TemplateNames) -> tuple:
    """How ``cxx_type`` (no reference) is built from the template arguments."""
    canonical = strip_cv(cxx_type.canonical_name)
    written = strip_cv(cxx_type.unqualified_non_ref_type_name or cxx_type.name)
    if not _is_dependent(cxx_type):
        return ("type", normalize_cxx_name(canonical))
    whole = _PARAMETER.fullmatch(canonical)
    if whole is not None:
        return ("param", names.by_depth(int(whole[1]), int(whole[2])))
    index = names.index(written)
    if index is not None and names.params[index].kind is TemplateParamKind.TYPE:
        return ("param", index)
    if cxx_type.kind is TypeKind.POINTER and cxx_type.pointee is not None:
        return ("pointer", pattern(cxx_type.pointee, names))
    if cxx_type.kind is TypeKind.ARRAY and cxx_type.pointee is not None:
        extents = re.findall(r"\[([^\[\]]*)\]", cxx_type.name)
        if len(extents) == 1:
            return ("array", pattern(cxx_type.pointee, names), spelled(extents[0], names))
        return ("dependent",)
    return _template_pattern(cxx_type, names)


def _template_pattern(cxx_type: Type, names: TemplateNames) -> tuple:
    text = normalize_cxx_name(strip_cv(cxx_type.fully_qualified_name or cxx_type.name))
    start = text.find("<")
    if start <= 0 or not text.endswith(">"):
        return ("dependent",)
    qual_name = names.class_template(text[:start].strip())
    if qual_name is None:
        return ("dependent",)
    from ast_canopy.spelling import split_template_arguments

    arguments = []
    for argument in split_template_arguments(text):
        index = names.index(argument.strip())
        if index is not None:
            kind = names.params[index].kind
            arguments.append(("value" if kind is TemplateParamKind.NON_TYPE else "param", index))
        else:
            arguments.append(("text", spelled(argument, names)))
    return ("template", qual_name, tuple(arguments))


def _is_dependent(cxx_type: Type | None) -> bool:
    if cxx_type is None:
        return False
    if cxx_type.kind is TypeKind.DEPENDENT or "-parameter-" in cxx_type.canonical_name:
        return True
    if cxx_type.kind is TypeKind.ARRAY and any(extent < 0 for extent in cxx_type.array_extents):
        return True
    if cxx_type.kind in (TypeKind.POINTER, TypeKind.ARRAY) or cxx_type.is_reference:
        return _is_dependent(cxx_type.pointee)
    return False


def param_rows(params: Sequence[TemplateParam], names: TemplateNames) -> tuple:
    result = []
    for param in params:
        value_type = ""
        kind = rows.TYPE_PARAMETER
        if param.kind is TemplateParamKind.NON_TYPE:
            kind = rows.VALUE_PARAMETER
            value_type = strip_cv(param.type_.canonical_name) if param.type_ else "int"
        # Qualified text means the same at global scope, where instances are probed.
        written = param.default_qualified or param.default
        default = None if written is None else spelled(written, names)
        result.append(TemplateParamRow(param.name, kind, value_type, default))
    return tuple(result)


# -- callables --------------------------------------------------------------------------------


def _result_row(return_type: Type, names: TemplateNames) -> TemplateTypeRow | None:
    if return_type.kind is TypeKind.BUILTIN and strip_cv(return_type.name) == "void":
        return None
    return type_row(return_type, names)


def function_template_row(
    templ: FunctionTemplate, class_templates: Iterable[str], python_name: str | None = None
) -> FunctionTemplateRow:
    """The row of a function template; raises BindingError when it cannot be bound."""
    func = templ.function
    host_only = host_only_reason(func)
    if host_only is not None:
        raise BindingError(host_only)
    if func.is_deleted or func.is_variadic:
        raise BindingError("it is deleted" if func.is_deleted else "it is variadic")
    reason = unsupported_parameter(templ.template_parameters)
    if reason is not None:
        raise BindingError(reason)
    names = TemplateNames(templ.template_parameters, class_templates)
    operator = ""
    if func.operator is not None:
        key = python_operator_for(func.operator, len(func.params))
        if key is None:
            raise BindingError(f"operator{func.operator} has no Python counterpart")
        if func.operator in COMPOUND and not func.params[0].type_.is_lvalue_reference:
            raise BindingError(f"operator{func.operator} does not take its left operand by &")
        operator = key.__name__
    callable_row = TemplateCallableRow(
        rows.FUNCTION,
        operator or func.name,
        func.operator or func.qual_name,
        tuple((p.name, type_row(p.type_, names), p.default_value is not None) for p in func.params),
        _result_row(func.return_type, names),
        False,
        (),
        declaration_text(func),
    )
    return FunctionTemplateRow(
        "" if operator else (python_name or func.name),
        func.qual_name,
        operator,
        param_rows(templ.template_parameters, names),
        callable_row,
    )


def member_row(method: Method, names: TemplateNames) -> TemplateCallableRow | None:
    """A member of a class template as a template callable; None when it is not bound by
    design (non-public, deleted, copy/move, destructors); raises BindingError otherwise."""
    member = member_kind(method)
    if member is None:
        return None
    params = tuple((p.name, type_row(p.type_, names), p.default_value is not None)
                   for p in method.params)  # fmt: skip
    if member.kind == rows.CONSTRUCTOR:
        return _callable(member, params, None, method)
    result = _result_row(method.return_type, names)
    return _callable(member, () if member.kind == rows.CONVERSION else params, result, method)


def _callable(member: MemberKind, params, result, method: Method) -> TemplateCallableRow:
    where = location_of(method)
    declaration = f"{method.qual_name}(...)  // {where.rsplit('/', 1)[-1]}" if where else ""
    kind, name, cxx_name, flag = member
    return TemplateCallableRow(kind, name, cxx_name, params, result, flag, (), declaration)


def class_template_row(
    templ: ClassTemplate | ClassTemplatePartialSpecialization,
    class_templates: Iterable[str],
    parent_type: object,
    data_model: object,
    skip,
    python_name: str | None = None,
    specializations: Sequence[tuple[tuple[str, ...], int]] = (),
    partials: Sequence[ClassTemplatePartialSpecialization] = (),
) -> ClassTemplateRow:
    """The row of a class template (members that cannot be bound are reported through
    ``skip`` and left out); raises BindingError when the template cannot be bound."""
    reason = unsupported_parameter(templ.template_parameters)
    if reason is not None:
        raise BindingError(reason)
    record = templ.record
    if not isinstance(class_templates, ClassTemplateIndex):
        class_templates = ClassTemplateIndex(class_templates)  # used for each partial too
    names = TemplateNames(templ.template_parameters, class_templates)
    fields = tuple((f.name, type_row(f.type_, names)) for f in record.fields if not f.is_bitfield)
    public = tuple(f.name for f in record.fields if f.access is Access.PUBLIC and not f.is_bitfield)
    members = []
    for method in record.methods:
        try:
            row = member_row(method, names)
        except BindingError as exc:
            skip("method", method.qual_name, str(exc), location_of(method))
            continue
        if row is not None:
            members.append(row)
    for member_template in record.templated_methods:
        row = member_template_row(member_template, names, skip)
        if row is not None:
            members.append(row)
    partial_rows = []
    for partial in partials:
        try:
            partial_rows.append(_partial_row(partial, class_templates, parent_type, data_model,
                                             skip))  # fmt: skip
        except BindingError as exc:
            skip("partial specialization", partial.record.qual_name, str(exc),
                 location_of(partial.record))  # fmt: skip
    where = location_of(record)
    return ClassTemplateRow(
        python_name or record.name,
        templ.qual_name if isinstance(templ, ClassTemplate) else templ.template_qual_name,
        param_rows(templ.template_parameters, names),
        parent_type,
        data_model,
        fields,
        public,
        tuple(members),
        tuple(specializations),
        tuple(partial_rows),
        f"{record.qual_name}  // {where.rsplit('/', 1)[-1]}" if where else record.qual_name,
    )


def member_template_row(
    templ: FunctionTemplate, names: TemplateNames, skip
) -> TemplateCallableRow | None:
    method = templ.function
    reason = unsupported_parameter(templ.template_parameters)
    if reason is not None:
        skip("member template", method.qual_name, reason, location_of(method))
        return None
    inner = names.nested(templ.template_parameters)
    try:
        row = member_row(method, inner) if isinstance(method, Method) else None
    except BindingError as exc:
        skip("member template", method.qual_name, str(exc), location_of(method))
        return None
    if row is None:
        return None
    return row._replace(own_params=param_rows(templ.template_parameters, inner))


def _partial_row(partial, class_templates, parent_type, data_model, skip) -> tuple:
    row = class_template_row(partial, class_templates, parent_type, data_model, skip)
    names = TemplateNames(partial.template_parameters, class_templates)
    patterns = []
    for argument in partial.template_arguments:
        text = argument.strip()
        index = names.index(text)
        if index is not None:
            kind = partial.template_parameters[index].kind
            patterns.append(("value" if kind is TemplateParamKind.NON_TYPE else "param", index))
        elif text.endswith("*") and names.index(text[:-1].strip()) is not None:
            patterns.append(("pointer", ("param", names.index(text[:-1].strip()))))
        else:
            patterns.append(("text", text))
    return row, tuple(patterns)


def alias_template_row(alias: AliasTemplate, class_templates: Iterable[str]) -> AliasTemplateRow:
    reason = unsupported_parameter(alias.template_parameters)
    if reason is not None:
        raise BindingError(reason)
    names = TemplateNames(alias.template_parameters, class_templates)
    aliased = pattern(alias.underlying_type.referenced(), names)
    if aliased[0] != "template":
        raise BindingError(f"it names {alias.underlying_name}, which is not a bound class template")
    return AliasTemplateRow(
        alias.name, alias.qual_name, param_rows(alias.template_parameters, names), aliased
    )

"""Templates as rows: what the runtime needs to instantiate them later, with no clang.

A template's types are kept twice: spelled in C++ with ``{i}`` standing for template argument i
(for shims and compiler probes), and as a pattern saying how the type is built from the
arguments (for deduction and for substituting in Python). Both are read off the parsed
declaration here, once; instantiation happens at run time (``numbast.runtime.template_*``).
Templates that cannot be bound (parameter packs, template template parameters) are reported.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Sequence

from ast_canopy.model import (
    Access,
    AliasTemplate,
    ClassTemplate,
    ClassTemplatePartialSpecialization,
    FunctionTemplate,
    Method,
    TemplateParamKind,
    Type,
)
from ast_canopy.spelling import split_template_arguments
from numbast.core import rows, template_rows
from numbast.core.template_rows import (
    AliasTemplateRow,
    ClassTemplateRow,
    FunctionTemplateRow,
    TemplateCallableRow,
    TemplateTypeRow,
)
from numbast.planning.descriptions import declaration_text, host_only_reason, location_of
from numbast.planning.diagnostics import BindingError
from numbast.planning.implicit_constructors import declares_constructors
from numbast.planning.intents import (
    IntentSpec,
    MethodIntents,
    function_template_intents,
    method_intent_spec,
)
from numbast.planning.member_kinds import assigns_elements
from numbast.planning.operators import COMPOUND, no_python_syntax, python_operator_for
from numbast.planning.template_members import (
    element_assignment_row,
    member_row,
    member_template_row,
    outputs_told_apart,
)
from numbast.planning.template_types import (
    ClassTemplateIndex,
    TemplateNames,
    param_rows,
    pattern,
    result_row,
    spelled,
    type_row,
    unsupported_parameter,
)
from numbast.planning.type_rules import strip_cv

__all__ = [
    "ClassTemplateIndex",
    "TemplateNames",
    "alias_template_row",
    "class_template_row",
    "function_template_row",
    "member_template_row",
]


def function_template_row(
    templ: FunctionTemplate,
    class_templates: Iterable[str],
    python_name: str | None = None,
    intents: IntentSpec | None = None,
) -> FunctionTemplateRow:
    """The row of a function template; raises BindingError when it cannot be bound (also for
    ``intents``, its parameters' argument intents, naming what does not exist)."""
    func = templ.function
    host_only = host_only_reason(func)
    if host_only is not None:
        raise BindingError(host_only)
    if func.is_deleted or func.is_variadic:
        raise BindingError("it is deleted" if func.is_deleted else "it is variadic")
    reason = unsupported_parameter(templ.template_parameters, template_parameters=True)
    if reason is not None:
        raise BindingError(reason)
    names = TemplateNames(templ.template_parameters, class_templates)
    operator = ""
    if func.operator is not None:
        key = python_operator_for(func.operator, len(func.params))
        if key is None:
            raise BindingError(
                no_python_syntax(func.operator, len(func.params))
                or f"operator{func.operator} has no Python counterpart"
            )
        if func.operator in COMPOUND and not func.params[0].type_.is_lvalue_reference:
            raise BindingError(f"operator{func.operator} does not take its left operand by &")
        operator = key.__name__
    callable_row = TemplateCallableRow(
        template_rows.FUNCTION,
        operator or func.name,
        func.operator or func.qual_name,
        tuple((p.name, type_row(p.type_, names), p.default_value is not None) for p in func.params),
        result_row(func.return_type, names),
        False,
        (),
        declaration_text(func),
        function_template_intents(func.qual_name, func.params, intents),
    )
    return FunctionTemplateRow(
        "" if operator else (python_name or func.name),
        func.qual_name,
        operator,
        param_rows(templ.template_parameters, names),
        callable_row,
    )


def class_template_row(
    templ: ClassTemplate | ClassTemplatePartialSpecialization,
    class_templates: Iterable[str],
    parent_type: object,
    data_model: object,
    skip,
    python_name: str | None = None,
    specializations: Sequence[tuple[tuple[str, ...], int]] = (),
    partials: Sequence[ClassTemplatePartialSpecialization] = (),
    arg_intent: MethodIntents | None = None,
    instances: Sequence[int] = (),
) -> ClassTemplateRow:
    """The row of a class template (members that cannot be bound are reported through
    ``skip`` and left out); raises BindingError when the template cannot be bound.
    ``arg_intent`` gives its members' argument intents as NVIDIA writes them
    (``{"BlockScan": {"InclusiveSum": {"output": "out_return"}}}``); ``instances`` are the
    struct indexes of the ``specializations`` that clang instantiated (implicit ones)."""
    reason = unsupported_parameter(templ.template_parameters)
    if reason is not None:
        raise BindingError(reason)
    record = templ.record
    if not isinstance(class_templates, ClassTemplateIndex):
        class_templates = ClassTemplateIndex(class_templates)  # used for each partial too
    names = TemplateNames(templ.template_parameters, class_templates)
    fields = tuple((f.name, type_row(f.type_, names)) for f in record.fields if not f.is_bitfield)
    public = tuple(f.name for f in record.fields if f.access is Access.PUBLIC and not f.is_bitfield)
    template_name = templ.qual_name if isinstance(templ, ClassTemplate) else (
        templ.template_qual_name)  # fmt: skip
    owner_names = (record.name, template_name.split("::")[-1], template_name)

    def intents_of(method: Method) -> IntentSpec | None:
        return method_intent_spec(arg_intent, owner_names, method.name)

    entries = []  # (row, the row with its default outputs taken by pointer)
    for method in record.methods:
        try:
            row = member_row(method, names, intents_of(method))
        except BindingError as exc:
            skip("method", method.qual_name, str(exc), location_of(method))
            continue
        if row is not None:
            by_pointer = functools.partial(member_row, method, names, intents_of(method), False)
            entries.append((row, by_pointer))
            if assigns_elements(method):
                entries.append((element_assignment_row(row), lambda: None))
    for member_template in record.templated_methods:
        spec = intents_of(member_template.function)
        row = member_template_row(member_template, names, skip, spec)
        if row is not None:
            by_pointer = functools.partial(member_template_row, member_template, names, skip,
                                           spec, False)  # fmt: skip
            entries.append((row, by_pointer))
    members = outputs_told_apart(entries)
    if not declares_constructors(record) and not record.is_abstract:
        # C++'s implicit default constructor (functors: ``cuda::maximum<int>()``).
        members.append(TemplateCallableRow(rows.CONSTRUCTOR, "", "", (), None, False, (),
                                           f"{record.qual_name}()  (implicit)"))  # fmt: skip
    partial_rows = []
    for partial in partials:
        try:
            partial_rows.append(_partial_row(partial, class_templates, parent_type, data_model,
                                             skip, arg_intent))  # fmt: skip
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
        tuple(getattr(record, "member_type_names", ())),
        tuple(instances),
        tuple(
            _base_row(base.type_, names)
            for base in record.bases
            if base.access is Access.PUBLIC and not base.is_virtual and base.type_ is not None
        ),
    )


def _base_row(base: Type, names: TemplateNames) -> TemplateTypeRow:
    """A base as a type row; an expression among its arguments is taken from the canonical
    spelling, where clang has resolved the names (cooperative groups writes
    ``thread_block_tile_impl<Size, ParentT, details::_is_multi_warp<Size>::value>`` inside its
    namespace; canonically that is ``cuda::std::integral_constant<bool, ...>::value``, which
    means the same at global scope, where the runtime evaluates it)."""
    row = type_row(base, names)
    if row.pattern[0] != "template":
        return row
    canonical = split_template_arguments(strip_cv(base.canonical_name))
    written = list(split_template_arguments(row.spelling))
    if len(written) != len(row.pattern[2]):
        return row
    arguments = []
    for i, sub in enumerate(row.pattern[2]):
        if sub[0] == "text" and i < len(canonical):
            written[i] = spelled(canonical[i], names)
            sub = ("text", written[i])
        arguments.append(sub)
    spelling = f"{row.spelling[: row.spelling.index('<')]}<{', '.join(written)}>"
    return row._replace(spelling=spelling, pattern=(*row.pattern[:2], tuple(arguments)))


def _partial_row(partial, class_templates, parent_type, data_model, skip, arg_intent) -> tuple:
    row = class_template_row(
        partial, class_templates, parent_type, data_model, skip, arg_intent=arg_intent
    )
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
    reason = unsupported_parameter(alias.template_parameters, template_parameters=True)
    if reason is not None:
        raise BindingError(reason)
    names = TemplateNames(alias.template_parameters, class_templates)
    aliased = pattern(alias.underlying_type.referenced(), names)
    if aliased[0] not in ("template", "template_param"):
        # A type the module binds no template of (cooperative groups' traits name
        # ``cuda::std::integral_constant<bool, expr>``, from a header not retained): its
        # instances are C++ types named by the alias itself, which kernels give as template
        # arguments.
        aliased = template_rows.NAMED_BY_ALIAS
    return AliasTemplateRow(
        alias.name, alias.qual_name, param_rows(alias.template_parameters, names), aliased
    )

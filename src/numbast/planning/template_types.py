"""Types in templates as rows: the names in scope, C++ spellings with ``{i}`` standing for
template argument i, and patterns saying how each type is built from the arguments (what
deduction reads). Read off the parsed declaration once; instantiation is the runtime's.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from ast_canopy.model import TemplateParam, TemplateParamKind, Type, TypeKind
from numbast.core import template_rows
from numbast.core.template_rows import TemplateParamRow, TemplateTypeRow
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


def unsupported_parameter(
    params: Sequence[TemplateParam], template_parameters: bool = False
) -> str | None:
    """Why a template with these parameters cannot be bound, or None; template template
    parameters only where ``template_parameters`` (function and alias templates)."""
    for param in params:
        if param.is_pack:
            return f"template parameter pack {param.name}... is not supported"
        if param.kind is TemplateParamKind.TEMPLATE and not template_parameters:
            return (
                f"template template parameter {param.name} is not supported here (only in "
                "function and alias templates)"
            )
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
    outer = names.index(text[:start].strip())
    if qual_name is None and (
        outer is None or names.params[outer].kind is not TemplateParamKind.TEMPLATE
    ):
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
    if qual_name is None:  # ``Op<T>``, Op a template template parameter
        return ("template_param", outer, tuple(arguments))
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
        kind = template_rows.TYPE_PARAMETER
        if param.kind is TemplateParamKind.NON_TYPE:
            kind = template_rows.VALUE_PARAMETER
            value_type = strip_cv(param.type_.canonical_name) if param.type_ else "int"
        elif param.kind is TemplateParamKind.TEMPLATE:
            kind = template_rows.TEMPLATE_PARAMETER
        # Qualified text means the same at global scope, where instances are probed.
        written = param.default_qualified or param.default
        default = None if written is None else spelled(written, names)
        result.append(TemplateParamRow(param.name, kind, value_type, default))
    return tuple(result)


def result_row(return_type: Type, names: TemplateNames) -> TemplateTypeRow | None:
    if return_type.kind is TypeKind.BUILTIN and strip_cv(return_type.name) == "void":
        return None
    return type_row(return_type, names)

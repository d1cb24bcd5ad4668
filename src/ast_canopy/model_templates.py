"""The template half of the declaration model: parameters, templates, their specializations.

Plain frozen data like the rest of ``ast_canopy.model`` (which re-exports every class here).
``instantiate()`` returns NVIDIA's instantiation helpers (``ast_canopy.instantiations``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ast_canopy.kinds import TemplateParamKind

if TYPE_CHECKING:
    from ast_canopy.instantiations import ClassInstantiation, FunctionInstantiation
    from ast_canopy.model import Field, Function, Method, Struct, Type


@dataclass(frozen=True)
class TemplateParam:
    name: str
    kind: TemplateParamKind
    # The parameter's type: for a non-type parameter its declared type ("int"); for a type
    # parameter the (dependent) type it names ("T"); None for template template parameters.
    type_: Type | None = None
    # The default argument as written (macro-expanded when a macro writes the parameter).
    # It is written in the template's scope: evaluate it inside the template's
    # ``enclosing_namespace``, or use ``default_qualified``.
    default: str | None = None
    is_pack: bool = False  # `typename... Ts`: binders skip these, saying so
    # The default with macros expanded and every name it refers to qualified from the global
    # namespace (``cub::BLOCK_REDUCE_WARP_REDUCTIONS``, ``cub::detail::warp_threads``):
    # text that means the same at global scope. Template parameter names stay as written.
    default_qualified: str | None = None


class Template:
    """What every template declaration answers (NVIDIA's ``ast_canopy.decl.Template``)."""

    template_parameters: tuple[TemplateParam, ...]

    @property
    def tparam_dict(self) -> dict[str, TemplateParam]:
        return {param.name: param for param in self.template_parameters}


class _TemplatedDeclaration(Template):
    """A template whose names are those of the declaration it templates."""

    @property
    def templated(self) -> Function | Struct:
        raise NotImplementedError

    @property
    def name(self) -> str:
        return self.templated.name

    @property
    def qual_name(self) -> str:
        return self.templated.qual_name

    @property
    def parse_entry_point(self) -> str:
        return self.templated.parse_entry_point


@dataclass(frozen=True)
class FunctionTemplate(_TemplatedDeclaration):
    template_parameters: tuple[TemplateParam, ...]
    function: Function  # the templated declaration; its types may be DEPENDENT
    num_min_required_args: int = 0
    # The namespace the template is declared in ("cub", "" for the global one), inline
    # namespaces left out: the scope its parameters' defaults are written in.
    enclosing_namespace: str = ""

    @property
    def templated(self) -> Function:
        return self.function

    def instantiate(self, **kwargs: Any) -> FunctionInstantiation:
        """Template arguments by parameter name (NVIDIA's API); see ast_canopy.instantiations."""
        from ast_canopy.instantiations import FunctionInstantiation

        return FunctionInstantiation(self).instantiate(**kwargs)


@dataclass(frozen=True)
class ClassTemplate(_TemplatedDeclaration):
    template_parameters: tuple[TemplateParam, ...]
    record: Struct  # the templated definition; sizes are None, types may be DEPENDENT
    num_min_required_args: int = 0
    enclosing_namespace: str = ""  # as FunctionTemplate's

    @property
    def templated(self) -> Struct:
        return self.record

    def instantiate(self, **kwargs: Any) -> ClassInstantiation:
        """Template arguments by parameter name (NVIDIA's API); see ast_canopy.instantiations."""
        from ast_canopy.instantiations import ClassInstantiation

        return ClassInstantiation(self).instantiate(**kwargs)


@dataclass(frozen=True)
class ClassTemplateSpecialization:
    """A class template specialization with its concrete layout, as clang has it.

    Explicit ones (``template <> struct Vec<float, 2> {...}``, ``is_explicit``) are written in a
    retained file. Implicit ones are instantiations clang made because a reported declaration
    names them (a field ``Vec<float, 3> v;``, a parameter ``const ns::Arr<float, 4> &``), or a
    reported specialization of a retained template does. Their members are those clang
    instantiated: fields and layout when the type had to be complete, methods as declared; an
    instance only ever named through a pointer or reference has ``sizeof_`` None and no members.
    """

    record: Struct  # name is the template's name; qual_name the full spelling with arguments
    template_qual_name: str  # the primary template, e.g. "ns::Vec"
    template_arguments: tuple[str, ...]  # one per argument, packs expanded: ("float", "3")
    is_explicit: bool = True
    # One entry per template parameter, a pack's arguments joined by ", " (NVIDIA's layout).
    arguments_per_parameter: tuple[str, ...] = ()

    @property
    def name(self) -> str:
        return self.record.name

    @property
    def base_name(self) -> str:
        return self.record.name

    @property
    def qual_name(self) -> str:
        return self.record.qual_name

    @property
    def specialized_name(self) -> str:
        """The name with its arguments, without namespaces: ``Vec<float, 3>``."""
        return f"{self.record.name}<{', '.join(self.template_arguments)}>"

    @property
    def actual_template_arguments(self) -> list[str]:
        return list(self.arguments_per_parameter or self.template_arguments)

    # The record's attributes, as NVIDIA's specialization (a Struct subclass) has them.
    @property
    def fields(self) -> tuple[Field, ...]:
        return self.record.fields

    @property
    def methods(self) -> tuple[Method, ...]:
        return self.record.methods

    @property
    def templated_methods(self) -> tuple[FunctionTemplate, ...]:
        return self.record.templated_methods

    @property
    def nested_records(self) -> tuple[Struct, ...]:
        return self.record.nested_records

    @property
    def nested_class_templates(self) -> tuple[ClassTemplate, ...]:
        return self.record.nested_class_templates

    @property
    def sizeof_(self) -> int | None:
        return self.record.sizeof_

    @property
    def alignof_(self) -> int | None:
        return self.record.alignof_

    @property
    def parse_entry_point(self) -> str:
        return self.record.parse_entry_point

    def constructors(self) -> tuple[Method, ...]:
        return self.record.constructors()

    def public_fields(self) -> list[Field]:
        return self.record.public_fields()


@dataclass(frozen=True)
class ClassTemplatePartialSpecialization(_TemplatedDeclaration):
    """``template <class T> struct Vec<T, 1> {...}``: its own parameters, and the pattern of
    arguments it specializes the primary template for (``("T", "1")``, fully qualified)."""

    template_parameters: tuple[TemplateParam, ...]
    record: Struct  # qual_name is the pattern's spelling, e.g. "ns::Vec<T, 1>"
    template_qual_name: str  # the primary template, e.g. "ns::Vec"
    template_arguments: tuple[str, ...]
    num_min_required_args: int = 0
    enclosing_namespace: str = ""  # as FunctionTemplate's

    @property
    def templated(self) -> Struct:
        return self.record


@dataclass(frozen=True)
class AliasTemplate(Template):
    """``template <class T> using V3 = Vec<T, 3>;``."""

    name: str
    qual_name: str
    template_parameters: tuple[TemplateParam, ...]
    underlying_type: Type  # dependent; fully_qualified_name spells it with namespaces
    num_min_required_args: int = 0
    file: str = ""
    line: int = 0
    enclosing_namespace: str = ""  # as FunctionTemplate's

    @property
    def underlying_name(self) -> str:
        return self.underlying_type.fully_qualified_name or self.underlying_type.name

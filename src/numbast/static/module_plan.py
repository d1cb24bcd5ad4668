"""Plan a whole header for a bindings module: its rows, with the config's choices applied.

Each declaration is planned by the same code as dynamic binding (``numbast.planning``), with a
type table of :class:`~numbast.planning.type_refs.TypeRef` instead of Numba types. On top of it
this decides what only a module has: the config's filters (Exclude, Skip Prefix, API Prefix
Removal, Types / Data Models, Function Argument Intents, Cooperative Launch Required Functions
Regex), one Python name per module attribute, per-arch guards on shims, and typedef aliases.
Functions, their defaulted forms, kernels and function templates are planned by
``module_functions``, the rest here.
"""

from __future__ import annotations

import os
import re

from ast_canopy.model import Enum_, MacroConstant, Method, Struct
from numbast.core.rows import StructRow
from numbast.planning.calls import CallPlan
from numbast.planning.constants import plan_macro_constant
from numbast.planning.declarations import plan_enum, plan_struct, plan_struct_body, remove_prefix
from numbast.planning.descriptions import NOT_DEVICE_CALLABLE, location_of, method_text
from numbast.planning.diagnostics import BindingError
from numbast.planning.inheritance import inherited_methods
from numbast.planning.intents import method_intent_spec
from numbast.planning.operators import NO_PYTHON_SYNTAX
from numbast.planning.templates import ClassTemplateIndex, alias_template_row, class_template_row
from numbast.planning.type_refs import (
    TypeRef,
    enum_ref,
    external_ref,
    is_integer,
    static_type_table,
    struct_ref,
)
from numbast.planning.type_rules import TypeTable, UnsupportedTypeError, normalize_cxx_name
from numbast.static.arch_merge import MergedDeclarations, guard_shim, member_key
from numbast.static.config import StaticConfig, warn_names_not_declared
from numbast.static.coverage import BOUND, EXCLUDED, HOST_ONLY, SKIPPED, Decision
from numbast.static.module_functions import FunctionPlanning
from numbast.static.planned_module import ModulePlan, planned_preamble

DEFAULT_PARENT_TYPE = "Type"  # numba.cuda.types.Type, as bind_cxx_struct's default
DEFAULT_DATA_MODEL = "StructModel"
# Module attributes the generated module defines itself (Use Separate Registry).
RESERVED_NAMES = frozenset({"typing_registry", "target_registry"})


class _Planner(FunctionPlanning):
    def __init__(
        self,
        merged: MergedDeclarations,
        config: StaticConfig,
        table: TypeTable[TypeRef] | None = None,
    ) -> None:
        self.merged = merged
        self.config = config
        self.header = config.entry_point
        self.table: TypeTable[TypeRef] = static_type_table() if table is None else table
        for external in config.external_types:
            # Bound by another module: declarations here take that module's type. The
            # module's own declaration of the same name, if any, replaces it.
            if external.enum_storage is None:
                self.table.register(external.qual_name, external_ref(external))
            else:
                storage = TypeRef(tuple(external.enum_storage), external.qual_name)
                self.table.register_enum(external.qual_name, external_ref(external), storage)
        self.out = ModulePlan()
        self.names: dict[str, str] = {}  # public python name -> what it binds (kind)
        self.shim_names: set[str] = set()
        self.cooperative = [
            re.compile(p) for p in config.cooperative_launch_required_functions_regex
        ]
        # class template -> ((argument spellings), struct index) of its specializations
        self.specializations: dict[str, list[tuple[tuple[str, ...], int]]] = {}
        self.implicit_instances: dict[str, list[int]] = {}  # class template -> struct indexes
        self.class_template_names = ClassTemplateIndex(
            t.qual_name for t in merged.decls.class_templates
        )
        self._instance_templates = {
            normalize_cxx_name(q): q for q in self.class_template_names.qual_names
        }
        self.table.instance_fallbacks.append(self.instance_ref)

    # -- reporting ------------------------------------------------------------------------
    def skip(self, kind: str, what: str, reason: str, where: str = "") -> None:
        location = f" ({os.path.basename(where)})" if where else ""
        self.out.skipped.append(f"{kind} {what}{location}: {reason}")
        outcome = SKIPPED
        if reason.endswith(NOT_DEVICE_CALLABLE):
            outcome = HOST_ONLY
        elif reason.endswith(NO_PYTHON_SYNTAX):
            outcome = EXCLUDED
        self.decide(kind, what, where, outcome, reason)

    def decide(
        self,
        kind: str,
        what: str,
        where: str,
        outcome: str,
        reason: str = "",
        shim: str = "",
        template: str = "",
    ) -> None:
        """Record what became of one declaration (``numbast.static.coverage``)."""
        file = os.path.basename(where)
        self.out.decisions.append(
            Decision(kind, what, file, outcome, reason, shim, where, template=template)
        )

    def bound_member(self, what: str, where: str, shim: str) -> None:
        self.decide("method", what, where, BOUND, shim=shim)

    def claim(self, python_name: str, kind: str, what: str, where: str) -> bool:
        """Reserve a module attribute name; False (and a skip) when it is taken."""
        taken = self.names.get(python_name)
        if python_name in RESERVED_NAMES and self.config.use_separate_registry:
            taken = "the module's own registry"
        if taken is not None and taken != f"function {python_name}":
            self.skip(kind, what, f"its Python name {python_name!r} is taken by {taken}", where)
            return False
        self.names[python_name] = f"{kind} {python_name}"
        return True

    def guard(self, plan: CallPlan, key: str, what: str) -> CallPlan:
        """The call with its shim wrapped in arch conditions when it exists on some arches."""
        arches = self.merged.arches_of(key)
        if arches is None:
            return plan
        text = guard_shim(plan.shim_text, what, arches, self.merged.archs)
        return plan._replace(shim_text=text)

    def guard_member(self, plan: CallPlan, method: Method) -> CallPlan:
        return self.guard(plan, member_key(method), method_text(method))

    # -- enums ----------------------------------------------------------------------------
    def plan_enums(self, enums: list[Enum_]) -> None:
        prefixes = self.config.enum_prefix_removal
        for decl in enums:
            where = location_of(decl)
            if not decl.name:
                continue  # an anonymous enum has no type to bind
            python_name = remove_prefix(decl.name, prefixes)
            try:
                row, underlying = plan_enum(decl, self.table, is_integer, python_name, prefixes)
            except (BindingError, UnsupportedTypeError) as exc:
                self.skip("enum", decl.qual_name, str(exc), where)
                continue
            if not self.claim(python_name, "enum", decl.qual_name, where):
                continue
            index = len(self.out.enums)
            self.decide("enum", decl.qual_name, where, BOUND)
            self.out.enums.append(row)
            self.out.enum_storage.append(underlying.description)
            self.table.register_enum(decl.qual_name, enum_ref(index, decl.qual_name), underlying)

    def plan_enumerators(self) -> None:
        """Unscoped enumerators at module scope (as C++ puts them in the enclosing scope),
        where no other binding has the name."""
        for row in self.out.enums:
            if row.scoped:
                continue
            for name, _value in row.members:
                if name not in self.names and name not in RESERVED_NAMES:
                    self.names[name] = f"enumerator of {row.qual_name}"
                    self.out.enumerators.append(name)

    # -- structs --------------------------------------------------------------------------
    def plan_structs(self, structs: list[Struct], specializations: list) -> None:
        """Structs, and the header's class template specializations with a layout (bound as
        structs too, not exported under a name: their template selects them)."""
        excluded = set(self.config.exclude_structs)
        kept: list[StructRow] = []
        decls: list[Struct] = []
        for decl in structs:
            where = location_of(decl)
            if not decl.name:
                continue
            if decl.name in excluded:
                self.decide("struct", decl.qual_name, where, EXCLUDED, "Exclude: Struct")
                continue
            python_name = remove_prefix(decl.name, self.config.struct_prefix_removal)
            parent = self.config.types.get(decl.name, DEFAULT_PARENT_TYPE)
            model = self.config.data_models.get(decl.name, DEFAULT_DATA_MODEL)
            try:
                row = plan_struct(decl, python_name, parent, model)
            except BindingError as exc:
                self.skip("struct", decl.qual_name, str(exc), where)
                continue
            if not self.claim(python_name, "struct", decl.qual_name, where):
                continue
            self.decide("struct", decl.qual_name, where, BOUND)
            kept.append(row)
            decls.append(decl)
        self._plan_nested_records(list(decls), kept, decls)
        for spec in specializations:
            template = spec.template_qual_name.split("::")[-1]
            if spec.record.sizeof_ is None or template in excluded:
                continue  # named by reference only: instantiated when used
            parent = self.config.types.get(template, DEFAULT_PARENT_TYPE)
            model = self.config.data_models.get(template, DEFAULT_DATA_MODEL)
            try:
                row = plan_struct(spec.record, spec.qual_name, parent, model)
            except BindingError as exc:
                self.skip("specialization", spec.qual_name, str(exc), location_of(spec.record))
                continue
            self.decide("specialization", spec.qual_name, location_of(spec.record), BOUND)
            self.specializations.setdefault(spec.template_qual_name, []).append(
                (tuple(spec.template_arguments), len(kept))
            )
            if not spec.is_explicit:
                self.implicit_instances.setdefault(spec.template_qual_name, []).append(len(kept))
            kept.append(row)
            decls.append(spec.record)
        # Every struct type first, so members and signatures can refer to any of them.
        for index, decl in enumerate(decls):
            self.table.register(decl.qual_name, struct_ref(index, decl.qual_name))
        # Bases whose members the structs inherit: every record parsed, bound or not.
        records = {record.qual_name: record for record in (*structs, *decls)}
        records.update({spec.qual_name: spec.record for spec in specializations})
        intents = self.config.function_argument_intents
        for index, (row, decl) in enumerate(zip(kept, decls, strict=True)):
            owners = (decl.name, decl.qual_name)
            body = plan_struct_body(
                decl,
                struct_ref(index, decl.qual_name),
                self.table,
                self.skip,
                self.guard_member,
                self.bound_member,
                lambda method, owners=owners: method_intent_spec(intents, owners, method.name),
                inherited=inherited_methods(decl, records) if decl.bases else (),
            )
            self.out.structs.append((row, body))

    def _plan_nested_records(
        self, outer: list[Struct], kept: list[StructRow], decls: list[Struct]
    ) -> None:
        """Records declared inside the structs (``struct Outer { struct Inner {...}; Inner in;
        }``), bound as dynamic binding binds them, so the enclosing structs' fields of their
        types are members; named by their C++ spelling, not exported."""
        for decl in outer:
            for inner in decl.nested_records:
                if not inner.name or inner.sizeof_ is None:
                    continue
                parent = self.config.types.get(inner.name, DEFAULT_PARENT_TYPE)
                model = self.config.data_models.get(inner.name, DEFAULT_DATA_MODEL)
                try:
                    row = plan_struct(inner, inner.qual_name, parent, model)
                except BindingError as exc:
                    self.skip("nested struct", inner.qual_name, str(exc), location_of(inner))
                    continue
                self.out.nested.add(len(kept))
                kept.append(row)
                decls.append(inner)
                self._plan_nested_records([inner], kept, decls)

    # -- templates ------------------------------------------------------------------------
    def instance_ref(self, spelling: str) -> TypeRef | None:
        """A class template instance no struct binds (named through a reference only): made
        when the module is imported."""
        from ast_canopy.spelling import split_template_arguments

        name = normalize_cxx_name(spelling)
        qual_name = self._instance_templates.get(name[: name.find("<")].strip())
        if qual_name is None:
            return None
        return TypeRef(("instance", qual_name, split_template_arguments(name)), name)

    def plan_class_templates(self, decls) -> None:
        excluded = set(self.config.exclude_structs)
        partials: dict[str, list] = {}
        for partial in decls.class_template_partial_specializations:
            partials.setdefault(normalize_cxx_name(partial.template_qual_name), []).append(partial)
        for templ in decls.class_templates:
            where = location_of(templ.record)
            if templ.name in excluded:
                self.decide("class template", templ.qual_name, where, EXCLUDED, "Exclude: Struct")
                continue
            python_name = remove_prefix(templ.name, self.config.struct_prefix_removal)
            try:
                row = class_template_row(
                    templ,
                    self.class_template_names,
                    self.config.types.get(templ.name, DEFAULT_PARENT_TYPE),
                    self.config.data_models.get(templ.name, DEFAULT_DATA_MODEL),
                    self.skip,
                    python_name,
                    self.specializations.get(templ.qual_name, ()),
                    partials.get(normalize_cxx_name(templ.qual_name), ()),
                    self.config.function_argument_intents,
                    self.implicit_instances.get(templ.qual_name, ()),
                )
            except BindingError as exc:
                self.skip("class template", templ.qual_name, str(exc), where)
                continue
            if self.claim(python_name, "class template", templ.qual_name, where):
                self.decide("class template", templ.qual_name, where, BOUND)
                self.out.class_templates.append(row)
        for alias in decls.alias_templates:
            try:
                row = alias_template_row(alias, self.class_template_names)
            except BindingError as exc:
                self.skip("alias template", alias.qual_name, str(exc), location_of(alias))
                continue
            if self.claim(row.python_name, "alias template", alias.qual_name, location_of(alias)):
                self.decide("alias template", alias.qual_name, location_of(alias), BOUND)
                self.out.alias_templates.append(row)

    # -- macro constants ------------------------------------------------------------------
    def plan_macro_constants(self, constants: list[MacroConstant]) -> None:
        """Object-like macros that expand to a literal, as typed module constants."""
        for macro in constants:
            where = location_of(macro)
            try:
                row = plan_macro_constant(macro)
            except BindingError as exc:
                self.skip("macro constant", macro.name, str(exc), where)
                continue
            if self.claim(row.python_name, "macro constant", macro.name, where):
                self.decide("macro constant", macro.name, where, BOUND)
                self.out.constants.append(row)

    # -- typedefs -------------------------------------------------------------------------
    def plan_aliases(self) -> None:
        bound = {row.qual_name: row.python_name for row, _body in self.out.structs}
        bound.update({e.qual_name: e.python_name for e in self.out.enums})
        for typedef in self.merged.decls.typedefs:
            target = bound.get(normalize_cxx_name(typedef.underlying_type.canonical_name))
            if target is None or typedef.name == target or typedef.name in self.names:
                continue
            self.names[typedef.name] = f"alias of {target}"
            self.out.aliases.append((typedef.name, target))


def plan_module(
    merged: MergedDeclarations,
    config: StaticConfig,
    type_table: TypeTable[TypeRef] | None = None,
) -> ModulePlan:
    """Plan enums, structs (with the header's class template specializations), class and alias
    templates, free functions and operators, function templates, then typedef aliases and
    unscoped enumerators (functions refer to the types bound before them). ``type_table``
    starts the planning (default: builtins and vector types; dynamic binding passes the
    process's types)."""
    planner = _Planner(merged, config, type_table)
    decls = merged.decls
    planner.plan_enums(decls.enums)
    planner.plan_structs(decls.structs, decls.class_template_specializations)
    planner.plan_class_templates(decls)
    planner.plan_functions(decls.functions)
    planner.plan_function_templates(decls.function_templates)
    planner.plan_aliases()
    planner.plan_macro_constants(decls.macro_constants)
    planner.plan_enumerators()
    warn_names_not_declared(config, decls)
    planner.out.preamble = planned_preamble(
        config.entry_point, config.shim_include_override, config.predefined_macros
    )
    return planner.out

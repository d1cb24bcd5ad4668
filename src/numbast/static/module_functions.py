"""A module's functions (part of ``module_plan``'s planner): free functions and operators with
the overloads that leave out defaulted trailing arguments, ``__global__`` kernels, and function
templates, each with the config's Exclude, Skip Prefix, API Prefix Removal, Function Argument
Intents and Cooperative Launch Required Functions Regex applied.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable

from ast_canopy.model import Function
from numbast.core.rows import KernelRow
from numbast.planning.calls import CallPlan
from numbast.planning.declarations import omittable_arguments, plan_function, remove_prefix
from numbast.planning.descriptions import declaration_text, location_of, signature_text
from numbast.planning.diagnostics import BindingError
from numbast.planning.intents import IntentSpec
from numbast.planning.templates import ClassTemplateIndex, function_template_row
from numbast.planning.type_refs import TypeRef
from numbast.planning.type_rules import TypeTable, UnsupportedTypeError
from numbast.static.arch_merge import function_key
from numbast.static.config import StaticConfig
from numbast.static.coverage import BOUND, EXCLUDED
from numbast.static.planned_module import ModulePlan

logger = logging.getLogger(__name__)


class FunctionPlanning:
    """The function planning of ``module_plan._Planner``, which provides these attributes
    (the config, the type table, the plan being filled) and the reporting methods."""

    config: StaticConfig
    table: TypeTable[TypeRef]
    out: ModulePlan
    shim_names: set[str]
    cooperative: list[re.Pattern[str]]
    class_template_names: ClassTemplateIndex
    skip: Callable[..., None]
    decide: Callable[..., None]
    claim: Callable[[str, str, str, str], bool]
    guard: Callable[[CallPlan, str, str], CallPlan]

    # -- functions ------------------------------------------------------------------------
    def plan_functions(self, functions: list[Function]) -> None:
        excluded = set(self.config.exclude_functions)
        skip_prefix = self.config.skip_prefix
        intents = self.config.function_argument_intents
        for func in functions:
            what, where = signature_text(func), location_of(func)
            kind = "operator" if func.operator is not None else "function"
            if func.name in excluded or (skip_prefix and func.name.startswith(skip_prefix)):
                logger.debug("excluded %s", func.qual_name)
                why = "Exclude: Function" if func.name in excluded else f"Skip Prefix {skip_prefix}"
                self.decide(kind, what, where, EXCLUDED, why)
                continue
            if func.exec_space.value == "global":
                self.plan_kernel(func, what, where)
                continue
            python_name = remove_prefix(func.name, self.config.function_prefix_removal)
            try:
                row = plan_function(func, self.table, intents.get(func.name), python_name)
            except (BindingError, UnsupportedTypeError) as exc:
                self.skip(kind, what, str(exc), where)
                continue
            if row.call.shim_name in self.shim_names:
                continue  # declared twice (e.g. in the .h and again in the .hpp)
            if not row.operator and not self.claim(python_name, "function", what, where):
                continue
            template = func.specializes or ""
            self.decide(kind, what, where, BOUND, shim=row.call.shim_name, template=template)
            self.shim_names.add(row.call.shim_name)
            cooperative = not row.operator and any(p.search(func.name) for p in self.cooperative)
            call = self.guard(row.call, function_key(func), what)
            self.out.functions.append(row._replace(call=call, cooperative=cooperative))
            if not row.operator:
                self.plan_defaulted_forms(func, intents.get(func.name), python_name, cooperative)

    def plan_defaulted_forms(
        self, func: Function, intents: IntentSpec | None, python_name: str, cooperative: bool
    ) -> None:
        """Overloads of ``python_name`` that leave out defaulted trailing arguments."""
        for omitted in range(1, omittable_arguments(func) + 1):
            try:
                row = plan_function(func, self.table, intents, python_name, omitted)
            except (BindingError, UnsupportedTypeError) as exc:
                logger.debug("%s without %d argument(s): %s", func.qual_name, omitted, exc)
                continue
            call = self.guard(row.call, function_key(func), signature_text(func))
            self.shim_names.add(row.call.shim_name)
            self.out.functions.append(row._replace(call=call, cooperative=cooperative))

    def plan_kernel(self, func: Function, what: str, where: str) -> None:
        """A ``__global__`` function: launched from the host (through the import system)."""
        if not func.mangled_name:
            self.skip("kernel", what, "it has no mangled name to find it by", where)
            return
        python_name = remove_prefix(func.name, self.config.function_prefix_removal)
        if self.claim(python_name, "kernel", what, where):
            self.decide("kernel", what, where, BOUND)
            self.out.kernels.append(
                KernelRow(python_name, func.qual_name, func.mangled_name, declaration_text(func))
            )

    def plan_function_templates(self, templates) -> None:
        excluded = set(self.config.exclude_functions)
        for templ in templates:
            func = templ.function
            where = location_of(func)
            if func.name in excluded:
                self.decide("function template", func.qual_name, where, EXCLUDED, "Exclude")
                continue
            python_name = remove_prefix(func.name, self.config.function_prefix_removal)
            try:
                row = function_template_row(
                    templ,
                    self.class_template_names,
                    python_name,
                    self.config.function_argument_intents.get(func.name),
                )
            except BindingError as exc:
                self.skip("function template", func.qual_name, str(exc), where)
                continue
            if row.python_name and not self.claim(python_name, "function", func.qual_name, where):
                continue
            self.decide("function template", func.qual_name, where, BOUND)
            self.out.function_templates.append(row)

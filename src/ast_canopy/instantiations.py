"""Naming a template's instantiation from Python: NVIDIA ast_canopy's ``instantiate()`` API.

    foo_1 = foo_t.instantiate(N=1)                 # a ClassTemplate
    smem_3 = smem.instantiate(TA=foo_1, TB=foo_1)  # a FunctionTemplate
    smem_3.get_instantiated_c_stmt()               # "smem<foo_t<1>, foo_t<1>>"
    smem_3.evaluate_constexpr_value(foo_1, foo_1)  # clang folds smem<...>(a, b)

Arguments are given by template parameter name, in any order; a value is another instantiation,
a Python bool or number, or C++ text (a type name such as ``"float"``).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ast_canopy.model import ClassTemplate, Function, FunctionTemplate, Struct
    from ast_canopy.model_templates import Template

_VALUE_NAME = "ast_canopy_constexpr_value__"


def _cxx_text(argument: Any, use_qual_name: bool) -> str:
    if isinstance(argument, BaseInstantiation):
        return argument.get_instantiated_c_stmt(use_qual_name=use_qual_name)
    if isinstance(argument, bool):
        return "true" if argument else "false"
    return str(argument)


class BaseInstantiation:
    """A template with (some of) its arguments chosen, by parameter name."""

    def __init__(self, template: Template) -> None:
        self.template = template
        self.template_parameters = template.template_parameters
        self.instantiated_args: dict[str, Any] = {}

    @property
    def base_name(self) -> str:
        return self.template.name  # the templated declaration's names

    @property
    def qual_name(self) -> str:
        return self.template.qual_name

    def instantiate(self, **kwargs: Any) -> BaseInstantiation:
        self.instantiated_args = dict(kwargs)
        self.validate()
        return self

    def validate(self) -> None:
        known = [p.name for p in self.template_parameters]
        unknown = [name for name in self.instantiated_args if name not in known]
        if unknown:
            raise ValueError(
                f"{self.qual_name} has no template parameter named {', '.join(unknown)}; "
                f"its parameters are: {', '.join(known) or '(none)'}"
            )

    def _spelled_through(self) -> int:
        """Index of the last parameter the template-id spells: the last one given (the rest
        may be deduced or defaulted)."""
        given = self.instantiated_args
        return max(
            (i for i, p in enumerate(self.template_parameters) if p.name in given), default=-1
        )

    @property
    def param_list(self) -> list[Any]:
        """The arguments in parameter order, up to the last one spelled; a parameter skipped
        on the way takes its default (an empty pack takes nothing)."""
        given = self.instantiated_args
        arguments = []
        for param in self.template_parameters[: self._spelled_through() + 1]:
            if param.name in given:
                arguments.append(given[param.name])
            elif param.default is not None:
                arguments.append(param.default)
            elif not param.is_pack:
                raise ValueError(
                    f"{self.qual_name}: template parameter {param.name} has no argument and no "
                    "default; give it by name"
                )
        return arguments

    def get_instantiated_c_stmt(self, use_qual_name: bool = False) -> str:
        """``name<arg, ...>``; with ``use_qual_name`` every name is namespace-qualified."""
        name = self.qual_name if use_qual_name else self.base_name
        arguments = ", ".join(_cxx_text(a, use_qual_name) for a in self.param_list)
        return f"{name}<{arguments}>"


class FunctionInstantiation(BaseInstantiation):
    def __init__(self, function_template: FunctionTemplate) -> None:
        super().__init__(function_template)
        self.function: Function = function_template.function

    def evaluate_constexpr_value(
        self, *args: Any, header: str | None = None, compute_capability: str = "sm_80"
    ) -> Any:
        """Call this constexpr function template with ``args`` and let clang fold the result.

        An instantiation among ``args`` stands for a default-constructed object of that type.
        ``header`` declares the template (by default the header it was parsed from).
        """
        from ast_canopy.constexpr_folding import fold_constexpr

        if not self.function.is_constexpr:
            raise ValueError(f"{self.qual_name} is not constexpr: clang cannot fold a call to it")
        header = header if header is not None else self.function.parse_entry_point
        if not header or not os.path.exists(header):
            raise ValueError(
                f"{self.qual_name}: header {header!r} not found; pass header= the file that "
                "declares it"
            )
        lines = [f'#include "{os.path.abspath(header)}"']
        operands = []
        for index, argument in enumerate(args):
            if isinstance(argument, BaseInstantiation):
                variable = f"ast_canopy_argument_{index}__"
                type_text = argument.get_instantiated_c_stmt(use_qual_name=True)
                lines.append(f"__device__ {type_text} {variable};")
                operands.append(variable)
            else:
                operands.append(_cxx_text(argument, use_qual_name=True))
        call = f"{self.get_instantiated_c_stmt(use_qual_name=True)}({', '.join(operands)})"
        lines.append(f"__device__ constexpr auto {_VALUE_NAME} = {call};")
        source = "\n".join(lines) + "\n"
        value = fold_constexpr(source, _VALUE_NAME, compute_capability)
        if value is None:
            raise ValueError(f"clang could not fold {call} to a constant")
        return value


class ClassInstantiation(BaseInstantiation):
    def __init__(self, class_template: ClassTemplate) -> None:
        super().__init__(class_template)
        self.record: Struct = class_template.record

    def _spelled_through(self) -> int:
        # A class template-id names every parameter that has no default.
        required = max(
            (
                i
                for i, p in enumerate(self.template_parameters)
                if p.default is None and not p.is_pack
            ),
            default=-1,
        )
        return max(required, super()._spelled_through())


__all__ = ["BaseInstantiation", "ClassInstantiation", "FunctionInstantiation"]

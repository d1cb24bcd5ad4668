"""Template argument deduction from Numba argument types, the way C++ deduces from a call.

``T``, ``const T &`` and ``T &&`` deduce ``T`` from the argument's type; ``T *`` from a
``CPointer``; a template-id such as ``const Vec<T, N> &`` from an instance of a bound class
template (its recorded template arguments). Everything else is a non-deduced context.
Deduction is exact, as in C++: two different types for one parameter is an error.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from numba.cuda import types
from numba.cuda.core.errors import TypingError

from ast_canopy.model import TemplateParam, TemplateParamKind, Type, TypeKind
from numbast.planning.type_rules import UnsupportedTypeError, strip_cv
from numbast.templates.arguments import TemplateArgument, split_template_id, type_argument

_PARAM_INDEX = re.compile(r"type-parameter-0-(\d+)")


class DeductionError(TypingError):
    """The template arguments cannot be deduced from these argument types."""


class Deduction:
    """Deduced arguments by parameter index; the first ``explicit`` parameters are given
    explicitly and are not deduced (their arguments convert instead, as in C++)."""

    def __init__(self, params: Sequence[TemplateParam], explicit: Sequence[TemplateArgument]):
        self.params = params
        self.explicit_count = len(explicit)
        self.arguments: dict[int, TemplateArgument] = dict(enumerate(explicit))

    def deduce(self, pattern: Type, actual: types.Type) -> None:
        """Deduce from one parameter declared as ``pattern`` given an argument of ``actual``."""
        pattern = pattern.referenced()
        if pattern.kind is TypeKind.POINTER and pattern.pointee is not None:
            if isinstance(actual, types.CPointer):
                self.deduce(pattern.pointee, actual.dtype)
            return
        if pattern.kind is not TypeKind.DEPENDENT:
            return
        index = self._index_of(pattern)
        if index is not None:
            if self.params[index].kind is TemplateParamKind.TYPE:
                try:
                    self._bind(index, type_argument(actual))
                except UnsupportedTypeError as exc:
                    raise DeductionError(str(exc)) from None
            return
        template = split_template_id(strip_cv(pattern.unqualified_non_ref_type_name))
        if template is None:
            return  # a non-deduced context (typename X<T>::type ...)
        name, spelled = template
        instance_of = getattr(actual, "template_qual_name", None)
        if instance_of is None or name.split("::")[-1] != instance_of.split("::")[-1]:
            raise DeductionError(f"{actual} is not an instance of {name}")
        for text, argument in zip(spelled, actual.template_arguments, strict=False):
            for index, param in enumerate(self.params):
                if param.name == text.strip():
                    self._bind(index, argument)

    def _index_of(self, pattern: Type) -> int | None:
        match = _PARAM_INDEX.fullmatch(strip_cv(pattern.canonical_name))
        if match is not None:
            return int(match[1])
        written = strip_cv(pattern.unqualified_non_ref_type_name or pattern.name)
        for index, param in enumerate(self.params):
            if param.name == written:
                return index
        return None

    def _bind(self, index: int, argument: TemplateArgument) -> None:
        if index < self.explicit_count:
            return
        previous = self.arguments.get(index)
        if previous is not None and previous.key != argument.key:
            name = self.params[index].name
            raise DeductionError(f"{name} deduced as both {previous} and {argument}")
        self.arguments[index] = argument


__all__ = ["Deduction", "DeductionError"]

"""The templates of one set of bindings: their stubs, bound from rows when a module applies
its rows (or when dynamic binding binds a template).

Loaded only by bindings that have templates, so a module without any pays nothing for them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from numba.cuda import types

from ...core.template_rows import (
    NAMED_BY_ALIAS,
    AliasTemplateRow,
    ClassTemplateRow,
    FunctionTemplateRow,
    TemplateParamRow,
)
from ..cxx_types import numba_type_of, register_spelling
from ..overloads import FunctionStubs
from .args import explicit_argument, spelled_argument, template_id
from .classes import ClassTemplateBinder
from .context import TemplateContext
from .functions import (
    FunctionTemplateBinder,
    FunctionTemplateStub,
    bind_operator_template,
)
from .storage import cxx_only_type


class AliasTemplateStub:
    """``V3[types.float32]`` for ``template <class T> using V3 = Vec<T, 3>``: the instance of
    the class template it names."""

    def __init__(self, row: AliasTemplateRow, context: TemplateContext) -> None:
        self.row = AliasTemplateRow(*row)
        self.params = tuple(TemplateParamRow(*p) for p in self.row.params)
        self.context = context
        self.__name__ = self.__qualname__ = self.row.python_name
        self.__doc__ = f"CUDA C++ alias template {self.row.qual_name} (bound from C++)."

    def __getitem__(self, arguments: Any) -> type:
        raw = arguments if isinstance(arguments, tuple) else (arguments,)
        if len(raw) > len(self.params):
            raise TypeError(f"{self.row.qual_name} takes {len(self.params)} template argument(s)")
        given = [explicit_argument(v, p) for v, p in zip(raw, self.params, strict=False)]
        # A C++ type the module binds no template of is named by the alias itself (its
        # trailing defaults left to C++), for use as a template argument; so is one whose
        # arguments only the compiler tells (``_redux_op_supported<remove_qual<Op<T>>, T>``).
        named_by_alias = cxx_only_type(template_id(self.row.qual_name, given))
        if self.row.pattern == NAMED_BY_ALIAS:
            return named_by_alias
        kind, named, patterns = self.row.pattern
        if kind == "template_param":  # ``Op<T>``: the class template given for Op
            named = given[named].cxx if named < len(given) else ""
        binder = self.context.class_template(named)
        if binder is None:
            raise TypeError(f"{self.row.qual_name} names {named}, which is not bound")
        target = {}
        for index, sub in enumerate(patterns):
            argument = self.context._template_argument(sub, given)
            if argument is None:
                return named_by_alias
            target[index] = argument
        return binder.instance(binder.complete(target))

    def __repr__(self) -> str:
        return f"<alias template {self.row.qual_name}>"


class ModuleTemplates:
    """The templates of one generated module, applied with its rows."""

    def __init__(
        self,
        context: TemplateContext,
        class_templates: Sequence[ClassTemplateRow],
        function_templates: Sequence[FunctionTemplateRow],
        alias_templates: Sequence[AliasTemplateRow],
        struct_types: Sequence[types.Type],
    ) -> None:
        self.context = context
        self.function_rows = [FunctionTemplateRow(*r) for r in function_templates]
        self.alias_rows = [AliasTemplateRow(*r) for r in alias_templates]
        self.binders: list[ClassTemplateBinder] = []
        self.struct_types = struct_types
        # Specializations name the module's own structs (CUTLASS's platform::numeric_limits
        # <cutlass::half_t>): their spellings must resolve before the structs are registered.
        for numba_type in struct_types:
            spelling = getattr(numba_type, "cxx_qual_name", None)
            if spelling is not None and numba_type_of(spelling) is None:
                register_spelling(spelling, numba_type)
        self.specialization_of: dict[int, tuple[ClassTemplateBinder, tuple[str, ...]]] = {}
        for row in map(ClassTemplateRow._make, class_templates):
            spelled = {tuple(args): struct_types[index] for args, index in row.specializations}
            binder = ClassTemplateBinder(row, context, spelled, register=False)
            self.binders.append(binder)
            for args, index in row.specializations:
                self.specialization_of[index] = (binder, tuple(args))

    def instance_type(self, description: Sequence) -> types.Type:
        """The Numba type of a type row ``("instance", class template, argument spellings)``."""
        _kind, qual_name, spelled = description
        binder = self.context.class_template(qual_name)
        if binder is None:
            raise TypeError(f"{self.context.origin}: class template {qual_name} is not bound")
        given = {}
        for index, (text, param) in enumerate(zip(spelled, binder.params, strict=False)):
            given[index] = spelled_argument(text, param, type_of=self.context.type_of)
        return binder.instance_type(binder.complete(given))

    def add_struct(self, index: int, stub: type) -> bool:
        """Hand a specialization's struct stub to its template; False for other structs."""
        found = self.specialization_of.get(index)
        if found is None:
            return False
        binder, spelled = found
        binder.add_specialization_stub(spelled, stub)
        return True

    def prepare_stubs(self, stubs: FunctionStubs) -> None:
        """Function templates' stubs first: a name with plain overloads and templates gets one
        stub that takes both (plain overloads, applied next, are tried first, as C++ prefers
        non-templates)."""
        self._function_stubs = stubs
        for row in self.function_rows:
            if not row.operator:
                stubs.adopt_for(row.python_name, row.qual_name,
                                FunctionTemplateStub(row.qual_name, row.python_name,
                                                     origin=self.context.origin))  # fmt: skip

    def stubs(self) -> dict[str, Any]:
        """The module's names of its templates (made now; registered by :meth:`register`)."""
        bound: dict[str, Any] = {binder.row.python_name: binder.stub for binder in self.binders}
        for row in self.alias_rows:
            bound[row.python_name] = AliasTemplateStub(row, self.context)
        for row in self.function_rows:
            if not row.operator:
                bound[row.python_name] = self._function_stubs.stub(row.python_name, row.qual_name)
        return bound

    def register(self, stubs: FunctionStubs) -> None:
        """Register the templates with Numba (after the plain functions of the same names: C++
        prefers those on a tie)."""
        for binder in self.binders:
            binder.register()
            for index in binder.row.instances:
                binder.add_template_members(self.struct_types[index])
        for row in self.function_rows:
            binder = FunctionTemplateBinder(row, self.context)
            if row.operator:
                bind_operator_template(binder)
            else:
                stubs.stub(row.python_name, row.qual_name).add(binder)


__all__ = ["AliasTemplateStub", "ModuleTemplates"]

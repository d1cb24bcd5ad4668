"""The planned rows of a bindings module (``numbast.static.module_plan`` fills it; the module
writer writes it), with what other modules and coverage reports read from it, and the preamble
of its shims."""

from __future__ import annotations

import ast
from collections.abc import Sequence
from dataclasses import dataclass, field

from numbast.core.cxx_names import spelled_accessor
from numbast.core.row_writer import RowWriter
from numbast.core.rows import (
    FORMAT,
    EnumRow,
    FunctionRow,
    KernelRow,
    ModuleRows,
    StructBodyRow,
    StructRow,
)
from numbast.core.shim_text import shim_preamble
from numbast.core.template_rows import AliasTemplateRow, ClassTemplateRow, FunctionTemplateRow
from numbast.planning.constants import ConstantRow
from numbast.static.coverage import Decision


@dataclass
class ModulePlan:
    """The planned rows of a module (calls still CallPlans, types TypeRefs)."""

    enums: list[EnumRow] = field(default_factory=list)
    structs: list[tuple[StructRow, StructBodyRow]] = field(default_factory=list)
    functions: list[FunctionRow] = field(default_factory=list)
    class_templates: list[ClassTemplateRow] = field(default_factory=list)
    function_templates: list[FunctionTemplateRow] = field(default_factory=list)
    alias_templates: list[AliasTemplateRow] = field(default_factory=list)
    kernels: list[KernelRow] = field(default_factory=list)
    aliases: list[tuple[str, str]] = field(default_factory=list)  # (alias, bound python name)
    enumerators: list[str] = field(default_factory=list)  # of unscoped enums, at module scope
    skipped: list[str] = field(default_factory=list)  # "kind name (where): reason"
    enum_storage: list[tuple] = field(default_factory=list)  # per enum: its integer, described
    decisions: list[Decision] = field(default_factory=list)  # per declaration: for coverage
    nested: set[int] = field(default_factory=set)  # struct indices of records nested in others
    # The text every shim translation unit starts with (defines, #include of the header); None
    # when a Shim Include Override expression is evaluated as the module is imported.
    preamble: str | None = None
    constants: list[ConstantRow] = field(default_factory=list)  # macros expanding to a literal

    def _hidden_structs(self) -> set[int]:
        """Struct indices bound but not exported: template specializations (reached through
        their template) and records nested in structs (bound for their enclosing struct's
        layout)."""
        hidden = {i for t in self.class_templates for _args, i in t.specializations}
        return hidden | self.nested

    def exported_types(self) -> list[tuple[str, str, tuple | None]]:
        """(C++ name, Python name, an enum's storage description or None) of the structs and
        enums bound under a name: what other modules can use (``__numbast_types__``)."""
        hidden = self._hidden_structs()
        exported: list[tuple[str, str, tuple | None]] = [
            (row.qual_name, row.python_name, None)
            for i, (row, _body) in enumerate(self.structs)
            if i not in hidden
        ]
        exported += [
            (row.qual_name, row.python_name, storage)
            for row, storage in zip(self.enums, self.enum_storage, strict=True)
        ]
        return exported

    def struct_names(self) -> list[str]:
        """Python names of the structs the module exports (not those named by their C++
        spelling: see :meth:`instance_set_names`)."""
        hidden = self._hidden_structs()
        return [
            s.python_name
            for i, (s, _) in enumerate(self.structs)
            if i not in hidden and s.python_name.isidentifier()
        ]

    def instance_set_names(self) -> list[str]:
        """The names under which the structs bound by C++ spelling (instances of class
        templates the module does not bind) are indexed: ``box`` for ``ns::box<float>``
        (``numbast.runtime.spelled_names``)."""
        hidden = self._hidden_structs()
        names = []
        for i, (row, _body) in enumerate(self.structs):
            accessor = spelled_accessor(row.python_name)
            if i not in hidden and accessor is not None and accessor[0] == "instance":
                names.append(accessor[1])
        return list(dict.fromkeys(names))

    def rows(self, writer: RowWriter) -> ModuleRows:
        """The module's rows as the runtime applies them, indexed by ``writer`` (types stay as
        the type table had them: the writer's ``types``; shims are the writer's)."""
        structs = tuple(StructRow(*row) for row, _body in self.structs)
        bodies = tuple(writer.struct_body(body) for _row, body in self.structs)
        functions = tuple(writer.function(row) for row in self.functions)
        return ModuleRows(
            format=FORMAT,
            shims=tuple(writer.shims),
            types=tuple(writer.types),
            enums=tuple(self.enums),
            structs=structs,
            struct_bodies=bodies,
            functions=functions,
            aliases=tuple(self.aliases),
            class_templates=tuple(self.class_templates),
            function_templates=tuple(self.function_templates),
            alias_templates=tuple(self.alias_templates),
            kernels=tuple(self.kernels),
        )

    def public_names(self) -> list[str]:
        """The names ``__all__`` lists. Typedef aliases are module attributes but not listed,
        as in NVIDIA's Numbast (``from module import *`` gives each type once)."""
        names = self.struct_names()
        names += self.instance_set_names()
        names += [e.python_name for e in self.enums]
        names += [f.python_name for f in self.functions if f.python_name]
        names += [t.python_name for t in self.class_templates]
        names += [t.python_name for t in self.function_templates if t.python_name]
        names += [t.python_name for t in self.alias_templates]
        names += [k.python_name for k in self.kernels]
        names += self.enumerators
        names += [c.python_name for c in self.constants]
        return list(dict.fromkeys(names))


def planned_preamble(
    entry_point: str, include_override: str | None, macros: Sequence[str]
) -> str | None:
    """The shims' preamble when the config fixes it: the entry point, or a Shim Include Override
    that is a string literal; None for an override expression (``__file__``-relative...),
    which only the imported module can evaluate."""
    include = entry_point
    if include_override is not None:
        try:
            include = ast.literal_eval(include_override)
        except (ValueError, SyntaxError):
            return None
        if not isinstance(include, str):
            return None
    return shim_preamble(include, macros)

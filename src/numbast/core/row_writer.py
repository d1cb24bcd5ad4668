"""Index planned rows into the rows the runtime applies.

Planned rows hold ``CallPlan``\\ s and types as the type table has them; applied rows refer to
types and shims by index, so a module lists each type and shim once. The same writer serves
dynamic binding (its types are Numba type objects, used as they are) and the static generator
(its types are :class:`~numbast.planning.type_refs.TypeRef` descriptions, written as literals).
"""

from __future__ import annotations

from typing import Any

from .call_plans import CallPlan
from .rows import (
    ArgumentRow,
    CallRow,
    FunctionRow,
    MemberRow,
    StructBodyRow,
)


class RowWriter:
    """Assigns indices to types and shims as rows refer to them (``types`` and ``shims`` are
    the tables the indices point into)."""

    def __init__(self) -> None:
        self.types: list[Any] = []
        self.shims: list[tuple[str, str]] = []
        self._type_indices: dict[Any, int] = {}
        self._shim_indices: dict[str, int] = {}

    def type_index(self, type_: Any | None) -> int:
        if type_ is None:
            return -1
        index = self._type_indices.get(type_)
        if index is None:
            index = self._type_indices[type_] = len(self.types)
            self.types.append(type_)
        return index

    def call(self, plan: CallPlan) -> CallRow:
        shim = self._shim_indices.get(plan.shim_name)
        if shim is None:
            shim = self._shim_indices[plan.shim_name] = len(self.shims)
            self.shims.append((plan.shim_name, plan.shim_text))
        arguments = tuple(
            ArgumentRow(self.type_index(a.type), a.mode, a.align) for a in plan.arguments
        )
        return CallRow(
            shim,
            arguments,
            self.type_index(plan.cxx_result),
            plan.result_align,
            plan.returns_first_argument,
        )

    def member(self, row: MemberRow) -> MemberRow:
        return row._replace(call=self.call(row.call))

    def struct_body(self, body: StructBodyRow) -> StructBodyRow:
        fields = body.fields
        if fields is not None:
            fields = tuple((name, self.type_index(type_)) for name, type_ in fields)
        members = tuple(map(self.member, body.members))
        return StructBodyRow(fields, body.public_fields, members, body.member_templates)

    def function(self, row: FunctionRow) -> FunctionRow:
        return row._replace(call=self.call(row.call))

"""Plan every declaration of a header for a static bindings module, as plain data.

The decisions are dynamic binding's (``numbast.declaration_plans``, ``numbast.struct_layout``),
made with a type table of :class:`~numbast.static.numba_exprs.TypeExpr` instead of Numba
types. What comes out is what the module writer turns into tables: structs, enums, functions,
the shims they call, and the declarations that were skipped and why.

The config's filters apply here: Exclude, Skip Prefix, API Prefix Removal, Types / Data Models,
Function Argument Intents and Cooperative Launch Required Functions Regex.
"""

from __future__ import annotations

import logging
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from ast_canopy.model import Access, Enum_, Function, Struct
from numbast.callables import CallPlan
from numbast.cxx_types import TypeTable, UnsupportedTypeError, normalize_cxx_name
from numbast.declaration_plans import (
    MemberKind,
    location_of,
    method_text,
    plan_function,
    plan_member,
    python_member_name,
    signature_text,
)
from numbast.diagnostics import BindingError
from numbast.static.arch_merge import (
    MergedDeclarations,
    function_key,
    guard_shim,
    member_key,
)
from numbast.static.config import StaticConfig
from numbast.static.numba_exprs import (
    TypeExpr,
    enum_type_expr,
    is_integer,
    static_type_table,
    struct_type_expr,
)
from numbast.struct_layout import struct_members

logger = logging.getLogger(__name__)

DEFAULT_PARENT_TYPE = "Type"  # numba.cuda.types.Type, as bind_cxx_struct's default
DEFAULT_DATA_MODEL = "StructModel"
# Module attributes the generated module defines itself (Use Separate Registry).
RESERVED_NAMES = frozenset({"typing_registry", "target_registry"})


@dataclass(frozen=True)
class CallRow:
    shim_name: str
    shim_text: str
    arguments: tuple[tuple[TypeExpr, str, int | None], ...]
    result: TypeExpr | None
    result_align: int | None
    returns_first_argument: bool


@dataclass(frozen=True)
class MemberRow:
    kind: str  # "constructor", "conversion", "operator", "method"
    name: str  # operator function name or method name
    call: CallRow
    flag: bool  # constructor: implicit conversion; method: non-const


@dataclass
class StructBinding:
    python_name: str
    name: str
    qual_name: str
    sizeof: int
    alignof: int
    parent_type: str
    data_model: str
    members: tuple[tuple[str, TypeExpr], ...] | None
    public_fields: tuple[str, ...]
    member_rows: list[MemberRow] = field(default_factory=list)


@dataclass(frozen=True)
class EnumBinding:
    python_name: str
    qual_name: str
    members: tuple[tuple[str, int], ...]


@dataclass(frozen=True)
class FunctionBinding:
    python_name: str  # "" for operators
    qual_name: str
    operator: str  # name in the operator module, "" for functions
    call: CallRow
    label: str
    cooperative: bool


@dataclass
class ModuleBindings:
    structs: list[StructBinding] = field(default_factory=list)
    enums: list[EnumBinding] = field(default_factory=list)
    functions: list[FunctionBinding] = field(default_factory=list)
    aliases: list[tuple[str, str]] = field(default_factory=list)  # (alias, bound python name)
    skipped: list[str] = field(default_factory=list)  # "kind name (where): reason"

    def public_names(self) -> list[str]:
        names = [s.python_name for s in self.structs] + [e.python_name for e in self.enums]
        names += [f.python_name for f in self.functions if f.python_name]
        names += [alias for alias, _ in self.aliases]
        return list(dict.fromkeys(names))


def remove_prefix(name: str, prefixes: Iterable[str]) -> str:
    """``name`` without the first of ``prefixes`` it starts with (Numbast's API Prefix Removal);
    unchanged when nothing would be left."""
    for prefix in prefixes:
        if prefix and name.startswith(prefix) and len(name) > len(prefix):
            return name[len(prefix) :]
    return name


class _Planner:
    def __init__(self, merged: MergedDeclarations, config: StaticConfig) -> None:
        self.merged = merged
        self.config = config
        self.header = config.entry_point
        self.table: TypeTable[TypeExpr] = static_type_table()
        self.out = ModuleBindings()
        self.names: dict[str, str] = {}  # public python name -> what it binds (kind)
        self.shim_names: set[str] = set()
        self.cooperative = [
            re.compile(p) for p in config.cooperative_launch_required_functions_regex
        ]

    # -- reporting ------------------------------------------------------------------------
    def skip(self, kind: str, what: str, reason: str, where: str = "") -> None:
        location = f" ({os.path.basename(where)})" if where else ""
        self.out.skipped.append(f"{kind} {what}{location}: {reason}")

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

    # -- calls ----------------------------------------------------------------------------
    def call_row(self, plan: CallPlan, key: str, what: str) -> CallRow:
        text = plan.shim_text
        arches = self.merged.arches_of(key)
        if arches is not None:
            text = guard_shim(text, what, arches, self.merged.archs)
        return CallRow(
            plan.shim_name,
            text,
            tuple((a.numba_type, a.mode, a.align) for a in plan.arguments),
            plan.cxx_result,
            plan.result_align,
            plan.returns_first_argument,
        )

    # -- enums ----------------------------------------------------------------------------
    def plan_enums(self, enums: list[Enum_]) -> None:
        prefixes = self.config.enum_prefix_removal
        for decl in enums:
            where = location_of(decl)
            if not decl.name:
                continue  # an anonymous enum has no type to bind
            try:
                underlying = self.table.to_type(decl.underlying_type)
            except UnsupportedTypeError as exc:
                self.skip("enum", decl.qual_name, str(exc), where)
                continue
            if not is_integer(underlying):
                self.skip("enum", decl.qual_name, f"underlying type {underlying} is not integral")
                continue
            python_name = remove_prefix(decl.name, prefixes)
            if not self.claim(python_name, "enum", decl.qual_name, where):
                continue
            members = tuple(
                (python_member_name(remove_prefix(name, prefixes)), value)
                for name, value in zip(decl.enumerators, decl.enumerator_values, strict=True)
            )
            index = len(self.out.enums)
            self.out.enums.append(EnumBinding(python_name, decl.qual_name, members))
            self.table.register_enum(
                decl.qual_name, enum_type_expr(index, decl.qual_name), underlying
            )

    # -- structs --------------------------------------------------------------------------
    def plan_structs(self, structs: list[Struct]) -> None:
        excluded = set(self.config.exclude_structs)
        kept: list[tuple[Struct, str]] = []
        for decl in structs:
            where = location_of(decl)
            if decl.name in excluded or not decl.name:
                continue
            if decl.sizeof_ is None or decl.alignof_ is None:
                self.skip("struct", decl.qual_name, "its size is unknown (incomplete type)", where)
                continue
            python_name = remove_prefix(decl.name, self.config.struct_prefix_removal)
            if not self.claim(python_name, "struct", decl.qual_name, where):
                continue
            kept.append((decl, python_name))
        # Every struct type first, so members and signatures can refer to any of them.
        for index, (decl, _python_name) in enumerate(kept):
            self.table.register(decl.qual_name, struct_type_expr(index, decl.qual_name))
        for index, (decl, python_name) in enumerate(kept):
            self.out.structs.append(self.plan_struct(decl, python_name, index))

    def plan_struct(self, decl: Struct, python_name: str, index: int) -> StructBinding:
        members, reason = struct_members(decl, self.table)
        if members is None:
            logger.info("%s gets an opaque data model unless PrimitiveModel: %s", decl.name, reason)
        public_fields = tuple(f.name for f in decl.fields if f.access is Access.PUBLIC)
        binding = StructBinding(
            python_name=python_name,
            name=decl.name,
            qual_name=decl.qual_name,
            sizeof=decl.sizeof_,
            alignof=decl.alignof_,
            parent_type=self.config.types.get(decl.name, DEFAULT_PARENT_TYPE),
            data_model=self.config.data_models.get(decl.name, DEFAULT_DATA_MODEL),
            members=None if members is None else tuple(members),
            public_fields=public_fields,
        )
        object_type = (struct_type_expr(index, decl.qual_name), decl.qual_name, decl.alignof_)
        for method in decl.methods:
            try:
                planned = plan_member(decl, method, object_type, self.table)
            except (BindingError, UnsupportedTypeError) as exc:
                self.skip("method", method_text(method), str(exc), location_of(method))
                continue
            if planned is None:
                continue
            call = self.call_row(planned.call, member_key(method), method_text(method))
            kind = planned.kind
            if kind is MemberKind.CONSTRUCTOR:
                row = MemberRow("constructor", "", call, planned.implicit)
            elif kind is MemberKind.CONVERSION:
                row = MemberRow("conversion", "", call, False)
            elif kind is MemberKind.OPERATOR:
                row = MemberRow("operator", planned.operator.__name__, call, False)
            elif kind is MemberKind.STATIC_METHOD:
                row = MemberRow("static_method", planned.name, call, False)
            else:
                row = MemberRow("method", planned.name, call, planned.mutates)
            binding.member_rows.append(row)
        return binding

    # -- functions ------------------------------------------------------------------------
    def plan_functions(self, functions: list[Function]) -> None:
        excluded = set(self.config.exclude_functions)
        skip_prefix = self.config.skip_prefix
        intents = self.config.function_argument_intents
        for func in functions:
            if func.name in excluded or (skip_prefix and func.name.startswith(skip_prefix)):
                logger.debug("excluded %s", func.qual_name)
                continue
            what, where = signature_text(func), location_of(func)
            try:
                planned = plan_function(func, intents.get(func.name), self.table)
            except (BindingError, UnsupportedTypeError) as exc:
                self.skip("function", what, str(exc), where)
                continue
            if planned.call.shim_name in self.shim_names:
                continue  # declared twice (e.g. in the .h and again in the .hpp)
            python_name, operator_name = "", ""
            if planned.operator is not None:
                operator_name = planned.operator.__name__
            else:
                python_name = remove_prefix(func.name, self.config.function_prefix_removal)
                if not self.claim(python_name, "function", what, where):
                    continue
            self.shim_names.add(planned.call.shim_name)
            cooperative = not operator_name and any(p.search(func.name) for p in self.cooperative)
            self.out.functions.append(
                FunctionBinding(
                    python_name,
                    func.qual_name,
                    operator_name,
                    self.call_row(planned.call, function_key(func), what),
                    planned.label,
                    cooperative,
                )
            )

    # -- typedefs -------------------------------------------------------------------------
    def plan_aliases(self) -> None:
        bound = {s.qual_name: s.python_name for s in self.out.structs}
        bound.update({e.qual_name: e.python_name for e in self.out.enums})
        for typedef in self.merged.decls.typedefs:
            target = bound.get(normalize_cxx_name(typedef.underlying_type.canonical_name))
            if target is None or typedef.name == target or typedef.name in self.names:
                continue
            self.names[typedef.name] = f"alias of {target}"
            self.out.aliases.append((typedef.name, target))

    def warn_unused_config(self) -> None:
        decls = self.merged.decls
        function_names = {f.name for f in decls.functions}
        struct_names = {s.name for s in decls.structs}
        for name in self.config.function_argument_intents:
            if name not in function_names:
                logger.warning(
                    "Function Argument Intents names %s, which %s does not declare; fix the "
                    "name in %s",
                    name,
                    self.header,
                    self.config.config_path,
                )
        for key, mapping in (
            ("Types", self.config.types),
            ("Data Models", self.config.data_models),
        ):
            for name in mapping:
                if name not in struct_names:
                    logger.warning(
                        "%s names struct %s, which %s does not declare; fix the name in %s",
                        key,
                        name,
                        self.header,
                        self.config.config_path,
                    )


def plan_module(merged: MergedDeclarations, config: StaticConfig) -> ModuleBindings:
    """Plan enums, structs, free functions and operators, then typedef aliases (the order of
    ``numbast.header.bind_declarations``: functions refer to the types bound before them)."""
    planner = _Planner(merged, config)
    decls = merged.decls
    planner.plan_enums(decls.enums)
    planner.plan_structs(decls.structs)
    planner.plan_functions(decls.functions)
    planner.plan_aliases()
    planner.warn_unused_config()
    return planner.out

"""Template arguments and substitution: what function and class templates share.

A template argument is either a type (a Numba type plus its C++ spelling) or a value (an int or
bool for a non-type parameter). ``Substitution`` turns the dependent types of a template
declaration (``T``, ``const T &``, ``T *``, ``Vec<T, N>``, ``T[N]``) into the concrete model
types of one instantiation, so the ordinary call planner can bind it. What substitution cannot
work out by itself (``typename traits<T>::type``) it reports with ``NeedsProbe``; the caller asks
clang (``numbast.templates.probe``) and substitutes again with the answer in ``known``.
"""

from __future__ import annotations

import ast
import enum
import operator
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from numba.cuda import types

from ast_canopy.model import TemplateParam, TemplateParamKind, Type, TypeKind
from ast_canopy.spelling import split_template_arguments
from numbast.dynamic.numba_types import cxx_spelling_of, enum_storage_type, registered_numba_type
from numbast.planning.type_rules import UnsupportedTypeError, normalize_cxx_name, strip_cv

POINTER_SIZE = 8  # nvptx64


@dataclass(frozen=True)
class TemplateArgument:
    """One template argument: ``numba_type`` for a type parameter, ``value`` for a non-type one.

    ``cxx`` is how the argument is written in C++ (``"float"``, ``"3"``, ``"true"``).
    """

    cxx: str
    numba_type: types.Type | None = None
    value: int | None = None

    @property
    def is_type(self) -> bool:
        return self.numba_type is not None

    @property
    def key(self) -> object:
        """Hashable identity: instantiations with equal keys are the same C++ entity."""
        return self.numba_type if self.is_type else ("value", self.value)

    def __str__(self) -> str:
        return str(self.numba_type) if self.is_type else self.cxx


def type_argument(numba_type: types.Type) -> TemplateArgument:
    numba_type = types.unliteral(numba_type)
    return TemplateArgument(cxx_spelling_of(numba_type), numba_type=numba_type)


def value_argument(value: int | bool) -> TemplateArgument:
    if isinstance(value, bool):
        return TemplateArgument("true" if value else "false", value=value)
    return TemplateArgument(str(int(value)), value=int(value))


def as_numba_type(value: object) -> types.Type:
    """A Numba type from what users write for a type argument: a Numba type, a bound struct
    (its Python stub), a bound IntEnum class, or a NumPy scalar type / dtype."""
    if isinstance(value, types.Type):
        return value
    bound = getattr(value, "_numba_type_", None)
    if isinstance(bound, types.Type):
        return bound
    if isinstance(value, type) and issubclass(value, enum.IntEnum):
        return types.IntEnumMember(value, types.int64)
    import numpy as np

    if isinstance(value, np.dtype) or (isinstance(value, type) and issubclass(value, np.generic)):
        from numba.cuda.np.numpy_support import from_dtype

        return from_dtype(np.dtype(value))
    raise TypeError(
        f"{value!r} is not a type: give a Numba type (types.float32), a bound struct or enum, "
        "or a NumPy scalar type"
    )


def explicit_argument(value: object, param: TemplateParam) -> TemplateArgument:
    """The argument a user wrote for ``param`` (``Vec[types.float32, 3]``, ``scale_by[3]``)."""
    if param.kind is TemplateParamKind.TYPE:
        try:
            return type_argument(as_numba_type(value))
        except (TypeError, UnsupportedTypeError) as exc:
            raise TypeError(f"template parameter {param.name}: {exc}") from None
    if param.kind is TemplateParamKind.NON_TYPE:
        if isinstance(value, enum.IntEnum):
            enum_type = cxx_spelling_of(types.IntEnumMember(type(value), types.int64))
            return TemplateArgument(f"static_cast<{enum_type}>({int(value)})", value=int(value))
        if isinstance(value, (bool, int)) or hasattr(value, "__index__"):
            is_bool = isinstance(value, bool) or type(value).__name__ == "bool_"
            return value_argument(bool(value) if is_bool else operator.index(value))
        raise TypeError(f"template parameter {param.name} takes a value (an int or bool)")
    raise TypeError(f"template parameter {param.name} is a template template parameter")


def unsupported_parameter(params: Sequence[TemplateParam]) -> str | None:
    """Why a template with these parameters cannot be bound, or None."""
    for param in params:
        if param.is_pack:
            return f"template parameter pack {param.name}... is not supported"
        if param.kind is TemplateParamKind.TEMPLATE:
            return f"template template parameter {param.name} is not supported"
    return None


# -- C++ text ---------------------------------------------------------------------------------


def split_template_id(spelling: str) -> tuple[str, tuple[str, ...]] | None:
    """``"ns::Vec<T, N>"`` -> ``("ns::Vec", ("T", "N"))``; None when it is no template-id."""
    spelling = spelling.strip()
    start = spelling.find("<")
    if start <= 0 or not spelling.endswith(">"):
        return None
    return spelling[:start].strip(), split_template_arguments(spelling)


def template_id(name: str, arguments: Sequence[TemplateArgument]) -> str:
    """``Vec<float, 3>``, spelled the way clang prints canonical types."""
    return f"{name}<{', '.join(a.cxx for a in arguments)}>"


_BINARY = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul}
_BINARY.update({ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod})
_INT_SUFFIX = re.compile(r"(?<=[0-9a-fA-F])[uUlL]+\b")


def integer_value(text: str) -> int | None:
    """The value of a C++ integer constant expression made of literals and + - * / % (after
    substitution, ``N + 1`` is ``3 + 1``); None for anything else."""
    text = _INT_SUFFIX.sub("", text.strip()).replace("true", "1").replace("false", "0")
    text = text.replace("/", "//")  # C++ integer division
    try:
        tree = ast.parse(text, mode="eval").body
    except SyntaxError:
        return None

    def evaluate(node: ast.AST) -> int:
        if isinstance(node, ast.Constant) and isinstance(node.value, int):
            return node.value
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            value = evaluate(node.operand)
            return -value if isinstance(node.op, ast.USub) else value
        if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
            return _BINARY[type(node.op)](evaluate(node.left), evaluate(node.right))
        raise ValueError(ast.dump(node))

    try:
        return evaluate(tree)
    except (ValueError, ZeroDivisionError):
        return None


# -- concrete model types ---------------------------------------------------------------------


def _vector_layout(numba_type: types.Type) -> tuple[int, int] | None:
    count = getattr(numba_type, "num_elements", None)
    base = getattr(numba_type, "base_type", None)
    if count is None or base is None:
        return None
    element = base.bitwidth // 8
    # CUDA aligns the 2- and 4-element vector types to their size (at most 16 bytes).
    align = min(element * count, 16) if count in (2, 4) else element
    return element * count, align


def cxx_type_for(numba_type: types.Type, spelling: str | None = None, const: bool = False) -> Type:
    """The concrete model type of a C++ type known by its Numba type (what ``T`` becomes)."""
    numba_type = types.unliteral(numba_type)
    spelling = spelling or cxx_spelling_of(numba_type)
    name = f"const {spelling}" if const else spelling
    pointee, kind, size, align = None, TypeKind.RECORD, None, None
    if numba_type == types.voidptr or isinstance(numba_type, types.CPointer):
        kind, size, align = TypeKind.POINTER, POINTER_SIZE, POINTER_SIZE
        if isinstance(numba_type, types.CPointer):
            pointee = cxx_type_for(numba_type.dtype)
        else:
            pointee = Type("void", "void", "void", TypeKind.BUILTIN)
        name = f"{pointee.name}{'' if pointee.name.endswith('*') else ' '}*"
        name += " const" if const else ""
    elif hasattr(numba_type, "cxx_qual_name"):  # a bound struct, whatever its parent type
        size, align = numba_type.sizeof_, numba_type.alignof_
    elif isinstance(numba_type, types.IntEnumMember):
        kind = TypeKind.ENUM
        probe = Type(spelling, spelling, spelling, TypeKind.ENUM)
        storage = enum_storage_type(probe)
        size = align = storage.bitwidth // 8 if storage is not None else None
    elif isinstance(numba_type, (types.Boolean, types.Integer, types.Float)):
        kind = TypeKind.BUILTIN
        size = align = 1 if isinstance(numba_type, types.Boolean) else numba_type.bitwidth // 8
    else:
        size, align = _vector_layout(numba_type) or (None, None)
    return Type(
        name=name,
        canonical_name=name,
        unqualified_non_ref_type_name=spelling,
        kind=kind,
        is_const=const,
        pointee=pointee,
        sizeof_=size,
        alignof_=align,
    )


def record_type(spelling: str, sizeof: int | None, alignof: int | None) -> Type:
    return Type(spelling, spelling, spelling, TypeKind.RECORD, sizeof_=sizeof, alignof_=alignof)


def _with_const(t: Type, const: bool) -> Type:
    if not const or t.is_const:
        return t
    return replace(
        t, name=f"const {t.name}", canonical_name=f"const {t.canonical_name}", is_const=True
    )


class NeedsProbe(UnsupportedTypeError):
    """Substitution needs clang to tell what the C++ type spelled ``text`` is."""

    def __init__(self, text: str) -> None:
        super().__init__(f"numbast cannot tell what C++ type {text!r} is without asking clang")
        self.text = text


_PARAM_INDEX = re.compile(r"\b(?:type|value)-parameter-0-(\d+)")
_IDENTIFIER = re.compile(r"(?<![\w:.])([A-Za-z_]\w*)")
_TYPENAME = re.compile(r"\btypename\s+")


def _squash(text: str) -> str:
    return re.sub(r"\s+", "", text)


def is_dependent(t: Type | None) -> bool:
    if t is None:
        return False
    if t.kind is TypeKind.DEPENDENT or "-parameter-0-" in t.canonical_name:
        return True
    if t.kind is TypeKind.ARRAY and any(extent < 0 for extent in t.array_extents):
        return True  # float data[N]
    if t.kind in (TypeKind.POINTER, TypeKind.ARRAY) or t.is_reference:
        return is_dependent(t.pointee)
    return False


class Substitution:
    """The template arguments of one instantiation, applied to types of the declaration.

    ``self_names`` are the spellings of the injected class name (``Vec``, ``Vec<T, N>``) inside a
    class template, which become ``self_type``; ``known`` holds types clang resolved, by the
    substituted spelling.
    """

    def __init__(
        self,
        params: Sequence[TemplateParam],
        arguments: Sequence[TemplateArgument],
        self_names: Sequence[str] = (),
        self_type: Type | None = None,
        known: Mapping[str, Type] | None = None,
    ) -> None:
        self.arguments = list(arguments)
        self.by_name = {p.name: a for p, a in zip(params, arguments, strict=False) if p.name}
        self.self_names = {_squash(n) for n in self_names}
        self.self_type = self_type
        self.known = dict(known or {})

    def text(self, spelling: str) -> str:
        """Template parameters in C++ text replaced by the arguments' spellings."""

        def by_index(match: re.Match) -> str:
            index = int(match[1])
            return self.arguments[index].cxx if index < len(self.arguments) else match[0]

        def by_name(match: re.Match) -> str:
            found = self.by_name.get(match[1])
            return found.cxx if found is not None else match[0]

        return _IDENTIFIER.sub(by_name, _PARAM_INDEX.sub(by_index, spelling))

    def type(self, t: Type) -> Type:
        """``t`` with every template parameter replaced; raises NeedsProbe or
        UnsupportedTypeError when that cannot be done without clang."""
        if not is_dependent(t):
            return t
        if t.kind is TypeKind.POINTER and t.pointee is not None:
            pointee = self.type(t.pointee)
            name = f"{pointee.name}{'' if pointee.name.endswith('*') else ' '}*"
            canonical = f"{pointee.canonical_name}{'' if pointee.name.endswith('*') else ' '}*"
            suffix = " const" if t.is_const else ""
            return Type(
                name + suffix,
                canonical + suffix,
                name,
                TypeKind.POINTER,
                t.is_const,
                pointee,
                sizeof_=POINTER_SIZE,
                alignof_=POINTER_SIZE,
            )
        if t.is_reference and t.pointee is not None:
            pointee = self.type(t.pointee)
            mark = "&" if t.is_lvalue_reference else "&&"
            return Type(
                f"{pointee.name} {mark}",
                f"{pointee.canonical_name} {mark}",
                pointee.unqualified_non_ref_type_name,
                t.kind,
                pointee=pointee,
                sizeof_=pointee.sizeof_,
                alignof_=pointee.alignof_,
            )
        if t.kind is TypeKind.ARRAY and t.pointee is not None:
            return self._array(t)
        return self._leaf(t)

    def _array(self, t: Type) -> Type:
        element = self.type(t.pointee)
        extents = []
        for text in re.findall(r"\[([^\[\]]*)\]", t.name):
            value = integer_value(self.text(text))
            if value is None:
                raise NeedsProbe(self.text(t.name))
            extents.append(value)
        if not extents:
            raise NeedsProbe(self.text(t.name))
        suffix = "".join(f"[{e}]" for e in extents)
        count = 1
        for extent in extents:
            count *= extent
        size = element.sizeof_ * count if element.sizeof_ is not None else None
        return Type(
            f"{element.name}{suffix}",
            f"{element.canonical_name}{suffix}",
            f"{element.name}{suffix}",
            TypeKind.ARRAY,
            pointee=element,
            array_extents=tuple(extents),
            sizeof_=size,
            alignof_=element.alignof_,
        )

    def _leaf(self, t: Type) -> Type:
        const = t.is_const or strip_cv(t.name) != t.name.strip()
        written = _TYPENAME.sub("", strip_cv(t.unqualified_non_ref_type_name or t.name))
        match = re.fullmatch(r"type-parameter-0-(\d+)", strip_cv(t.canonical_name))
        argument = self.by_name.get(written)
        if match is not None and int(match[1]) < len(self.arguments):
            argument = self.arguments[int(match[1])]
        if argument is not None:
            if not argument.is_type:
                raise UnsupportedTypeError(f"{t.name!r} names a non-type template parameter")
            return cxx_type_for(argument.numba_type, argument.cxx, const)
        if self.self_type is not None and _squash(written) in self.self_names:
            return _with_const(self.self_type, const)
        text = normalize_cxx_name(self.text(written))
        found = self.known.get(text)
        if found is not None:
            return _with_const(found, const)
        numba_type = registered_numba_type(text)
        if numba_type is not None:
            return cxx_type_for(numba_type, text, const)
        raise NeedsProbe(text)


__all__ = [
    "NeedsProbe",
    "Substitution",
    "TemplateArgument",
    "as_numba_type",
    "cxx_type_for",
    "explicit_argument",
    "integer_value",
    "is_dependent",
    "record_type",
    "split_template_id",
    "template_id",
    "type_argument",
    "unsupported_parameter",
    "value_argument",
]

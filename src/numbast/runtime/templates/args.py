"""Template arguments: what users write for them, deduction from Numba argument types, and
substitution into the C++ spellings of a template's rows.

A template argument is a type (a Numba type and its C++ spelling) or a value (an int or bool
for a non-type parameter). Rows spell a template's types in C++ with ``{i}`` standing for
argument i, and describe how each type is built from the arguments (a pattern, see
``numbast.core.rows``), which is what deduction reads: ``T``, ``const T &`` and ``T &&``
deduce T from the argument's type, ``T *`` from a pointer, ``const Vec<T, N> &`` from an
instance of a bound class template. Everything else is a non-deduced context, as in C++.
"""

from __future__ import annotations

import ast
import enum
import operator
import re
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

from numba.cuda import types
from numba.cuda.core.errors import TypingError

from ...core.cxx_names import BUILTIN_NUMBA_NAMES
from ...core.template_rows import TEMPLATE_PARAMETER, VALUE_PARAMETER, TemplateParamRow
from ..cxx_types import (
    NoCxxSpelling,
    canonical_spelling,
    cxx_spelling_of,
    numba_type_of,
)
from .storage import cxx_only_type


class TemplateArgument(NamedTuple):
    """``numba_type`` for a type parameter, ``value`` for a non-type one, ``template`` for a
    template template parameter (``cxx`` then names a class template); ``cxx`` is how the
    argument is written in C++ (``"float"``, ``"3"``, ``"true"``, ``"::ns::plus"``)."""

    cxx: str
    numba_type: types.Type | None = None
    value: int | None = None
    template: bool = False

    @property
    def is_type(self) -> bool:
        return self.numba_type is not None

    @property
    def key(self) -> object:
        """Hashable identity: instantiations with equal keys are the same C++ entity."""
        if self.is_type:
            return self.numba_type
        if self.template:
            return ("template", canonical_spelling(self.cxx))
        return ("value", self.value if self.value is not None else self.cxx)

    @property
    def needs_value(self) -> bool:
        """A value argument written as C++ text whose value the compiler has not told yet."""
        return not self.is_type and not self.template and self.value is None

    def __str__(self) -> str:
        return str(self.numba_type) if self.is_type else self.cxx


class DeductionError(TypingError):
    """The template arguments cannot be deduced from these argument types."""


def type_argument(numba_type: types.Type | None) -> TemplateArgument:
    """A type argument; None (what probes answer for ``void``) and ``types.void`` stand for
    C++'s ``void`` (``cuda::std::plus<void>``)."""
    if numba_type is None or numba_type == types.void:
        numba_type = cxx_only_type("void")
    numba_type = types.unliteral(numba_type)
    return TemplateArgument(cxx_spelling_of(numba_type), numba_type=numba_type)


def value_argument(value: int | bool, value_type: str = "") -> TemplateArgument:
    """A value argument; ``value_type`` is the parameter's C++ type: a bool parameter is
    spelled ``true`` / ``false``, an enum-typed one ``static_cast<::ns::Mode>(2)`` (C++ does not
    convert an int to an enum template argument)."""
    if isinstance(value, bool) or value_type == "bool":
        return TemplateArgument("true" if value else "false", value=bool(value))
    if _is_enum_spelling(value_type):
        cast = f"static_cast<::{value_type.removeprefix('::')}>({int(value)})"
        return TemplateArgument(cast, value=int(value))
    return TemplateArgument(str(int(value)), value=int(value))


_NAMED_TYPE = re.compile(r"(?:::)?[A-Za-z_]\w*(?:::[A-Za-z_]\w*)*")


def _is_enum_spelling(value_type: str) -> bool:
    """Whether a value parameter's C++ type is a named type other than a builtin: an enum
    (planning writes value types canonically; a dependent one stays unnamed)."""
    text = value_type.strip()
    return (
        bool(_NAMED_TYPE.fullmatch(text))
        and text not in BUILTIN_NUMBA_NAMES
        and "parameter-" not in text
    )


def normalized_arguments(
    params: Sequence[TemplateParamRow], arguments: Sequence[TemplateArgument]
) -> list[TemplateArgument]:
    """``arguments`` with every value whose value is known spelled for its parameter's type
    (``2`` for an enum parameter becomes ``static_cast<::ns::Mode>(2)``): one spelling per
    instance, whichever way its arguments were given."""
    result = list(arguments)
    for index, (argument, param) in enumerate(zip(arguments, params, strict=False)):
        if param.kind == VALUE_PARAMETER and not argument.is_type and argument.value is not None:
            result[index] = value_argument(argument.value, param.value_type)
    return result


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
        "a NumPy scalar type, or the C++ type's name as a string ('cub::NullType')"
    )


def template_argument(qual_name: str) -> TemplateArgument:
    """A template template parameter's argument: the class template ``qual_name``."""
    name = canonical_spelling(qual_name)
    return TemplateArgument(name if name.startswith("::") else f"::{name}", template=True)


def explicit_argument(value: object, param: TemplateParamRow) -> TemplateArgument:
    """The argument a user wrote on the host for ``param`` (``Vec[types.float32, 3]``)."""
    if param.kind == TEMPLATE_PARAMETER:
        # A bound class template (``M.plus``), or C++ text naming one (``"cuda::std::plus"``).
        named = getattr(value, "_numbast_class_template_", None)
        if named is None and isinstance(value, str) and value.strip():
            named = value.strip()
        if named is None:
            raise TypeError(
                f"template parameter {param.name} takes a class template: give a bound one "
                "(M.plus) or its C++ name as a string ('cuda::std::plus')"
            )
        return template_argument(named)
    if param.kind != VALUE_PARAMETER:
        if isinstance(value, str) and value.strip():
            # C++ text for a type nothing binds (``"cub::NullType"``); the compiler checks it.
            return type_argument(cxx_only_type(value))
        try:
            return type_argument(as_numba_type(value))
        except (TypeError, NoCxxSpelling) as exc:
            raise TypeError(f"template parameter {param.name}: {exc}") from None
    if isinstance(value, enum.IntEnum):
        enum_type = cxx_spelling_of(types.IntEnumMember(type(value), types.int64))
        return TemplateArgument(f"static_cast<{enum_type}>({int(value)})", value=int(value))
    if isinstance(value, (bool, int)) or hasattr(value, "__index__"):
        is_bool = isinstance(value, bool) or param.value_type == "bool"
        return value_argument(bool(value) if is_bool else operator.index(value), param.value_type)
    if isinstance(value, str) and value.strip():
        return constant_text(value)
    raise TypeError(
        f"template parameter {param.name} takes a value (an int, a bool, or C++ text such as "
        "'ns::Mode::FAST')"
    )


def constant_text(text: str) -> TemplateArgument:
    """A value argument written in C++ (``"cub::BlockScanAlgorithm::BLOCK_SCAN_RAKING"``), as
    NVIDIA's Numbast takes enumerators; the compiler tells its value when it is needed
    (``completion.resolve_values``)."""
    return TemplateArgument(text.strip())


def typed_argument(numba_type: types.Type, param: TemplateParamRow) -> TemplateArgument | None:
    """The argument a kernel gives for ``param`` as a keyword (``BlockScan(T=np.int32,
    BLOCK_DIM_X=128)``), from the Numba type of what it wrote; None when Numba has not typed it
    as a constant yet (a value parameter needs a literal)."""
    if param.kind == TEMPLATE_PARAMETER:
        raise DeductionError(
            f"template parameter {param.name} takes a class template: give it explicitly, "
            "f[M.plus](...)"
        )
    if param.kind == VALUE_PARAMETER:
        literal = getattr(numba_type, "literal_value", None)
        if isinstance(literal, (bool, int)):
            return value_argument(literal, param.value_type)
        if isinstance(literal, str) and literal.strip():
            return constant_text(literal)
        if isinstance(numba_type, types.EnumMember) and hasattr(numba_type, "instance_class"):
            return None
        return None
    if isinstance(numba_type, types.StringLiteral) and numba_type.literal_value.strip():
        return type_argument(cxx_only_type(numba_type.literal_value))
    if isinstance(numba_type, (types.NumberClass, types.TypeRef)):
        return type_argument(getattr(numba_type, "instance_type", None) or numba_type.dtype)
    if isinstance(numba_type, types.Function):
        bound = getattr(numba_type.typing_key, "_numba_type_", None)
        if isinstance(bound, types.Type):
            return type_argument(bound)
    if isinstance(numba_type, types.DType):
        return type_argument(numba_type.dtype)
    raise DeductionError(f"template parameter {param.name} takes a type, not a {numba_type}")


# -- deduction --------------------------------------------------------------------------------


class Deduction:
    """Deduced arguments by parameter index; the first ``explicit`` ones are given and are not
    deduced (their arguments convert instead, as in C++)."""

    def __init__(self, params: Sequence[TemplateParamRow], explicit: Sequence[TemplateArgument]):
        self.params = params
        self.explicit_count = len(explicit)
        self.arguments: dict[int, TemplateArgument] = dict(enumerate(explicit))

    def deduce(self, pattern: tuple, actual: types.Type) -> None:
        """Deduce from one parameter whose type has ``pattern``, given an argument of
        ``actual``."""
        actual = types.unliteral(actual)
        kind = pattern[0]
        if kind == "param":
            if isinstance(actual, types.Array):
                # An array decays to a pointer to its elements (an iterator: CUB's
                # LoadDirectBlocked(tid, InputIteratorT, items)), as C++ arrays do.
                actual = types.CPointer(actual.dtype)
            try:
                self.bind(pattern[1], type_argument(actual))
            except NoCxxSpelling as exc:
                raise DeductionError(str(exc)) from None
        elif kind == "pointer":
            if isinstance(actual, types.CPointer):
                self.deduce(pattern[1], actual.dtype)
        elif kind in ("template", "template_param"):
            _kind, qual_name, argument_patterns = pattern
            instance_of = getattr(actual, "template_qual_name", None)
            if kind == "template_param":  # ``Op<T>``: Op is the class template of the argument
                if instance_of is None:
                    raise DeductionError(f"{actual} is not an instance of a bound class template")
                self.bind(qual_name, template_argument(instance_of))
            elif instance_of is None or canonical_spelling(instance_of) != canonical_spelling(
                qual_name
            ):
                raise DeductionError(f"{actual} is not an instance of {qual_name}")
            for sub, argument in zip(argument_patterns, actual.template_arguments, strict=False):
                if sub[0] in ("param", "value"):
                    self.bind(sub[1], argument)
                elif sub[0] != "text" and argument.is_type:
                    self.deduce(sub, argument.numba_type)

    def bind(self, index: int, argument: TemplateArgument) -> None:
        if index < self.explicit_count or index >= len(self.params):
            return
        previous = self.arguments.get(index)
        if previous is not None and previous.key != argument.key:
            name = self.params[index].name
            raise DeductionError(
                f"Template parameter conflict for {name!r}: {name} deduced as both {previous} "
                f"and {argument}"
            )
        self.arguments[index] = argument


# -- C++ text ---------------------------------------------------------------------------------


def substitute(spelling: str, arguments: Sequence[TemplateArgument]) -> str:
    """A row's C++ spelling with argument i written where it says ``{i}``."""
    return spelling.format(*(a.cxx for a in arguments))


def template_id(qual_name: str, arguments: Sequence[TemplateArgument]) -> str:
    """``::ns::Vec<float, 3>``, written the way the shims and probes name it."""
    name = qual_name if qual_name.startswith("::") else f"::{qual_name}"
    closing = " >" if arguments and arguments[-1].cxx.endswith(">") else ">"
    return f"{name}<{', '.join(a.cxx for a in arguments)}{closing}"


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

    def evaluate(node: Any) -> int:
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


def spelled_argument(
    text: str,
    param: TemplateParamRow,
    enumerator_value: Callable[[str], int | None] | None = None,
    type_of: Callable[[str], types.Type | None] = numba_type_of,
) -> TemplateArgument:
    """A template argument as C++ spells it (``float``, ``3``, ``true``, an enumerator such as
    ``ns::Kind::floating`` when ``enumerator_value`` knows it: the bound enums' values); a type
    is what ``type_of`` names (a template context's, which prefers its bindings' own structs)."""
    if param.kind == TEMPLATE_PARAMETER:
        return template_argument(text)
    if param.kind == "value":
        value = integer_value(text)
        if value is None and enumerator_value is not None:
            value = enumerator_value(text)
        if value is None:
            raise TypeError(f"template argument {text!r} of {param.name} is not a number")
        return value_argument(value, param.value_type)
    numba_type = type_of(text)
    if numba_type is None:
        numba_type = _fixed_width_type(text)
    if numba_type is None:
        if canonical_spelling(text) != "void":
            raise TypeError(f"template argument {text} of {param.name} has no Numba type")
        return type_argument(None)  # ``plus<void>``
    return TemplateArgument(canonical_spelling(text), numba_type=numba_type)


# The C library's fixed-width typedefs a header writes template arguments with
# (``Width<int64_t>``): what each names differs between the parser (the host's <stdint.h>:
# int64_t is long) and NVRTC (libcu++'s: long long), its width does not.
_FIXED_WIDTH = re.compile(r"(?:::)?(?:(?:cuda::)?std::)?(u?)int(8|16|32|64)_t|(?:std::)?(size_t)")


def _fixed_width_type(text: str) -> types.Type | None:
    found = _FIXED_WIDTH.fullmatch(canonical_spelling(text))
    if found is None:
        return None
    return types.uint64 if found[3] else getattr(types, f"{found[1]}int{found[2]}")

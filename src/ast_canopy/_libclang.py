"""The one place that loads libclang: ``clang.cindex`` plus the few C functions it does not wrap.

libclang-ng 22 exports ``clang_getUnqualifiedType``, ``clang_getNonReferenceType`` and the
``clang_Cursor_Evaluate`` family, but ``clang.cindex`` has no Python wrappers for them. They are
registered here on cindex's own library handle; results go through cindex's own converters
(``Type.from_result``...), so the types they return keep their translation unit alive like every
other cindex object.
"""

from __future__ import annotations

import functools
from ctypes import (
    POINTER,
    byref,
    c_char_p,
    c_double,
    c_int,
    c_longlong,
    c_uint,
    c_ulonglong,
    c_void_p,
)
from dataclasses import dataclass

from clang import cindex as ci

# CXEvalResultKind (clang-c/Index.h).
_EVAL_INT = 1
_EVAL_FLOAT = 2
_EVAL_STR_LITERAL = 4

# CXTranslationUnit_VisitImplicitAttributes (not named in cindex): without it, the implicit
# __host__ __device__ of defaulted special members and constexpr functions is invisible.
VISIT_IMPLICIT_ATTRIBUTES = 0x2000


@functools.cache
def lib() -> object:
    """cindex's library handle, with the extra functions registered once."""
    handle = ci.conf.lib
    extra = [
        ("clang_getUnqualifiedType", [ci.Type], ci.Type),
        ("clang_getNonReferenceType", [ci.Type], ci.Type),
        ("clang_Cursor_Evaluate", [ci.Cursor], c_void_p),
        ("clang_EvalResult_getKind", [c_void_p], c_int),
        ("clang_EvalResult_isUnsignedInt", [c_void_p], c_uint),
        ("clang_EvalResult_getAsUnsigned", [c_void_p], c_ulonglong),
        ("clang_EvalResult_getAsLongLong", [c_void_p], c_longlong),
        ("clang_EvalResult_getAsDouble", [c_void_p], c_double),
        ("clang_EvalResult_getAsStr", [c_void_p], c_char_p),
        ("clang_EvalResult_dispose", [c_void_p], None),
        ("clang_getClangVersion", [], ci._CXString),
        ("clang_Cursor_isInlineNamespace", [ci.Cursor], c_uint),
        ("clang_Cursor_isMacroFunctionLike", [ci.Cursor], c_uint),
        ("clang_getNumArgTypes", [ci.Type], c_int),
        (
            "clang_getSpellingLocation",
            [
                ci.SourceLocation,
                POINTER(ci.c_object_p),
                POINTER(c_uint),
                POINTER(c_uint),
                POINTER(c_uint),
            ],
        ),
    ]
    for item in extra:
        ci.register_function(handle, item, False)
    _install_fast_null_check()
    _install_fast_enum_lookup()
    _unwrap_null_guards()
    return handle


def _unwrap_null_guards() -> None:
    """cindex wraps nearly every Cursor method and property in a guard that raises on the null
    cursor: a Python call and a check per property read, over a million of them in a big
    header. cindex never hands out null cursors (it maps them to None), and the walk only
    follows cursors cindex handed out, so the guards are taken off Cursor here."""

    def original(function: object) -> object | None:
        closure = getattr(function, "__closure__", None)
        if getattr(function, "__name__", "") != "inner" or not closure:
            return None
        wrapped = closure[0].cell_contents
        return wrapped if callable(wrapped) else None

    for name, attribute in list(vars(ci.Cursor).items()):
        if isinstance(attribute, property) and attribute.fget is not None:
            unwrapped = original(attribute.fget)
            if unwrapped is not None:
                setattr(ci.Cursor, name, property(unwrapped, attribute.fset, attribute.fdel))
        elif callable(attribute):
            unwrapped = original(attribute)
            if unwrapped is not None:
                setattr(ci.Cursor, name, unwrapped)


def _install_fast_enum_lookup() -> None:
    """cindex turns every kind id into its enum member with ``cls(id)``, which goes through
    ``Enum.__call__``; the walk asks for a few hundred thousand kinds in a big header. The
    member comes from the enum's own value map instead; anything the map lacks goes the old
    way (and raises as before)."""

    def from_id(cls: type, value: int) -> object:
        try:
            return cls._value2member_map_[value]
        except (KeyError, TypeError):
            return cls(value)

    ci.BaseEnumeration.from_id = classmethod(from_id)  # type: ignore[method-assign,assignment]


def _install_fast_null_check() -> None:
    """cindex guards every cursor method with ``is_null()``, which compares with the null
    cursor through a ctypes call into ``clang_equalCursors``: about a third of the walk's time.
    The null cursor is ``{CXCursor_InvalidFile, 0, {NULL, NULL, NULL}}``, and
    ``clang_equalCursors`` compares exactly kind and data, so the same answer is read from the
    struct's own fields in Python."""
    null = ci.conf.null_cursor
    null_kind = null._kind_id
    if any(null.data):  # not the null cursor clang has always had: keep cindex's check
        return

    def is_null(cursor: ci.Cursor) -> bool:
        return cursor._kind_id == null_kind and not any(cursor.data)

    ci.Cursor.is_null = is_null  # type: ignore[method-assign]


@functools.cache
def clang_version() -> str:
    """libclang's version string, e.g. ``clang version 22.1.4``; part of the prelude cache key."""
    return ci._CXString.from_result(lib().clang_getClangVersion())


@functools.cache
def index() -> ci.Index:
    """One Index per process. ``excludeDecls=True`` makes the top-level cursor walk skip the
    declarations that come from the precompiled prelude, which are thousands we never keep."""
    return ci.Index.create(excludeDecls=True)


def spelling_location(location: ci.SourceLocation) -> tuple[str, int] | None:
    """(file name, byte offset) where the token at ``location`` is spelled: inside a macro's
    definition when it comes from a macro expansion (cindex only gives expansion locations)."""
    file, line, column, offset = ci.c_object_p(), c_uint(), c_uint(), c_uint()
    lib().clang_getSpellingLocation(
        location, byref(file), byref(line), byref(column), byref(offset)
    )
    if not file:
        return None
    return ci.File(file).name, offset.value


# CXCursor_PreprocessingDirective, MacroExpansion and InclusionDirective (not MacroDefinition):
# with the detailed preprocessing record, tens of thousands of top-level cursors no walk uses.
DIRECTIVES_AND_EXPANSIONS = frozenset(
    {
        ci.CursorKind.PREPROCESSING_DIRECTIVE.value,
        ci.CursorKind.MACRO_INSTANTIATION.value,
        ci.CursorKind.INCLUSION_DIRECTIVE.value,
    }
)


def children(parent: ci.Cursor, skip_kinds: frozenset[int] = frozenset()) -> list[ci.Cursor]:
    """``parent.get_children()`` without the cursors whose kind id is in ``skip_kinds``, which
    are dropped in the visitor before any Python object is kept for them."""
    found: list[ci.Cursor] = []
    tu = parent._tu

    def visit(child: ci.Cursor, _parent: ci.Cursor, _data: object) -> int:
        if child._kind_id not in skip_kinds:
            child._tu = tu
            found.append(child)
        return 1  # CXChildVisit_Continue

    lib().clang_visitChildren(parent, ci.cursor_visit_callback(visit), None)
    return found


def is_inline_namespace(cursor: ci.Cursor) -> bool:
    """True for ``inline namespace v2 {...}``: a scope that C++ (and clang's type spellings)
    leave out of qualified names."""
    return bool(lib().clang_Cursor_isInlineNamespace(cursor))


def is_function_like_macro(cursor: ci.Cursor) -> bool:
    """True for ``#define F(x) ...``; False for an object-like macro (``#define PI 3.14f``)."""
    return bool(lib().clang_Cursor_isMacroFunctionLike(cursor))


def argument_count(function_type: ci.Type) -> int:
    """Parameters of a function type (-1 for one without a prototype); cindex's
    ``argument_types()`` builds a class per call to answer the same."""
    return lib().clang_getNumArgTypes(function_type)


def unqualified(t: ci.Type) -> ci.Type:
    return ci.Type.from_result(lib().clang_getUnqualifiedType(t), t)


def non_reference(t: ci.Type) -> ci.Type:
    return ci.Type.from_result(lib().clang_getNonReferenceType(t), t)


@dataclass(frozen=True)
class Evaluated:
    """What clang's constant evaluator made of an initializer."""

    kind: str  # "int", "float" or "str"
    value: int | float | str


def evaluate(cursor: ci.Cursor) -> Evaluated | None:
    """Evaluate a variable's initializer (or an expression) with clang; None if not constant."""
    handle = lib()
    result = handle.clang_Cursor_Evaluate(cursor)
    if not result:
        return None
    try:
        kind = handle.clang_EvalResult_getKind(result)
        if kind == _EVAL_INT:
            if handle.clang_EvalResult_isUnsignedInt(result):
                return Evaluated("int", int(handle.clang_EvalResult_getAsUnsigned(result)))
            return Evaluated("int", int(handle.clang_EvalResult_getAsLongLong(result)))
        if kind == _EVAL_FLOAT:
            return Evaluated("float", float(handle.clang_EvalResult_getAsDouble(result)))
        if kind == _EVAL_STR_LITERAL:
            raw = handle.clang_EvalResult_getAsStr(result)
            return Evaluated("str", raw.decode("utf-8", errors="replace") if raw else "")
        return None
    finally:
        handle.clang_EvalResult_dispose(result)

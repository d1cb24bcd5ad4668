"""Typing and lowering registration shared by every kind of binding: overload sets, the Python
stubs kernels call, and which Numba types count as bound C++ types."""

from __future__ import annotations

import linecache
from collections.abc import Callable, Hashable, Sequence
from functools import partial
from types import FunctionType
from typing import Any

from numba.cuda import types
from numba.cuda.typing.templates import ConcreteTemplate, Signature

from .deferred import after_refresh
from .state import LOCK, shared_table


class Registries:
    """Where bindings register: numba-cuda's own registries (by default, imported when first
    used: numba-cuda's lowering module costs ~20 ms to import), or a module's separate ones."""

    def __init__(self, typing: Any = None, lowering: Any = None) -> None:
        self._typing = typing
        self._lowering = lowering

    @property
    def typing(self) -> Any:
        if self._typing is None:
            from numba.cuda.cudadecl import registry

            self._typing = registry
        return self._typing

    @property
    def lowering(self) -> Any:
        if self._lowering is None:
            from numba.cuda.cudaimpl import registry

            self._lowering = registry
        return self._lowering


DEFAULT_REGISTRIES = Registries()

# (id(typing registry), key) -> the ConcreteTemplate class holding every overload of key
_OVERLOADS: dict[tuple[int, Hashable], type[ConcreteTemplate]] = shared_table("overloads", dict)
# The operators and Python builtins (not our stubs) that have overload sets: few, and looked at
# after every typing-context refresh (operator_overloads_first).
# key -> the function type last found with our overloads first (None: not yet). Numba replaces a
# global's type whenever its templates change (types are interned: one object per tuple of
# templates), so while the same object is registered its order holds, and the check after a
# refresh (~160 of them, mostly nested, in a process's first compile) is a lookup per key.
_BUILTIN_KEYS: dict[Hashable, Any] = shared_table("builtin_overload_keys", dict)


def is_bound_type(numba_type: types.Type) -> bool:
    """True for the Numba types of C++ classes and enums: bound structs and enums, and the CUDA
    vector types (``float2`` is a C++ struct: ``operator+(const float2 &, const float2 &)``
    applies to it as to any class)."""
    if getattr(numba_type, "cxx_qual_name", None) is not None:
        return True
    if _is_vector_type(numba_type):
        return True
    return isinstance(numba_type, types.IntEnumMember) and hasattr(
        numba_type.instance_class, "_cxx_name_"
    )


def _is_vector_type(numba_type: types.Type) -> bool:
    from numba.cuda.vector_types import VectorType

    return isinstance(numba_type, VectorType)


class _OverloadsOfBuiltin(ConcreteTemplate):
    """Overloads added to a Python operator or builtin (``operator.lt``, ``float``...).

    As in C++, an overloaded operator is considered only when an operand has a bound class or
    enum type: otherwise implicit converting constructors would capture ``i < n`` on plain
    integers (converting both to, say, ``__half``). And as C++'s argument-dependent lookup
    finds an operator only in the namespaces of its operands' types, an overload is considered
    only when a bound operand is its parameter's type or of its parameters' namespace: an enum
    of one library compared with another never converts to a class of another library
    (``Mode == Mode`` is not ``cutlass::complex<float>::operator==`` through its converting
    constructor).
    """

    # Marks these templates for every runtime copy (see operator_overloads_first).
    _numbast_builtin_overloads_ = True

    def apply(self, args, kws):
        if not any(is_bound_type(a) for a in args):
            return None
        plain = [types.unliteral(a) for a in args]
        cases = [case for case in self.cases if _found_by_operands(case.args, plain)]
        return self._select(cases, args, kws) if cases else None


def _found_by_operands(parameters: tuple, operands: list) -> bool:
    namespaces = {_namespace_of(p) for p in parameters if is_bound_type(p)}
    return any(
        is_bound_type(operand)
        and (
            operand == parameter
            # an enum that would convert (a user-defined conversion) loses to C++'s built-in
            # operator, which only promotes it: Mode == Mode is never __half's operator==
            or (
                not isinstance(operand, types.IntEnumMember)
                and _namespace_of(operand) in namespaces
            )
        )
        for operand, parameter in zip(operands, parameters)  # noqa: B905 -- varargs differ
    )


def _namespace_of(numba_type: types.Type) -> str | None:
    """The C++ namespace of a bound type (``cutlass`` for ``cutlass::complex<float>``)."""
    name = getattr(numba_type, "cxx_qual_name", None)
    if name is None and isinstance(numba_type, types.IntEnumMember):
        name = getattr(numba_type.instance_class, "_cxx_name_", None)
    if name is None:
        return None  # a CUDA vector type: the global namespace, matched by its own type
    return name.split("<", 1)[0].rpartition("::")[0]


def operator_overloads_first(typing_context: Any) -> None:
    """Put our overload sets of operators and builtins before Numba's own for the same key.

    Numba tries a function type's templates in order and takes the first that applies, and its
    integer ``|`` applies to an ``enum class`` through a conversion. C++ picks the user-defined
    ``operator|(Flags, Flags)``, an exact match, so ours must come first; it does in a process
    that registered before Numba first typed ``|``, and is appended after Numba's otherwise
    (``Function.augment``). Ours apply only when an operand is a bound type, so putting them
    first changes nothing for plain numbers. Runs after every refresh of the typing context."""
    for key, in_order in list(_BUILTIN_KEYS.items()):
        # numba-cuda has no public way to reorder a global's templates: these are the calls its
        # own registry loader makes to replace a global's type (_load_registry).
        existing = typing_context._lookup_global(key)
        if existing is in_order or not isinstance(existing, types.Function):
            continue
        templates = existing.templates
        ours = [t for t in templates if getattr(t, "_numbast_builtin_overloads_", False)]
        if ours and templates[: len(ours)] != tuple(ours):
            rest = [t for t in templates if not getattr(t, "_numbast_builtin_overloads_", False)]
            typing_context._remove_global(key)
            typing_context.insert_global(key, existing := types.Function(tuple(ours + rest)))
        _BUILTIN_KEYS[key] = existing


class _OverloadsOfStub(ConcreteTemplate):
    """Plain overloads of a bound function; when the name also has function templates, C++'s
    order: an exact plain match first, then a template that deduces from the arguments (its
    own typing template, registered after this one), and plain overloads by conversion only
    when no template applies (``pick(int)`` beside ``template <class T> T pick(T)``: a float
    argument calls the template, not pick(int) through a conversion)."""

    def apply(self, args, kws):
        if not self.cases and hasattr(self.key, "_cxx_name_"):
            from numba.cuda.core.errors import TypingError

            raise TypingError(
                f"{self.key._cxx_name_} has no constructor that device code can call: it "
                "declares none that is public, __device__ and bindable (BindingSkippedWarning "
                "and numbast-cache coverage list those skipped); give it one, or make it with a "
                "static or free __device__ function that returns it"
            )
        deducers = getattr(self.key, "_numbast_template_deducers_", ())
        if deducers and not kws:
            exact = tuple(types.unliteral(a) for a in args)
            cases = [case for case in self.cases if case.args == exact]
            if cases:
                return cases[0]
            if any(deduces(exact) for deduces in deducers):
                return None
        return apply_with_arrays_decayed(super().apply, args, kws)


def apply_with_arrays_decayed(apply: Callable, args: tuple, kws: dict) -> Any:
    """``apply(args, kws)``; when that finds no overload, again with the arrays among ``args``
    passed as pointers to their elements (as C++ passes arrays to pointer parameters)."""
    sig = apply(args, kws)
    if sig is None and any(isinstance(a, types.Array) for a in args):
        try:
            from .array_decay import decayed_arguments, install_array_decay
        except ImportError:  # a standalone copy whose rows take no pointer: nothing to decay to
            return None
        install_array_decay()
        sig = apply(decayed_arguments(tuple(args)), kws)
    return sig


def add_overload(
    key: Hashable,
    sig: Signature,
    lowering: Callable,
    label: str,
    registries: Registries = DEFAULT_REGISTRIES,
) -> bool:
    """Make ``key(*sig.args)`` type as ``sig`` and lower with ``lowering``.

    All overloads of one key share one ConcreteTemplate, so Numba picks among them by overload
    resolution (exact matches first) rather than by registration order. Returns False when the
    exact signature was bound already (the first binding stays). For keys that are not our own
    stubs (operators, Python builtins) an overload applies only to bound-type operands.
    """
    with LOCK:
        template = overload_template(key, label, registries)
        if any(case.args == sig.args for case in template.cases):
            return False
        template.cases.append(sig)
    registries.lowering.lower(key, *sig.args)(lowering)
    return True


def overload_template(
    key: Hashable, label: str, registries: Registries = DEFAULT_REGISTRIES
) -> type[ConcreteTemplate]:
    """The overload set of ``key`` (created empty and registered the first time)."""
    with LOCK:
        template = _OVERLOADS.get((id(registries.typing), key))
        if template is None:
            base = _OverloadsOfStub if is_binding_stub(key) else _OverloadsOfBuiltin
            template = type(f"numbast_{label}_overloads", (base,), {"key": key, "cases": []})
            _OVERLOADS[(id(registries.typing), key)] = template
            registries.typing.register_global(key, types.Function(template))
            if base is _OverloadsOfBuiltin:
                _BUILTIN_KEYS[key] = None
                after_refresh(operator_overloads_first)
        return template


def is_binding_stub(key: Hashable) -> bool:
    # An attribute, not isinstance: every runtime copy has its own stub classes.
    return getattr(key, "_numbast_stub_", False)


# -- function stubs ---------------------------------------------------------------------------
#
# A stub is a plain function that raises when called outside a kernel. Its code object is a copy
# of one template's, renamed and pointed at the pseudo source file of its origin (one per module
# or header): a def per stub whose docstring lists the C++ declarations bound to it, made when
# first read (linecache's lazy form, set again whenever a stub or declaration is added), each
# stub's code pointed at its line then. That is what help(stub) and inspect.getsource(stub) show.
#
# A header's thousands of stubs stay one object each for the cyclic GC, which traverses every
# tracked object in each of the full collections Numba's compiles run (issue 22): no closure
# (its message is in its own globals), no linecache entry of its own, and a __dict__ and globals
# of atoms and tuples of strings only, which the GC does not track.


def _stub_template(*args: Any, **kwargs: Any) -> Any:
    raise TypeError(message)  # noqa: F821 -- each stub's globals hold its message


_STUB_CODE = _stub_template.__code__
_STUB_FILES: dict[str, list[Callable[..., Any]]] = {}  # pseudo file name -> its stubs, in order


def make_function_stub(qual_name: str, python_name: str, origin: str = "") -> Callable[..., Any]:
    """The Python object kernels call for a bound C++ function. ``origin`` (a module name or a
    header) names the stub's pseudo source file; C++ declarations are added with
    :func:`add_declaration`."""
    message = (
        f"{qual_name} is a CUDA device function bound from C++: call it inside a "
        "@cuda.jit kernel or device function"
    )
    filename = f"numbast-binding:{origin or 'dynamic'}"
    replaced = {"co_filename": filename, "co_firstlineno": 1, "co_name": python_name}
    if hasattr(_STUB_CODE, "co_qualname"):  # Python >= 3.11
        replaced["co_qualname"] = python_name
    stub = FunctionType(_STUB_CODE.replace(**replaced), {"message": message}, python_name)
    stub.__qualname__ = python_name
    stub.__module__ = origin or None
    stub._numbast_stub_ = True
    # A tuple of strings (replaced, not appended to): the cyclic GC stops tracking it.
    stub._numbast_declarations_ = ()
    stub.__doc__ = _stub_doc(qual_name, [])
    stub._numbast_qual_name_ = qual_name
    _STUB_FILES.setdefault(filename, []).append(stub)  # atomic under the GIL
    linecache.cache[filename] = (partial(_file_source, filename),)
    return stub


def _file_source(filename: str) -> str:
    lines: list[str] = []
    for stub in list(_STUB_FILES.get(filename, ())):  # a blank line between defs
        stub.__code__ = stub.__code__.replace(co_firstlineno=len(lines) + 1)
        lines += [*_stub_source(stub).splitlines(True), "\n"]
    return "".join(lines)


def _stub_source(stub: Callable[..., Any]) -> str:
    doc = stub.__doc__.replace('"""', r"\"\"\"")
    body = "\n".join(f"    {line}".rstrip() for line in doc.splitlines())
    return f'def {stub.__name__}(*args):\n    """\n{body}\n    """\n'


def add_declaration(stub: Callable[..., Any], declaration: str) -> None:
    """Record one more C++ declaration (with its location) bound to ``stub``."""
    declarations = getattr(stub, "_numbast_declarations_", None)
    if declarations is not None and declaration and declaration not in declarations:
        if isinstance(declarations, list):  # a function template's stub keeps a list
            declarations.append(declaration)
        else:
            stub._numbast_declarations_ = declarations = (*declarations, declaration)
        stub.__doc__ = _stub_doc(stub._numbast_qual_name_, declarations)
        if isinstance(stub, FunctionType):  # its pseudo file made again when next read
            linecache.cache[stub.__code__.co_filename] = (
                partial(_file_source, stub.__code__.co_filename),
            )


def _stub_doc(qual_name: str, declarations: Sequence[str]) -> str:
    lines = [
        f"CUDA device function {qual_name}, bound from C++: call it inside a @cuda.jit kernel."
    ]
    if declarations:
        lines += ["", "C++ declarations:", *(f"    {d}" for d in declarations)]
    return "\n".join(lines)


class FunctionStubs:
    """Finds or makes the stub of each bound function: one stub per key, where the key is the
    Python name (a generated module: one attribute per name) or the C++ qualified name (dynamic
    binding, process-wide, so binding a function twice returns the same stub)."""

    def __init__(self, origin: str = "", by_qual_name: bool = False) -> None:
        self.origin = origin
        self.by_qual_name = by_qual_name
        self.stubs: dict[str, Any] = {}

    def adopt(self, qual_name: str, stub: Any) -> Any:
        """Make ``stub`` the one for ``qual_name`` unless there is one; returns the one."""
        return self.adopt_for(qual_name, qual_name, stub)

    def adopt_for(self, python_name: str, qual_name: str, stub: Any) -> Any:
        """Make ``stub`` the one for this function unless there is one; returns the one."""
        key = qual_name if self.by_qual_name else python_name
        with LOCK:
            return self.stubs.setdefault(key, stub)

    def stub(self, python_name: str, qual_name: str) -> Any:
        key = qual_name if self.by_qual_name else python_name
        with LOCK:
            stub = self.stubs.get(key)
            if stub is None:
                stub = self.stubs[key] = make_function_stub(qual_name, python_name, self.origin)
            return stub

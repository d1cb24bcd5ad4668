"""What instantiating templates at run time shares: the bindings' template context, the store
of instances made, evaluating a row's type patterns, and completing template arguments
(defaults, values only the compiler knows). An instance's calls are ``template_calls``'s.

Rows carry templates as data (``numbast.core.rows``). An instance is made the first time a
kernel (or an index on the host) needs it: deduction and substitution happen in Python; what
only the compiler knows (a layout, a ``decltype``, a default such as ``sizeof(T)``) is asked of
NVRTC with a probe (``template_probe``). The answers are recorded as plain data in an
``InstanceStore``: in memory for dynamic bindings and standalone modules, beside the cache entry
for modules of the import system, so a later process makes the same instance with no compiler.
Instances then bind through the one apply path like any declaration.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol

from numba.cuda import types

from ...core.template_rows import TemplateTypeRow
from ..cxx_types import (
    canonical_spelling,
    cxx_spelling_of,
    numba_type_of,
    register_spelling,
)
from ..overloads import DEFAULT_REGISTRIES, Registries
from ..shim_library import ShimLibrary
from ..state import LOCK, shared_table
from .args import (
    TemplateArgument,
    integer_value,
    substitute,
    type_argument,
)
from .calls import declared_values, needs_compiler_for_result
from .probe import (
    NO_COUNTERPART,
    KnownTemplate,
    Probe,
    ProbeAnswer,
    TemplateInstantiationError,
)
from .storage import CxxOnlyType, CxxStorageType, bare_spelling, storage_type

logger = logging.getLogger(__name__)

# Class template binders of every set of bindings, by qualified name: a pattern naming a class
# template of another header (or another module) finds it here.
_CLASS_TEMPLATES: dict[str, Any] = shared_table("class_templates", dict)

NEEDS_COMPILER = None  # what evaluating a pattern gives when only the compiler can tell


class InstanceStore(Protocol):
    """Where the answers about instances (plain JSON-able data) are kept, by key."""

    def get(self, key: str) -> dict | None: ...

    def put(self, key: str, record: dict) -> None: ...


class MemoryInstances:
    """The instances of this process only."""

    def __init__(self) -> None:
        self._records: dict[str, dict] = {}

    def get(self, key: str) -> dict | None:
        return self._records.get(key)

    def put(self, key: str, record: dict) -> None:
        self._records[key] = record


class TemplateContext:
    """What instantiating one set of bindings' templates needs: their shim library (its
    preamble includes the header), where they register, the arch to ask the compiler for, and
    the store of instances."""

    def __init__(
        self,
        origin: str,
        library: ShimLibrary,
        registries: Registries = DEFAULT_REGISTRIES,
        arch: str | None = None,
        store: InstanceStore | None = None,
        defines: Sequence[str] = (),
        own_types: Sequence[types.Type] = (),
    ) -> None:
        """``own_types``: the structs of the bindings (their C++ names are the spellings they
        answer to in this context first)."""
        self.origin = origin
        self.defines = tuple(defines)
        self.library = library
        self.registries = registries
        self._arch = arch
        self.store: InstanceStore = store if store is not None else MemoryInstances()
        self.class_templates: dict[str, Any] = {}
        # Another module may bind the same header (its own cutlass::half_t, a distinct Numba
        # type) and have its spelling in the process-wide table first: these bindings' templates
        # must still name their own structs (platform::numeric_limits<cutlass::half_t> is
        # specialized on this module's half_t, which kernels index it with).
        self._own_types: dict[str, types.Type] = {}
        for numba_type in own_types:
            spelling = getattr(numba_type, "cxx_qual_name", None)
            if spelling is not None:
                self._own_types.setdefault(canonical_spelling(spelling), numba_type)

    def type_of(self, spelling: str) -> types.Type | None:
        """The Numba type a C++ spelling names for these bindings: one of their own structs,
        else what the process knows it as (``numba_type_of``), else None."""
        text = canonical_spelling(spelling)
        own = self._own_types.get(text)
        if own is None and text.endswith("*"):
            inner = self._own_types.get(text[:-1].strip())
            own = None if inner is None else types.CPointer(inner)
        return own if own is not None else numba_type_of(text)

    # -- where -----------------------------------------------------------------------------
    @property
    def arch(self) -> str:
        """The arch to compile probes and shims for: the one given, else the current GPU's."""
        if self._arch is None:
            try:
                from numba import cuda

                major, minor = cuda.get_current_device().compute_capability
            except Exception as exc:  # no driver / no device: numba raises several types
                raise TemplateInstantiationError(
                    f"{self.origin}: templates are instantiated for a GPU arch, and there is no "
                    f"GPU to ask ({exc}); give the arch when binding (arch=...)"
                ) from None
            self._arch = f"sm_{major}{minor}"
        return self._arch

    # -- class templates -----------------------------------------------------------------
    def add_class_template(self, binder: Any) -> None:
        key = canonical_spelling(binder.row.qual_name)
        self.class_templates[key] = binder
        with LOCK:
            _CLASS_TEMPLATES[key] = binder

    def class_template(self, qual_name: str) -> Any | None:
        key = canonical_spelling(qual_name)
        return self.class_templates.get(key) or _CLASS_TEMPLATES.get(key)

    def known_templates(self) -> list[KnownTemplate]:
        """The class templates the preamble declares (this context's own)."""
        return [
            KnownTemplate(b.row.qual_name, b.row.params, b.numba_type_of_instance)
            for b in self.class_templates.values()
        ]

    # -- patterns ------------------------------------------------------------------------
    def evaluate(self, pattern: tuple, arguments: Sequence[TemplateArgument]) -> Any:
        """The Numba type ``pattern`` builds from ``arguments``, or NEEDS_COMPILER."""
        kind = pattern[0]
        if kind == "param":
            index = pattern[1]
            if index < len(arguments) and arguments[index].is_type:
                return arguments[index].numba_type
            return NEEDS_COMPILER
        if kind == "type":
            found = self.type_of(pattern[1])
            return NEEDS_COMPILER if found is None else found
        if kind == "array":
            element = self.evaluate(pattern[1], arguments)
            count = integer_value(substitute(pattern[2], arguments))
            if element is NEEDS_COMPILER or count is None:
                return NEEDS_COMPILER
            return types.UniTuple(element, count)
        if kind == "pointer":
            inner = self.evaluate(pattern[1], arguments)
            return NEEDS_COMPILER if inner is NEEDS_COMPILER else types.CPointer(inner)
        if kind in ("template", "template_param"):
            named = pattern[1]
            if kind == "template_param":  # ``Op<T>``: the class template given for Op
                if named >= len(arguments) or not arguments[named].template:
                    return NEEDS_COMPILER
                named = arguments[named].cxx
            binder = self.class_template(named)
            if binder is None:
                return NEEDS_COMPILER
            given = []
            for sub in pattern[2]:
                argument = self._template_argument(sub, arguments)
                if argument is None:
                    return NEEDS_COMPILER
                given.append(argument)
            return binder.instance_type(binder.complete(dict(enumerate(given))))
        return NEEDS_COMPILER

    def _template_argument(
        self, sub: tuple, arguments: Sequence[TemplateArgument]
    ) -> TemplateArgument | None:
        if sub[0] in ("param", "value"):
            return arguments[sub[1]] if sub[1] < len(arguments) else None
        if sub[0] == "text":
            text = substitute(sub[1], arguments)
            value = integer_value(text)
            if value is not None:
                return TemplateArgument(str(value), value=value)
            found = self.type_of(text)
            return None if found is None else TemplateArgument(text, numba_type=found)
        inner = self.evaluate(sub, arguments)
        return None if inner is NEEDS_COMPILER else type_argument(inner)

    # -- the compiler --------------------------------------------------------------------
    def probe(self, probe: Probe, what: str) -> Any:
        preamble = "\n".join(
            [*(f"#define {d.partition('=')[0]} {d.partition('=')[2] or '1'}" for d in self.defines),
             self.library.preamble]
        )  # fmt: skip
        declared = list(self.library.bound_types)
        options = self.library.unit_options(self.arch, lto=False)
        return probe.run(preamble, self.arch, what, self.known_templates(), declared, options)

    def recorded(self, key_parts: Sequence[Any], make: Callable[[], dict]) -> dict:
        """The store's record for ``key_parts``, made (and stored) when there is none."""
        key = hashlib.sha256(json.dumps(list(key_parts), default=str).encode()).hexdigest()
        record = self.store.get(key)
        if record is None:
            record = make()
            self.store.put(key, record)
        return record

    def callable_types(
        self,
        params: Sequence[tuple],
        result: TemplateTypeRow | None,
        arguments: Sequence[TemplateArgument],
        call_of: Callable[[str], str],
        what: str,
        record_key: Callable[[dict[str, str]], list],
    ) -> tuple[list[Any], Any]:
        """The parameter types and the result type (None: void) of one instance of a callable
        template, ``params`` (name, type row, default) and ``result`` substituted with
        ``arguments``: what substitution tells, and the rest asked of the compiler once
        (recorded under ``record_key(unknown slots)``); a result only ``decltype`` tells is
        that of ``call_of(arguments' declvals)``, the instance's call in C++."""
        parameter_types = [self.evaluate(t.pattern, arguments) for _n, t, _d in params]
        spelled = [substitute(t.spelling, arguments) for _n, t, _d in params]
        unknown = {
            f"p{i}": spelled[i] for i, t in enumerate(parameter_types) if t is NEEDS_COMPILER
        }
        result_type: Any = None
        if result is not None:
            result_type = NEEDS_COMPILER
            if not needs_compiler_for_result(result):
                result_type = self.evaluate(result.pattern, arguments)
            if result_type is NEEDS_COMPILER:
                unknown["r"] = f"decltype({call_of(declared_values(spelled))})"
        if unknown:

            def ask() -> dict:
                answer = self.probe(Probe(types_=unknown, optional=unknown), what)
                return self.described(answer, unknown)

            for slot, description in self.recorded(record_key(unknown), ask).items():
                if slot == "r":
                    result_type = self.undescribe(description)
                else:
                    parameter_types[int(slot[1:])] = self.undescribe(description)
        return parameter_types, result_type

    def described(self, answer: ProbeAnswer, asked: Mapping[str, str]) -> dict:
        """A probe's type answers as record data; a type with no Numba counterpart but a size
        becomes opaque storage of that size (``storage``)."""
        described = {}
        for slot, found in answer.types.items():
            if found is NO_COUNTERPART and slot in answer.sizes:
                size, align = answer.sizes[slot]
                described[slot] = ["storage", bare_spelling(asked[slot]), size, align]
            else:
                described[slot] = self.describe(found)
        return described

    # -- types in records -----------------------------------------------------------------
    def describe(self, numba_type: types.Type | None) -> Any:
        """A Numba type as record data (JSON), which :meth:`undescribe` turns back."""
        if numba_type is None:
            return ["void"]
        if numba_type is NO_COUNTERPART:
            return ["unknown"]
        if isinstance(numba_type, CxxOnlyType):
            return ["cxx", numba_type.cxx_spelling]
        if isinstance(numba_type, CxxStorageType):
            return ["storage", numba_type.cxx_qual_name, numba_type.sizeof_, numba_type.alignof_]
        if isinstance(numba_type, types.CPointer):
            return ["pointer", self.describe(numba_type.dtype)]
        template = getattr(numba_type, "template_qual_name", None)
        if template is not None:
            arguments = [
                self.describe(a.numba_type) if a.is_type else ["value", a.value]
                for a in numba_type.template_arguments
            ]
            return ["instance", template, arguments]
        return ["spelled", cxx_spelling_of(numba_type)]

    def undescribe(self, description: Sequence) -> types.Type | None:
        kind = description[0]
        if kind == "void":
            return None
        if kind == "unknown":
            return NO_COUNTERPART
        if kind == "cxx":
            return CxxOnlyType(description[1])
        if kind == "storage":
            return storage_type(*description[1:])
        if kind == "pointer":
            return types.CPointer(self.undescribe(description[1]))
        if kind == "instance":
            binder = self.class_template(description[1])
            if binder is None:
                raise TemplateInstantiationError(f"class template {description[1]} is not bound")
            arguments = [
                TemplateArgument(str(d[1]), value=d[1])
                if d[0] == "value"
                else type_argument(self.undescribe(d))
                for d in description[2]
            ]
            return binder.instance_type(arguments)
        found = self.type_of(description[1]) or self._bound_types().get(
            canonical_spelling(description[1])
        )
        if found is None:
            raise TemplateInstantiationError(f"C++ type {description[1]} is not bound")
        return found

    # -- what the bindings bound -----------------------------------------------------------
    def _bound_types(self) -> dict[str, types.Type]:
        """The library's bound structs by C++ spelling (records name them so)."""
        return {
            canonical_spelling(t.cxx_qual_name): t
            for t in list(self.library.bound_types)
            if getattr(t, "cxx_qual_name", None) is not None
        }

    def enumerator_value(self, text: str) -> int | None:
        """The value of an enumerator of an enum these bindings bound, written as qualified
        C++ text (``cub::BLOCK_SCAN_RAKING``, ``cub::BlockScanAlgorithm::BLOCK_SCAN_RAKING``:
        an unscoped enum's enumerators are also in the enclosing scope), or None."""
        wanted = canonical_spelling(text)
        scope, _, name = wanted.rpartition("::")
        for numba_type in list(self.library.bound_types):
            enum_class = getattr(numba_type, "instance_class", None)
            enum_name = getattr(enum_class, "_cxx_name_", None)
            if enum_name is None or name not in enum_class.__members__:
                continue
            enum_name = canonical_spelling(enum_name)
            enclosing = enum_name.rpartition("::")[0]
            unscoped = not getattr(enum_class, "_cxx_scoped_", False)
            if scope == enum_name or (unscoped and scope == enclosing):
                return int(enum_class[name])
        return None


def register_instance_spelling(spelling: str, numba_type: types.Type) -> None:
    register_spelling(spelling, numba_type)


def refresh_numba() -> None:
    """Make Numba see registrations made while it types a kernel (an instance made on the fly):
    its contexts load new registrations only when refreshed."""
    from numba.cuda.descriptor import cuda_target

    cuda_target.typing_context.refresh()
    cuda_target.target_context.refresh()

"""Ask the compiler about a template instantiation: constants (sizeof, alignof, offsets,
defaults) and types (``decltype`` of a call, ``typename traits<T>::type``), with NVRTC alone.

A probe is a small translation unit: the bindings' preamble (which includes the header), then
one ``extern "C" __device__`` constant per question. Compiled to PTX (no driver needed), each
constant appears as ``.global ... name = value;``. A type comes back as a code: the index of a
known C++ type (builtins, CUDA vector types, types bound so far), plus a pointer depth, or an
instance of a bound class template with its arguments, which are codes and values again.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any, NamedTuple

from numba.cuda import types

from ...core.cxx_names import BUILTIN_NUMBA_NAMES, vector_type_names
from ...core.nvrtc import NvrtcError, compile_unit, unit_options
from ...core.template_rows import VALUE_PARAMETER
from ..cxx_types import canonical_spelling, cxx_spelling_of

PROBE_NAMESPACE = "nbi_probe"
POINTER_STEP = 1 << 24  # a type's code grows by this per level of pointer
INSTANCE_BASE = 1 << 16  # codes from here name instances of class template i (base + i)
MAX_TEMPLATE_ARGUMENTS = 8
# A constant in PTX; zero ones are written without an initializer.
_CONSTANT = re.compile(
    r"\.(?:global|const)\s+(?:\.align\s+\d+\s+)?\.[usb]64\s+(nbi_\w+)(?:\s*=\s*(-?\d+))?\s*;"
)


class _NoCounterpart:
    """A probe's answer for a type with no Numba counterpart (an optional slot)."""

    def __repr__(self) -> str:
        return "<no Numba counterpart>"


NO_COUNTERPART = _NoCounterpart()


class TemplateInstantiationError(TypeError):
    """The compiler rejected an instantiation (a static_assert fired, an argument does not
    fit...): the message holds its errors."""


class KnownTemplate(NamedTuple):
    """A class template a probe can recognise instances of."""

    qual_name: str
    params: tuple  # TemplateParamRow, ...
    instance: Callable[[list], types.Type]  # arguments -> the bound instance's Numba type


class ProbeAnswer(NamedTuple):
    constants: dict[str, int]
    types: dict[str, types.Type | None]  # None: the type is void
    # type slot -> (size, alignment) of its type, when it is complete (opaque storage for a
    # type with no Numba counterpart is made from these)
    sizes: dict[str, tuple[int, int]] = {}  # noqa: RUF012 (never mutated: run makes its own)


class Probe:
    """The questions: ``constants`` (name -> C++ integer constant expression) and ``types``
    (name -> C++ type-id)."""

    def __init__(
        self,
        constants: Mapping[str, str] = (),
        types_: Mapping[str, str] = (),
        optional: Collection[str] = (),
        scope: str | None = None,
    ) -> None:
        """``optional``: type slots that may name a type with no Numba counterpart; they are
        answered NO_COUNTERPART instead of failing the whole probe. ``scope``: a class
        (``ns::Inst<float, 4>``) whose members and namespace the type-ids may name as its own
        members' signatures do (``Storage[kElements]``): they are read in a class derived from
        it, declared in its namespace."""
        self.constants = dict(constants)
        self.types = dict(types_)
        self.optional = frozenset(optional)
        self.scope = scope

    def run(
        self,
        preamble: str,
        arch: str,
        what: str,
        templates: Sequence[KnownTemplate] = (),
        declared: Sequence[types.Type] = (),
        options: Sequence[str] | None = None,
    ) -> ProbeAnswer:
        """Compile the probe; raises TemplateInstantiationError naming ``what`` with the
        compiler's errors. ``declared`` are the bound types the preamble declares (with the
        builtins and the CUDA vector types, the types the probe can name back), ``templates``
        the class templates it declares; ``options``: NVRTC's (default: ``unit_options``
        for PTX, with no include directories of the header's own)."""
        candidates = _candidates(declared)
        templates = [t for t in templates if _recognisable(t)]
        source = self.source(preamble, candidates, templates)
        name = f"probe_{hashlib.sha256(source.encode()).hexdigest()[:12]}.cu"
        try:
            if options is None:
                options = unit_options(arch, lto=False)
            ptx = compile_unit(source, name, options, "ptx").code
        except NvrtcError as exc:
            errors = [line for line in exc.log.splitlines() if "error" in line][:8]
            listing = "\n".join(f"  {line}" for line in errors or exc.log.splitlines()[:8])
            raise TemplateInstantiationError(
                f"the C++ compiler rejects {what}:\n{listing}\nCheck the template arguments "
                "(and the header's include directories and defines)."
            ) from None
        values = {m[1]: _signed(int(m[2] or 0)) for m in _CONSTANT.finditer(ptx.decode())}
        answer = ProbeAnswer({}, {}, {})
        for constant in self.constants:
            answer.constants[constant] = values[f"nbi_c_{constant}"]
        for slot in self.types:
            size = values.get(f"nbi_t_{slot}_size", -1)
            if size >= 0:
                answer.sizes[slot] = (size, values.get(f"nbi_t_{slot}_align", 1))
            try:
                answer.types[slot] = _decode(values, f"nbi_t_{slot}", candidates, templates, what)
            except TemplateInstantiationError:
                if slot not in self.optional:
                    raise
                answer.types[slot] = NO_COUNTERPART
        return answer

    def source(self, preamble: str, candidates: list, templates: Sequence[KnownTemplate]) -> str:
        lines = [preamble, "", f"namespace {PROBE_NAMESPACE} {{", _HELPERS]
        for index, (spelling, _numba_type) in enumerate(candidates):
            value = "-2" if spelling == "void" else str(index)
            lines.append(f"template <> struct code<{spelling}> {{ {_VALUE} = {value}; }};")
        for index, known in enumerate(templates):
            lines += _instance_detector(index, known)
        lines.append(f"}}  // namespace {PROBE_NAMESPACE}")
        ns = PROBE_NAMESPACE
        for name, expression in self.constants.items():
            lines.append(
                f'extern "C" __device__ const long long nbi_c_{name} = '
                f"static_cast<long long>({expression});"
            )
        types_ = dict(self.types)
        if self.scope is not None and types_:
            lines.append(_scope_declaration(self.scope, types_))
            types_ = {name: f"{_scoped_name(self.scope)}::nbi_t_{name}" for name in types_}
        for name, type_id in types_.items():
            stripped = f"{ns}::strip<{type_id}>::type"
            lines.append(
                f'extern "C" __device__ const long long nbi_t_{name} = '
                f"{ns}::code<{stripped}>::value;"
            )
            for measure in ("size", "align"):
                lines.append(
                    f'extern "C" __device__ const long long nbi_t_{name}_{measure} = '
                    f"{ns}::measured<{stripped}>::{measure};"
                )
            for position in range(MAX_TEMPLATE_ARGUMENTS):
                lines.append(
                    f'extern "C" __device__ const long long nbi_t_{name}_a{position} = '
                    f"{ns}::argument<{stripped}>::a{position};"
                )
        return "\n".join(lines) + "\n"


def _namespace_of(scope: str) -> list[str]:
    from ...core.cxx_names import normalize_cxx_name

    name = normalize_cxx_name(scope)
    head = name[: name.find("<")] if "<" in name else name
    return head.split("::")[:-1]


def _scoped_name(scope: str) -> str:
    return "::" + "::".join([*_namespace_of(scope), "nbi_probe_scope"])


def _scope_declaration(scope: str, types_: Mapping[str, str]) -> str:
    """``struct nbi_probe_scope : Inst { using nbi_t_<slot> = <type-id>; };`` in the
    namespace of ``scope``, so that a type-id finds the class's members and its namespace's
    names, as a member's signature does."""
    namespaces = _namespace_of(scope)
    body = " ".join(f"using nbi_t_{name} = {type_id};" for name, type_id in types_.items())
    opened = "".join(f"namespace {n} {{ " for n in namespaces)
    closed = "} " * len(namespaces)
    base = scope if scope.startswith("::") else f"::{scope}"
    return f"{opened}struct nbi_probe_scope : {base} {{ {body} }}; {closed}"


_VALUE = "static constexpr long long value"

_HELPERS = f"""\
template <class T> __device__ T &&declval() noexcept;  // in decltype only: never defined
template <class T> struct strip {{ using type = T; }};
template <class T> struct strip<const T> {{ using type = typename strip<T>::type; }};
template <class T> struct strip<volatile T> {{ using type = typename strip<T>::type; }};
template <class T> struct strip<const volatile T> {{ using type = typename strip<T>::type; }};
template <class T> struct strip<T &> {{ using type = typename strip<T>::type; }};
template <class T> struct strip<T &&> {{ using type = typename strip<T>::type; }};
template <class T> struct code {{ {_VALUE} = -1; }};
template <class T> struct code<T *> {{
  static constexpr long long inner = code<typename strip<T>::type>::value;
  {_VALUE} = inner == -1 ? -1 : inner + {POINTER_STEP}LL;
}};
template <class T> struct argument {{
  {" ".join(f"static constexpr long long a{i} = 0;" for i in range(MAX_TEMPLATE_ARGUMENTS))}
}};
template <class T> struct argument<T *> : argument<typename strip<T>::type> {{}};
template <class T, class = void> struct measured {{
  static constexpr long long size = -1, align = -1;  // incomplete, void, a function
}};
template <class T> struct measured<T, decltype(void(sizeof(T)))> {{
  static constexpr long long size = sizeof(T), align = alignof(T);
}};"""


def _recognisable(known: KnownTemplate) -> bool:
    return 0 < len(known.params) <= MAX_TEMPLATE_ARGUMENTS


def _instance_detector(index: int, known: KnownTemplate) -> list[str]:
    """Partial specializations of ``code`` and ``argument`` matching every instance."""
    declared, used, arguments = [], [], []
    for position, param in enumerate(known.params):
        name = f"A{position}"
        if param.kind == VALUE_PARAMETER:
            declared.append(f"{param.value_type} {name}")
            arguments.append(f"static constexpr long long a{position} = (long long)({name});")
        else:
            declared.append(f"class {name}")
            arguments.append(
                f"static constexpr long long a{position} = "
                f"code<typename strip<{name}>::type>::value;"
            )
        used.append(name)
    # The probe reads every position (a type slot's template is not known in advance).
    for position in range(len(known.params), MAX_TEMPLATE_ARGUMENTS):
        arguments.append(f"static constexpr long long a{position} = 0;")
    qual = known.qual_name if known.qual_name.startswith("::") else f"::{known.qual_name}"
    instance = f"{qual}<{', '.join(used)}>"
    head = f"template <{', '.join(declared)}>"
    return [
        f"{head} struct code<{instance}> {{ {_VALUE} = {INSTANCE_BASE + index}; }};",
        f"{head} struct argument<{instance}> {{ {' '.join(arguments)} }};",
    ]


def _candidates(declared: Sequence[types.Type]) -> list[tuple[str, types.Type | None]]:
    """Every C++ type a probe can name back: (spelling in the probe, Numba type), each Numba
    type once (two spellings of one C++ type would specialize ``code`` twice)."""
    from numba.cuda.vector_types import vector_types

    found: dict[Any, tuple[str, Any]] = {}
    for cxx, name in BUILTIN_NUMBA_NAMES.items():
        numba_type = None if name == "void" else getattr(types, name)
        if cxx in ("__half", "__nv_bfloat16"):
            continue  # only known to the probe when a header declares them (then bound)
        found.setdefault(numba_type if numba_type is not None else "void", (cxx, numba_type))
    for cxx, name in vector_type_names().items():
        found.setdefault(vector_types[name], (cxx, vector_types[name]))
    spellings = {canonical_spelling(spelling) for spelling, _t in found.values()}
    for numba_type in declared:
        try:
            spelling = cxx_spelling_of(numba_type)
        except TypeError:
            continue
        key = canonical_spelling(spelling)
        if numba_type not in found and key not in spellings:
            spellings.add(key)
            found[numba_type] = (f"::{spelling.removeprefix('::')}", numba_type)
    return list(found.values())


def _decode(
    values: Mapping[str, int],
    slot: str,
    candidates: list,
    templates: Sequence[KnownTemplate],
    what: str,
) -> types.Type | None:
    code = values[slot]
    if code == -1:
        raise TemplateInstantiationError(
            f"{what}: a type it uses has no Numba counterpart (bind the C++ type first)"
        )
    depth, base = divmod(code, POINTER_STEP) if code >= 0 else (0, code)
    if base == -2 or (0 <= base < INSTANCE_BASE and candidates[base][1] is None):
        if depth == 0:
            return None  # void
        numba_type: types.Type = types.voidptr
        depth -= 1
    elif base >= INSTANCE_BASE:
        known = templates[base - INSTANCE_BASE]
        arguments = []
        for position, param in enumerate(known.params):
            value = values[f"{slot}_a{position}"]
            if param.kind == VALUE_PARAMETER:
                arguments.append(value)
            else:
                inner = _decode({slot: value}, slot, candidates, (), what)
                if inner is None:
                    raise TemplateInstantiationError(f"{what}: a template argument is void")
                arguments.append(inner)
        numba_type = known.instance(arguments)
    else:
        numba_type = candidates[base][1]
    for _ in range(depth):
        numba_type = types.CPointer(numba_type)
    return numba_type


def _signed(value: int) -> int:
    return value - (1 << 64) if value >= 1 << 63 else value

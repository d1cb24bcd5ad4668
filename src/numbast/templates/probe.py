"""Ask clang about one template instantiation: its layout and the types substitution cannot
work out by itself.

The probe is a small generated header: the shim preamble (which includes the bound header), then
``constexpr`` variables (``sizeof``, ``alignof``, ``offsetof``) and ``using`` aliases
(``using nbi_t0 = typename traits<float>::type;``, ``decltype`` of a call) in a namespace of its
own. It is parsed with ``ast_canopy`` retaining only itself, so clang instantiates exactly what it
names and the parser hands back the evaluated constants and the aliases' concrete types. One
parse of a small file on top of the precompiled prelude takes well under a second.
"""

from __future__ import annotations

import hashlib
import logging
import os
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field

from ast_canopy.model import TemplateParam, TemplateParamKind, Type
from numbast.planning.diagnostics import BindingError
from numbast.planning.type_rules import UnsupportedTypeError, normalize_cxx_name, strip_cv
from numbast.templates.arguments import (
    Substitution,
    TemplateArgument,
    integer_value,
    value_argument,
)

logger = logging.getLogger(__name__)

PROBE_NAMESPACE = "nbi_probe"


@dataclass(frozen=True)
class InstantiationOptions:
    """How to parse the bound header when a template is instantiated (as for ``bind_header``).

    The shim preamble's relative includes resolve against the current directory, as they do for
    the shims, and against ``include_dirs``.
    """

    arch: str = "sm_90"
    include_dirs: tuple[str, ...] = ()
    defines: tuple[str, ...] = ()


class TemplateInstantiationError(BindingError):
    """clang rejected an instantiation (a static_assert fired, an argument does not fit...)."""


@dataclass
class Probe:
    """What to ask: constants by name (C++ expressions) and types by name (C++ type-ids)."""

    constants: dict[str, str] = field(default_factory=dict)
    types: dict[str, str] = field(default_factory=dict)

    def source(self, preamble: str) -> str:
        lines = [preamble, "", f"namespace {PROBE_NAMESPACE} {{"]
        # Declared, never defined: only used inside decltype.
        lines.append("template <class T> T&& nbi_declval() noexcept;")
        lines += [f"constexpr long long {n} = {e};" for n, e in self.constants.items()]
        lines += [f"using {n} = {t};" for n, t in self.types.items()]
        lines.append(f"}}  // namespace {PROBE_NAMESPACE}")
        return "\n".join(lines) + "\n"


@dataclass
class ProbeAnswer:
    constants: dict[str, int] = field(default_factory=dict)
    types: dict[str, Type] = field(default_factory=dict)


def search_dirs_of(declaring_file: str) -> tuple[str, ...]:
    """Where the probe looks for the preamble's relative includes besides the current
    directory: the directory of the file that declares the template."""
    return (os.path.dirname(declaring_file),) if declaring_file else ()


def run_probe(
    probe: Probe,
    preamble: str,
    options: InstantiationOptions,
    what: str,
    search_dirs: Sequence[str] = (),
) -> ProbeAnswer:
    """Parse the probe; raises TemplateInstantiationError with clang's errors naming ``what``."""
    from ast_canopy import parse_declarations_from_source
    from ast_canopy.errors import ParseError

    source = probe.source(preamble)
    digest = hashlib.sha256(source.encode()).hexdigest()[:16]
    includes = list(dict.fromkeys([os.getcwd(), *search_dirs, *options.include_dirs]))
    includes = [d for d in includes if os.path.isdir(d)]
    logger.debug("instantiating %s with the probe:\n%s", what, source)
    with tempfile.TemporaryDirectory(prefix="numbast_probe_") as scratch:
        path = os.path.join(scratch, f"probe_{digest}.cuh")
        with open(path, "w", encoding="utf-8") as f:
            f.write(source)
        try:
            decls = parse_declarations_from_source(
                path,
                [path],
                options.arch,
                additional_includes=includes,
                defines=list(options.defines),
            )
        except ParseError as exc:
            errors = "\n".join(f"  {d}" for d in exc.diagnostics[:8])
            raise TemplateInstantiationError(
                f"clang cannot instantiate {what}:\n{errors}\nCheck the template arguments "
                "(and the header's include directories and defines)."
            ) from None
    prefix = f"{PROBE_NAMESPACE}::"
    answer = ProbeAnswer()
    for var in decls.constexpr_vars:
        if var.qual_name.startswith(prefix):
            answer.constants[var.name] = int(var.value)
    for typedef in decls.typedefs:
        if typedef.qual_name.startswith(prefix):
            answer.types[typedef.name] = typedef.underlying_type
    return answer


def complete_arguments(
    params: Sequence[TemplateParam],
    given: dict[int, TemplateArgument],
    preamble: str,
    options: InstantiationOptions,
    what: str,
    search_dirs: Sequence[str] = (),
    hint: str = "",
) -> list[TemplateArgument]:
    """Every template argument, in order: the ``given`` ones (explicit or deduced, by index),
    then defaults. A default is read in Python when it is a type numbast knows or an integer
    expression; otherwise clang evaluates it (``int N = sizeof(T)``).

    Raises BindingError naming the first parameter that has neither.
    """
    arguments: list[TemplateArgument] = []
    for index, param in enumerate(params):
        if index in given:
            arguments.append(given[index])
            continue
        if param.default is None:
            raise BindingError(
                f"{what}: template parameter {param.name or index} is neither deduced nor "
                f"defaulted{'; ' + hint if hint else ''}"
            )
        text = Substitution(params[:index], arguments).text(param.default).strip()
        found = _default_in_python(param, text)
        if found is None:
            found = _default_by_probe(param, text, preamble, options, what, search_dirs)
        arguments.append(found)
    return arguments


def _is_bool(param: TemplateParam) -> bool:
    return param.type_ is not None and strip_cv(param.type_.canonical_name) == "bool"


def _default_in_python(param: TemplateParam, text: str) -> TemplateArgument | None:
    if param.kind is TemplateParamKind.TYPE:
        from numbast.dynamic.numba_types import registered_numba_type

        numba_type = registered_numba_type(normalize_cxx_name(text))
        if numba_type is None:
            return None
        return TemplateArgument(normalize_cxx_name(text), numba_type=numba_type)
    value = integer_value(text)
    if value is None:
        return None
    return value_argument(bool(value) if _is_bool(param) else value)


def _default_by_probe(
    param: TemplateParam,
    text: str,
    preamble: str,
    options: InstantiationOptions,
    what: str,
    search_dirs: Sequence[str],
) -> TemplateArgument:
    if param.kind is TemplateParamKind.TYPE:
        from numbast.dynamic.numba_types import to_numba_type

        answer = run_probe(Probe(types={"nbi_default": text}), preamble, options, what, search_dirs)
        resolved = answer.types["nbi_default"]
        try:
            numba_type = to_numba_type(resolved)
        except UnsupportedTypeError as exc:
            raise BindingError(f"{what}: default of {param.name}: {exc}") from None
        return TemplateArgument(resolved.canonical_name, numba_type=numba_type)
    answer = run_probe(
        Probe(constants={"nbi_default": f"static_cast<long long>({text})"}),
        preamble,
        options,
        what,
        search_dirs,
    )
    value = answer.constants["nbi_default"]
    return value_argument(bool(value) if _is_bool(param) else value)


__all__ = [
    "complete_arguments",
    "InstantiationOptions",
    "Probe",
    "ProbeAnswer",
    "TemplateInstantiationError",
    "run_probe",
    "search_dirs_of",
]

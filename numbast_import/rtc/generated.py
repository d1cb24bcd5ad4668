"""Modules written by a program: a preamble and functions put into a source template, then
compiled as a SourceModule (the specification's ``DynamicModule(template)`` API).

    module = DynamicModule()
    module.add_to_preamble("#define N 128")
    module.add_function(DynamicFunction("scale", ["float *x", (np.float32, "a")],
                                        "x[threadIdx.x] *= a;"))
    mod = module.compile()            # a SourceModule: mod.get_function("scale")

A template is source text with ``${preamble}`` and ``${functions}`` where those go (a part
whose placeholder is missing goes first, or last); other ``$`` signs are left alone. This
module only writes text; compiling is SourceModule's (cached like any other source).
"""

from __future__ import annotations

import re
import string
from collections.abc import Iterable, Sequence
from typing import Any

_PLACEHOLDER = re.compile(r"\$\{?(preamble|functions)\b\}?")
DEFAULT_TEMPLATE = "${preamble}\n\n${functions}\n"


def is_template(text: str) -> bool:
    """Whether ``text`` names a place for the preamble or the functions."""
    return _PLACEHOLDER.search(text) is not None


class DynamicFunction:
    """A function to add to a DynamicModule: ``qualifier return_type name(arguments) { body }``.

    ``arguments`` are C declarations (``"float *dest"``), ``(dtype, name)`` pairs (a numpy
    dtype or a C type name, with a leading ``*`` on the name for a pointer:
    ``(np.float32, "*x")``), or objects with a ``declarator()`` method (elementwise's
    ``VectorArg`` / ``ScalarArg``). ``body`` is the statements, without the braces.
    """

    def __init__(
        self,
        name: str,
        arguments: Sequence[Any] = (),
        body: str = "",
        qualifier: str = "__global__",
        return_type: str = "void",
    ) -> None:
        if not re.fullmatch(r"[A-Za-z_]\w*", name):
            raise ValueError(f"{name!r} is not a C identifier")
        self.name = name
        self.arguments = [_declaration(argument) for argument in arguments]
        self.body = body
        self.qualifier = qualifier
        self.return_type = return_type

    def declaration(self) -> str:
        """The function's head: ``__global__ void name(float *x, float a)``."""
        head = " ".join(p for p in (self.qualifier, self.return_type, self.name) if p)
        return f"{head}({', '.join(self.arguments)})"

    def source(self) -> str:
        body = "\n".join(f"  {line}" if line.strip() else "" for line in self.body.split("\n"))
        return f"{self.declaration()}\n{{\n{body}\n}}\n"

    __str__ = source

    def __repr__(self) -> str:
        return f"<DynamicFunction {self.declaration()}>"


def _declaration(argument: Any) -> str:
    if isinstance(argument, str):
        return argument.strip()
    declarator = getattr(argument, "declarator", None)
    if callable(declarator):
        return str(declarator())
    if isinstance(argument, tuple) and len(argument) == 2:
        kind, name = argument
        if not isinstance(kind, str):
            from numbast_import.rtc.dtypes import dtype_to_ctype

            kind = dtype_to_ctype(kind)
        return f"{kind} {name}"
    raise TypeError(
        f"argument {argument!r}: pass a C declaration ('float *x'), a (dtype, name) pair, or "
        "an object with declarator()"
    )


class GeneratedSource:
    """The generating half of DynamicModule: collects the preamble and functions, and
    renders them into the template."""

    def _init_generated(self, template: str | None) -> None:
        self.template = DEFAULT_TEMPLATE if template is None else template
        self.preamble: list[str] = []
        self.functions: list[Any] = []

    def add_to_preamble(self, pa: str | Iterable[Any]) -> GeneratedSource:
        """Add text above the functions: a string, or several lines or objects (their ``str``)."""
        self._use("add_to_preamble")
        if isinstance(pa, str):
            self.preamble.append(pa)
        else:
            self.preamble.extend(str(item) for item in pa)
        return self

    def add_function(self, func: Any) -> GeneratedSource:
        """Add a function: a DynamicFunction, a string holding a definition, or any object
        whose ``str`` is one (cgen's FunctionBody)."""
        self._use("add_function")
        self.functions.append(func)
        return self

    def source(self) -> str:
        """The module's source text as it will be compiled."""
        parts = {
            "preamble": "\n".join(self.preamble),
            "functions": "\n".join(str(function) for function in self.functions),
        }
        text = self.template
        for part in ("preamble", "functions"):
            if not re.search(rf"\$\{{?{part}\b", text):
                text = f"{text}\n${{{part}}}\n" if part == "functions" else f"${{{part}}}\n{text}"
        return string.Template(text).safe_substitute(parts)

    def compile(
        self,
        nvcc: str | None = None,
        options: Sequence[str] | None = None,
        keep: bool = False,
        no_extern_c: bool = False,
        arch: str | None = None,
        code: str | None = None,
        cache_dir: Any = None,
        include_dirs: Sequence[str] | None = None,
    ) -> Any:
        """Compile the source: a SourceModule (``get_function``, ``get_global``, ...)."""
        from numbast_import.rtc.source_module import SourceModule

        self._use("compile")
        return SourceModule(
            self.source(),
            nvcc=nvcc,
            options=options,
            keep=keep,
            no_extern_c=no_extern_c,
            arch=arch,
            code=code,
            cache_dir=cache_dir,
            include_dirs=include_dirs,
        )

    def _use(self, method: str) -> None:
        """Subclasses check here that generating methods fit how they were made."""

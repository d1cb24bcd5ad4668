"""Compile a bindings module's shims to LTO-IR, once, for the cache.

numba-cuda would otherwise compile the shims with NVRTC again in every process and for every
kernel. NVRTC needs no GPU to make LTO-IR, so this also works on a build machine.

A header clang accepts can still have declarations NVRTC rejects once a shim uses them (an
inline function declared but never defined, a template whose body does not compile for the
instance bound). Such a shim is left out, with NVRTC's message, and the others compiled again;
never the whole import. Errors name their shim (``nvrtc_diagnostics``: each shim is a file of
its own to NVRTC); an error that names none (reported at a line of the header) is first matched
by name (the callee a shim's mangled name spells, or the class a template probe gives as an
argument, whose member is undefined: then the other shims are compiled once, without the
halving), else the shims are split in halves, compiled with a precompiled header, until each
such error is pinned to a shim. Only when the header alone does not compile is the import
refused, with NVRTC's log. There is no round limit: every round leaves a shim out or ends.
"""

from __future__ import annotations

import logging
import shutil
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from numbast_import.nvrtc_diagnostics import (
    Diagnostic,
    errors_in,
    shims_calling_undefined,
    shims_instantiating_with_owner,
    shims_named,
)

logger = logging.getLogger(__name__)

# Lines of NVRTC's log quoted in an error message (the whole log is the exception's ``log``).
QUOTED_LOG_LINES = 60


class ShimCompileError(RuntimeError):
    """NVRTC rejected the header itself; ``log`` is NVRTC's whole log, ``wants_default_device``
    whether it asks for ``-default-device`` (functions without an execution space)."""

    def __init__(self, message: str, log: str = "", wants_default_device: bool = False) -> None:
        super().__init__(message)
        self.log = log
        self.wants_default_device = wants_default_device


@dataclass(frozen=True)
class CompiledShims:
    source: str  # the translation unit that was compiled
    ltoir: bytes
    left_out: tuple[str, ...]  # shims NVRTC rejected
    errors: dict[str, str] = field(default_factory=dict)  # left-out shim -> NVRTC's message


def shim_unit(preamble: str, shims: Sequence[tuple[str, str]]) -> str:
    """The translation unit: the preamble, then each shim as a file of its own to NVRTC's
    messages (``#line``), then the unit's own name again for whatever follows."""
    body = "".join(f'#line 1 "{name}"\n{text}\n' for name, text in shims)
    return f"{preamble}\n\n{body}" + ('#line 1 "shims"\n' if shims else "")


def compile_shims_to_ltoir(
    preamble: str,
    shims: Sequence[tuple[str, str]],
    name: str,
    arch: str,
    include_dirs: Sequence[str] = (),
    nvrtc_options: Sequence[str] = (),
    on_round: Callable[[int, int], None] | None = None,
    precompiled_header: str | None = None,
    exact: bool = True,
) -> CompiledShims:
    """LTO-IR of the preamble and ``shims`` for ``arch``, leaving out the shims NVRTC rejects;
    ``include_dirs`` come first on the include path, ``nvrtc_options`` last (the header's own:
    ``-default-device``). ``on_round(compiling, of)`` is told before each compile of the
    unit how many of the shims it holds (the build's progress line). ``precompiled_header``:
    NVRTC's precompiled preamble to use (``numbast_import.shim_units``). ``exact=False``: the
    template instances given a class whose member NVRTC finds undefined are all left out once
    the other shims compile, not split to find which of them call it (coverage's probes: a
    template is bound when any instance compiles, and each split is a compile). Raises
    ShimCompileError when the header itself does not compile."""
    from numbast.core.nvrtc import unit_options
    from numbast_import.free_memory import release_free_memory

    options = unit_options(arch, lto=True, user_dirs=include_dirs, extra=nvrtc_options)
    try:
        with _Compiler(preamble, name, options, precompiled_header, exact) as compiler:
            return _compile_rounds(compiler, shims, on_round)
    finally:
        release_free_memory()  # NVRTC's, so that the next compile's peak does not stack on it


def _compile_rounds(
    compiler: _Compiler,
    shims: Sequence[tuple[str, str]],
    on_round: Callable[[int, int], None] | None,
) -> CompiledShims:
    """The rounds of compile_shims_to_ltoir: each leaves out the shims NVRTC rejected."""
    kept = list(shims)
    errors: dict[str, str] = {}
    while True:
        if on_round is not None:
            on_round(len(kept), len(shims))
        source = shim_unit(compiler.preamble, kept)
        ltoir, log = compiler.compile(source)
        if ltoir is not None:
            if errors:
                # Logged, not warned: toolkit headers have a few such shims that users cannot
                # fix; coverage lists them with NVRTC's message (numbast-cache coverage).
                logger.info(
                    "%s: NVRTC rejected %d shims, left out (kernels calling them cannot be "
                    "compiled): %s", compiler.name, len(errors), ", ".join(errors),
                )  # fmt: skip
            return CompiledShims(source, ltoir, tuple(errors), errors)
        rejected = compiler.rejected_shims(kept, log)
        if not rejected:  # cannot happen unless NVRTC contradicts itself; never loop
            raise compiler.header_error(log, "NVRTC kept rejecting the shims")
        errors.update(rejected)
        kept = [shim for shim in kept if shim[0] not in rejected]


class _Compiler:
    """NVRTC for one module's shims: whole units, and the smaller ones that pin errors. Once
    several compiles are sure to follow (probing halves, or a third round), every compile asks
    NVRTC to precompile the header once and reuse it (when this NVRTC can): they differ only in
    their shims. (Making the precompiled header costs about one more compile.) The precompiled
    headers live in a private directory, removed when the compiler is done."""

    def __init__(
        self,
        preamble: str,
        name: str,
        options: list[str],
        precompiled: str | None = None,
        exact: bool = True,
    ) -> None:
        self.preamble = preamble
        self.exact = exact
        self.name = name
        self.options = options
        self.precompiled = precompiled  # a precompiled preamble's path (never with -pch)
        self._failures = 0
        self._probing = False
        self._pch_dir: str | None = None
        # The last unit that compiled: a round compiles what the pinning just compiled.
        self._last_compiled: tuple[str, bytes] | None = None

    def __enter__(self) -> _Compiler:
        return self

    def __exit__(self, *exc_info: object) -> None:
        if self._pch_dir is not None:
            shutil.rmtree(self._pch_dir, ignore_errors=True)  # a private temp dir
            self._pch_dir = None

    def compile(self, source: str) -> tuple:
        """(LTO-IR, "") or (None, NVRTC's log)."""
        from numbast.core.nvrtc import NvrtcError, compile_unit

        if self._last_compiled is not None and self._last_compiled[0] == source:
            return self._last_compiled[1], ""
        options = self.options
        if self.precompiled is not None:
            options = [*options, f"--use-pch={self.precompiled}", "-pch-messages=false"]
        elif self._probing or self._failures >= 2:
            options = [*options, *self._pch_options()]
        try:
            code = compile_unit(source, self.name, options, "ltoir").code
            self._last_compiled = (source, code)
            return code, ""
        except NvrtcError as exc:
            if self.precompiled is not None and "cannot open precompiled header" in exc.log:
                self.precompiled = None  # removed meanwhile (prune): compile without it
                return self.compile(source)
            self._failures += 1
            return None, exc.log

    def _pch_options(self) -> list[str]:
        from numbast.core.nvrtc import automatic_pch_options, has_automatic_pch

        if self._pch_dir is None:
            if not has_automatic_pch():
                return []
            self._pch_dir = tempfile.mkdtemp(prefix="numbast-pch-")
        return automatic_pch_options(self._pch_dir)

    def rejected_shims(self, shims: list[tuple[str, str]], log: str) -> dict[str, str]:
        """Shim -> message for the shims ``log``'s errors are about (see the module docstring);
        raises ShimCompileError when the header alone does not compile."""
        names = [shim_name for shim_name, _text in shims]
        rejected, unpinned = _pinned(errors_in(log), names)
        if not unpinned and rejected:
            return rejected
        started = time.perf_counter()
        if not self._pinned_by_name(shims, unpinned, rejected):
            self._probing = True
            header_log = self.probe([])
            if header_log is not None:
                raise self.header_error(header_log, "the header does not compile")
            rest = [shim for shim in shims if shim[0] not in rejected]
            rejected.update(self.isolate(rest))
        logger.info(
            "%s: errors at lines of the header pinned to %d shims in %.1f s",
            self.name, len(rejected), time.perf_counter() - started,
        )  # fmt: skip
        return rejected

    def _pinned_by_name(
        self,
        shims: list[tuple[str, str]],
        unpinned: list[Diagnostic],
        rejected: dict[str, str],
    ) -> bool:
        """Pins ``unpinned`` by name into ``rejected`` (the shims calling an undefined function,
        the template instances given the class whose member is undefined), checked by compiling
        the other shims once; then, of several such instances, only these are split (unless
        not ``exact``: then they are all rejected, coverage's probes). False when
        some error is not pinned so, or the others do not compile (the caller splits them all;
        the callers stay rejected)."""
        named: dict[str, str] = {}
        unexplained = False
        for diagnostic in unpinned:
            callers = shims_calling_undefined(diagnostic, [name for name, _text in shims])
            for shim_name in callers:
                rejected.setdefault(shim_name, diagnostic.short())
            instances = set()
            if not callers:  # a shim's own callee explains it; else the instances' bodies
                instances = shims_instantiating_with_owner(diagnostic, shims) - set(rejected)
            for shim_name in instances:
                named.setdefault(shim_name, diagnostic.short())
            unexplained = unexplained or not (callers or instances)
        if unexplained or not unpinned:
            return False
        while True:  # the others, less those their own errors name (NVRTC stops at 100 errors)
            rest = [shim for shim in shims if shim[0] not in rejected and shim[0] not in named]
            log = self.probe(rest) if rest else ""
            if log is None:
                break
            more, unnamed = _pinned(errors_in(log), [name for name, _text in rest])
            if unnamed or not more:
                return False
            rejected.update(more)
        # The others compiled: the errors are the named instances'. Several: which of them.
        if len(named) <= 1 or not self.exact:
            rejected.update(named)
        else:
            self._probing = True
            suspects = [shim for shim in shims if shim[0] in named]
            half = len(suspects) // 2
            rejected.update(self.isolate(suspects[:half]))
            rejected.update(self.isolate(suspects[half:]))
        return True

    def isolate(self, shims: list[tuple[str, str]]) -> dict[str, str]:
        """Shim -> message for the shims of ``shims`` that do not compile, found by compiling
        halves (a group that compiles holds none)."""
        log = self.probe(shims)
        if log is None:
            return {}
        names = [shim_name for shim_name, _text in shims]
        rejected, unpinned = _pinned(errors_in(log), names)
        rest = [shim for shim in shims if shim[0] not in rejected]
        if not unpinned:
            return {**rejected, **(self.isolate(rest) if rejected and rest else {})}
        if len(rest) == 1:
            return {**rejected, rest[0][0]: unpinned[0].short()}
        if not rest:
            return rejected
        half = len(rest) // 2
        return {**rejected, **self.isolate(rest[:half]), **self.isolate(rest[half:])}

    def probe(self, shims: list[tuple[str, str]]) -> str | None:
        """NVRTC's log for the preamble with ``shims``, or None when it compiles."""
        code, log = self.compile(shim_unit(self.preamble, shims))
        return None if code is not None else log

    def header_error(self, log: str, what: str) -> ShimCompileError:
        from numbast.core.nvrtc import wants_default_device

        lines = log.rstrip().splitlines()
        quoted = "\n".join(lines[:QUOTED_LOG_LINES])
        if len(lines) > QUOTED_LOG_LINES:
            quoted += f"\n... ({len(lines) - QUOTED_LOG_LINES} more lines of NVRTC's log)"
        return ShimCompileError(
            f"{what} under NVRTC ({self.name}); NVRTC says:\n{quoted}",
            log,
            wants_default_device(log),
        )


def _pinned(
    diagnostics: list[Diagnostic], names: Sequence[str]
) -> tuple[dict[str, str], list[Diagnostic]]:
    """(shim -> its first message, for errors naming shims; the errors naming none)."""
    rejected: dict[str, str] = {}
    unpinned = []
    known = set(names)
    for diagnostic in diagnostics:
        named = shims_named(diagnostic, known)
        if not named:
            unpinned.append(diagnostic)
        for shim_name in named:
            # Reported in the shim: its message; in a header (an instantiation): where, too.
            message = diagnostic.message if diagnostic.file == shim_name else diagnostic.short()
            rejected.setdefault(shim_name, message)
    return rejected, unpinned

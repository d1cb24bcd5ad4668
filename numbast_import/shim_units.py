"""A header module's shims compiled in units that kernels link by name (issue 22).

A kernel used to link the module's whole shim LTO-IR, and nvJitLink spends about 1 ms per KB
of it: 1.3 s per kernel for a 3000-function header, whatever the kernel calls. Now the shims
are cut into units of ~16 (``numbast_import.shim_keys``), each compiled on its own and kept in
the cache as a ``shim`` entry named by the digest of its shims' keys, and a kernel links the
units of the shims it calls. An edited header compiles only the units whose shims' keys
changed; every other unit is found in the cache, whichever entry made it.

Units are only possible where linking several of them into one kernel is linking the header
once: where the header alone defines no symbol and no state of its own (a non-inline function,
a variable, a ``__global__`` function), which would be defined once per unit (a link error, or
one copy of the state per unit). NVRTC answers that: the header alone, compiled to PTX, must
hold nothing but weak symbols and copies of constants (``numbast.core.ptx_symbols``). The
answer is kept (a ``shim`` entry, ``check.json``) under the items that could change it
(``header_items.Item.may_define``), so editing inline functions does not ask again. Otherwise,
or without shims, the module keeps one unit, in its entry (``shim.cu``, ``shim.ltoir``), as
before.

When several units are compiled, NVRTC first precompiles the preamble (the header and its
includes: ``--create-pch``), kept as a ``shim-prelude`` entry, written through the entry store
(a private file, then moved into place whole: NVRTC never reads a partial one); each unit then
costs NVRTC its shims, not the header again.

A header with namespace-scope constants (issue 23 point 12: a generated header with one per
block) gets a copy of every one in every unit, used or not, which costs each unit's compile
and LTO-IR in proportion to the header: its units grow with its constants instead (about as
many shims as constants each, ``_scale``), so that their count, not their cost, is bounded,
and are compiled without a precompiled preamble, which is about 110 MB per MB of header and
would be read whole to be stored. NVRTC's memory is then the header's and one unit's, not every
shim's at once.
"""

from __future__ import annotations

import json
import logging
import shutil
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from numbast.core import ptx_symbols
from numbast_import.shim_keys import AVERAGE_UNIT, units_of
from numbast_import.shim_store import PRELUDE, Check, ShimStore
from numbast_import.shim_unit_plan import UnitPlan, plan_units
from numbast_import.shim_unit_plan import digest as _digest

logger = logging.getLogger(__name__)

# Precompile the preamble when at least this many units are compiled (making it costs about
# one compile and ~15-20 MB on disk; each unit then compiles in about half the time).
PCH_MIN_UNITS = 4


def _scale(constants: int) -> int:
    """How many times larger than usual units are when each gets a copy of ``constants``
    constants: about as many shims as constants each (a power of two: ``units_of``)."""
    scale = 1
    while AVERAGE_UNIT * scale * 2 <= constants:
        scale *= 2
    return scale


@dataclass(frozen=True)
class ModuleShims:
    """A module's compiled shims: ``units`` (digest, shim names) when in units, else the one
    unit's ``source`` and ``ltoir``; the shims NVRTC rejected with its messages."""

    units: list[tuple[str, list[str]]] | None
    source: str = ""
    ltoir: bytes = b""
    errors: dict[str, str] = field(default_factory=dict)

    @property
    def left_out(self) -> tuple[str, ...]:
        return tuple(self.errors)


def compile_module_shims(
    preamble: str,
    shims: Sequence[tuple[str, str]],
    name: str,
    arch: str,
    header: str,
    context_files: Mapping[str, str],
    store: ShimStore,
    include_dirs: Sequence[str] = (),
    nvrtc_options: Sequence[str] = (),
    module: str = "",
    on_round: Callable[[int, int], None] | None = None,
    on_unit: Callable[[int, int], None] | None = None,
    plan: UnitPlan | None = None,
) -> ModuleShims:
    """Compile ``shims`` (see the module docstring). ``header`` is the mapped header's path,
    ``context_files`` path -> sha256 of the other files its parse read. ``on_round`` is told
    what ``compile_shims_to_ltoir`` tells it when the shims are one unit, ``on_unit(done,
    of)`` how many of the units to compile are done. ``plan``: ``plan_units`` of these
    arguments, when already worked out. Raises ShimCompileError
    (``numbast_import.shim_compiler``) when the header alone does not compile."""
    from numbast_import.shim_compiler import compile_shims_to_ltoir

    def single() -> ModuleShims:
        compiled = compile_shims_to_ltoir(
            preamble, shims, name, arch, include_dirs, nvrtc_options, on_round=on_round
        )
        return ModuleShims(None, compiled.source, compiled.ltoir, dict(compiled.errors))

    if not shims:
        return single()
    if plan is None:
        plan = plan_units(preamble, shims, arch, header, context_files, include_dirs, nvrtc_options)
    keys = plan.keys
    texts = dict(shims)

    def cut(scale: int):
        units = [
            (_digest("unit", *(keys[n] for n in names)), names)
            for names in units_of([n for n, _t in shims], scale)
        ]
        found = {digest: store.unit(digest) for digest, _names in units}
        return units, found, [(d, names) for d, names in units if found[d] is None]

    units, found, missing = cut(1)
    builder = _UnitBuilder(preamble, name, arch, include_dirs, nvrtc_options, store, module)
    check = builder.check(plan, precompile=len(missing) >= PCH_MIN_UNITS)
    if check.defines:
        logger.info("%s: the header defines symbols of its own; its shims stay one unit", name)
        return single()
    if _scale(check.constants) > 1:
        logger.info(
            "%s: each unit copies the header's %d constants; units of ~%d shims",
            name, check.constants, AVERAGE_UNIT * _scale(check.constants),
        )  # fmt: skip
        units, found, missing = cut(_scale(check.constants))
    errors: dict[str, str] = {}
    for number, (digest, names) in enumerate(missing):
        if on_unit is not None:
            on_unit(number, len(missing))
        compiled = builder.compile([(n, texts[n]) for n in names])
        store.put_unit(digest, compiled.ltoir, compiled.errors, {n: keys[n] for n in names})
        found[digest] = (b"", dict(compiled.errors))  # its LTO-IR not held (put_unit)
    for digest, _names in units:
        errors.update(found[digest][1])
    logger.info(
        "%s: %d shims in %d units, %d compiled now", name, len(shims), len(units), len(missing)
    )
    return ModuleShims(units, errors=errors)


def _uses_precompiled(check: Check) -> bool:
    """Whether the units of a header so checked use a precompiled preamble: several units, of
    the usual size (see the module docstring)."""
    return not check.defines and _scale(check.constants) == 1


class _UnitBuilder:
    """NVRTC for one module's units: the check, the precompiled preamble, the units."""

    def __init__(self, preamble, name, arch, include_dirs, nvrtc_options, store, module) -> None:
        self.preamble = preamble
        self.name = name
        self.arch = arch
        self.include_dirs = list(include_dirs)
        self.nvrtc_options = list(nvrtc_options)
        self.store = store
        self.module = module
        self.precompiled: Path | None = None
        self.constant_names: frozenset[str] = frozenset()

    def check(self, plan: UnitPlan, precompile: bool) -> Check:
        """What the header alone defines (see the module docstring); ``precompile``: also find
        or make NVRTC's precompiled preamble where units will use it (one compile of the
        header alone does both when neither is cached)."""
        self.constant_names = plan.constant_names
        known = self.store.check(plan.check)
        if known is None:
            # Not for a header of many constants, whose units would not use it (_scale).
            precompile = precompile and _scale(len(self.constant_names)) == 1
            ptx = self.precompile(plan) if precompile else None
            if ptx is None:
                ptx = self._header_alone()
            known = self._check_of(ptx)
            self.store.put_check(plan.check, known)
        elif precompile and _uses_precompiled(known):
            self.precompile(plan)
        if not _uses_precompiled(known):
            self.precompiled = None
        return known

    def _check_of(self, ptx: str) -> Check:

        found = ptx_symbols.header_symbols(ptx, self.constant_names)
        return Check(bool(found.own), found.constants)

    def _header_alone(self, create_pch: str | None = None) -> str:
        from numbast.core.nvrtc import NvrtcError, compile_unit, unit_options
        from numbast_import.free_memory import release_free_memory
        from numbast_import.shim_compiler import _Compiler, shim_unit

        options = unit_options(
            self.arch, lto=False, user_dirs=self.include_dirs, extra=self.nvrtc_options
        )
        if create_pch is not None:
            options = [*options, f"--create-pch={create_pch}", "-pch-messages=false"]
        try:
            return compile_unit(
                shim_unit(self.preamble, []), self.name, options, "ptx"
            ).code.decode(errors="replace")
        except NvrtcError as exc:
            compiler = _Compiler(self.preamble, self.name, options)
            raise compiler.header_error(exc.log, "the header does not compile") from None
        finally:
            release_free_memory()  # NVRTC's (see numbast_import.free_memory)

    def precompile(self, plan: UnitPlan) -> str | None:
        """Find or make NVRTC's precompiled preamble of the header ``plan`` was made of, where
        this NVRTC can; returns the PTX of the header alone when making it compiled that."""
        from numbast.core.nvrtc import has_automatic_pch

        if not has_automatic_pch():  # NVRTC's precompiled headers came with CUDA 12.8
            return None
        # The header's own text is part of the key (``context`` has its included files only):
        # NVRTC uses a precompiled header given with --use-pch even when the header changed
        # since (measured with CUDA 13: a function added afterwards is "undefined").
        key = {"context": plan.context, "header": plan.header, "module": self.module}
        key["arch"] = self.arch
        digest = _digest("prelude", json.dumps(key, sort_keys=True))
        self.precompiled = self.store.prelude(digest, key)
        if self.precompiled is not None:
            return None
        scratch = Path(tempfile.mkdtemp(prefix="numbast-pch-"))
        try:
            ptx = self._header_alone(create_pch=str(scratch / PRELUDE))
            if not _uses_precompiled(self._check_of(ptx)):
                # Not kept where no unit uses it (it is about 110 times the header's size: 178
                # MB for a 1.6 MB header, read whole to be stored).
                return ptx
            data = (scratch / PRELUDE).read_bytes()
        except OSError as exc:  # NVRTC made none (a full disk)
            logger.info("%s: no precompiled preamble (%s)", self.name, exc)
            return None
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
        self.precompiled = self.store.put_prelude(digest, key, data)
        return ptx

    def compile(self, shims: list[tuple[str, str]]):
        from numbast_import.shim_compiler import compile_shims_to_ltoir

        return compile_shims_to_ltoir(
            self.preamble,
            shims,
            self.name,
            self.arch,
            self.include_dirs,
            self.nvrtc_options,
            precompiled_header=None if self.precompiled is None else str(self.precompiled),
        )

"""Link objects of a module whose shims were compiled in units (``numbast_import.shim_units``):
a kernel links the units holding the shims it calls, not the module's every shim.

Each unit is one LTO-IR link object, read from the cache when a kernel first links it (so an
import reads none); a shim in no unit (a template instance's, made later) is compiled alone
with the preamble when a kernel first calls it, and kept by the import system beside the
entry. All of a library's objects share its Module Callbacks, run once per loaded module.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Any

from numba.cuda.cudadrv.linkable_code import LTOIR

from .shim_links import _LiveCallbacks, _OncePerModule, runtime_part

# (unit digest, [(shim name, text), ...]) -> the unit's LTO-IR
LoadUnit = Callable[[str, list[tuple[str, str]]], bytes]


class _LazyUnit(_LiveCallbacks, LTOIR):
    """LTO-IR read (or compiled) the first time Numba links it."""

    def __init__(self, name: str, load: Callable[[], bytes], callbacks: _OncePerModule) -> None:
        self._callbacks = callbacks
        super().__init__(
            b"", name=name, setup_callback=callbacks.user_setup,
            teardown_callback=callbacks.user_teardown,
        )  # fmt: skip
        self._load = load
        self._loaded: bytes | None = None
        self._lock = threading.Lock()

    @property
    def data(self) -> bytes:
        with self._lock:
            if self._loaded is None:
                self._loaded = self._load()
            return self._loaded


class ShimUnits:
    """The units of one ShimLibrary: shim name -> its unit's link object."""

    def __init__(
        self,
        library: Any,
        units: Sequence[tuple[str, Sequence[str]]],
        load_unit: LoadUnit,
        compile_shim: Callable[[str], bytes],
        callbacks: _OncePerModule,
        identity: str | Callable[[], str],
    ) -> None:
        """``units``: (digest, shim names); ``compile_shim(source)``: the LTO-IR of the preamble
        and one shim not in a unit; ``identity``: a digest of everything the module's shims
        are compiled from (its header and what that includes), or what computes it when first
        asked (only a kernel calling a shim in no unit asks)."""
        self.library = library
        self.units = [(digest, tuple(names)) for digest, names in units]  # untracked by the GC
        self.unit_of = {name: digest for digest, names in self.units for name in names}
        self._load_unit = load_unit
        self._compile_shim = compile_shim
        self.callbacks = callbacks
        self.identity = identity
        self._objects: dict[str, _LazyUnit] = {}
        self._lock = threading.Lock()
        self._base = library.link_object().name.removesuffix(".cu").removesuffix(".ltoir")

    def primary(self) -> _LazyUnit | None:
        """The object published as ``shim_obj``: the first unit's (linking it too is harmless:
        it is the same object lowering adds)."""
        if not self.units:
            return None
        return self._unit_object(self.units[0][0])

    def object_for(self, shim_name: str) -> _LazyUnit:
        digest = self.unit_of.get(shim_name)
        if digest is not None:
            return self._unit_object(digest)
        with self._lock:
            found = self._objects.get(f"shim:{shim_name}")
            if found is None:
                found = self._objects[f"shim:{shim_name}"] = _LazyUnit(
                    f"{self._base}_{shim_name}.ltoir",
                    lambda: self._compile_shim(self._extra_source(shim_name)),
                    self.callbacks,
                )
            return found

    def objects(self) -> list[_LazyUnit]:
        with self._lock:
            return list(self._objects.values())

    def token(self, shim_names: Sequence[str], texts: dict[str, str]) -> str | None:
        """What a kernel calling ``shim_names`` links: the units' digests (each names its
        content), and the text of the shims in none, with the module's identity (they are
        compiled with its header). None when a shim is unknown."""
        parts: list[str] = []
        extra = False
        for name in sorted(set(shim_names)):
            digest = self.unit_of.get(name)
            if digest is not None:
                parts += ["unit", digest]
                continue
            text = texts.get(name)
            if text is None:
                return None
            parts += ["shim", name, text]
            extra = True
        # The kernel cache asks (installed numbast's: a standalone module's copy carries none).
        digest_of = runtime_part("runtime.link_digests").digest

        if extra and callable(self.identity):  # worked out when first needed
            self.identity = self.identity()
        return digest_of("units", *([self.identity] if extra else []), *parts)

    def _unit_object(self, digest: str) -> _LazyUnit:
        with self._lock:
            found = self._objects.get(digest)
            if found is None:
                found = self._objects[digest] = _LazyUnit(
                    f"{self._base}_{digest[:12]}.ltoir",
                    lambda: self._load(digest),
                    self.callbacks,
                )
            return found

    def _load(self, digest: str) -> bytes:
        names = next(names for d, names in self.units if d == digest)
        texts = dict(self.library.all_shims)
        return self._load_unit(digest, [(name, texts[name]) for name in names])

    def _extra_source(self, shim_name: str) -> str:
        text = dict(self.library.extra_shims(self.unit_of)).get(shim_name)
        if text is None:
            raise KeyError(f"{shim_name} was never lowered by {self._base}")
        return f"{self.library.preamble}\n\n{text}\n"

"""What a header module's shim library needs to link its units (``numbast_import.shim_units``):
load a unit by digest, compile one shim that is in no unit, and the module's identity.

Apart from ``shim_units``, which compiles units. A warm import links nothing: this module is
imported when a kernel first links a unit (``entry_context``); the unit store
(``shim_store``) is imported and opened when a unit is first read, and the identity worked out
when a shim in no unit is first compiled.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from typing import Any

from numbast_import.digests import framed_digest

logger = logging.getLogger(__name__)


def unit_loader(entry, library, arch: str, compile_unit: Callable | None):
    """For ``ShimLibrary.use_units``: (load a unit by digest, compile one shim not in a unit,
    what works out the module's identity) for the header ``entry``. A unit missing from the
    cache (pruned apart from its entry) is compiled again, with a warning; where the entry is
    in a layer, its units are read from that layer."""
    root = entry.path.parent.parent if entry.path is not None else None
    opened: list[Any] = []  # the ShimStore, once a kernel links a unit

    def identity() -> str:
        # Only a kernel calling a shim in no unit asks (a header's included files: ~50 KB of
        # JSON for cuda_fp16.h, not worth writing out for the units every kernel links).
        return framed_digest(
            "module",
            json.dumps(entry.manifest.get("shim_units")),
            json.dumps(entry.manifest.get("included_files"), sort_keys=True),
        )

    def store():
        if not opened:
            # The store alone: what compiles units is imported only to compile one.
            from numbast_import.shim_store import ShimStore

            layers = [root] if entry.read_only else []
            opened.append(ShimStore(None if entry.read_only else root, layers))
        return opened[0]

    def load(digest: str, shims: list[tuple[str, str]]) -> bytes:
        found = store().unit(digest)
        if found is not None:
            return found[0]
        from numbast_import.shim_compiler import compile_shims_to_ltoir

        logger.warning(
            "numbast-import: the shim unit %s of %s is missing from the cache; compiling it "
            "again", digest[:12], library.link_object().name,
        )  # fmt: skip
        compiled = compile_shims_to_ltoir(
            library.preamble, shims, library.link_object().name, arch,
            library.include_dirs, library.nvrtc_options,
        )  # fmt: skip
        store().put_unit(digest, compiled.ltoir, compiled.errors, {})
        return compiled.ltoir

    def compile_shim(source: str) -> bytes:
        options = library.unit_options(arch, lto=True)
        if compile_unit is not None:
            return compile_unit(source, options)
        from numbast.runtime.shim_library import compile_ltoir

        return compile_ltoir(source, options)

    return load, compile_shim, identity

"""What cutting a module's shims into units (``numbast_import.shim_units``) needs of its header:
each shim's key, the digest the check's answer is kept under, the constants the header declares.
All of it comes from the header's text (its items: ``numbast_import.header_items``), which for a
big header are tens of MB: worked out where the header is parsed (``numbast_import.
build_process``), the importer never holds them while NVRTC compiles.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import NamedTuple

from numbast.core import ptx_symbols
from numbast_import.digests import framed_digest
from numbast_import.shim_keys import shim_keys

# Bump when how units are compiled changes (their source's layout, the check's rule).
UNIT_FORMAT = 1


class UnitPlan(NamedTuple):
    """``plan_units``' answer, plain data (it is sent from the process that parsed the header)."""

    context: str  # a digest of what every unit is compiled with but the header's own text
    header: str  # a digest of the header's text
    keys: dict[str, str]  # shim name -> its key
    check: str  # the digest the check's answer is kept under
    constant_names: frozenset[str]  # the constants the header declares


def digest(*parts: object) -> str:
    return framed_digest(*(str(part) for part in parts))


_RULES: list[str] = []


def _rules_digest() -> str:
    """A digest of the code that decides a unit's key and content (these modules, the shim
    compiler's unit layout), so that a checkout changing how keys follow a header never reuses
    units keyed by the old rules."""
    if not _RULES:
        here = Path(__file__).parent
        names = ("header_tokens.py", "header_names.py", "header_items.py", "shim_keys.py")
        names += ("digests.py", "shim_units.py", "shim_unit_plan.py", "shim_compiler.py")
        paths = [here / name for name in names] + [Path(ptx_symbols.__file__)]
        hashed = hashlib.sha256()
        for path in paths:
            hashed.update(path.read_bytes())
        _RULES.append(hashed.hexdigest())
    return _RULES[0]


def plan_units(
    preamble: str,
    shims: Sequence[tuple[str, str]],
    arch: str,
    header: str,
    context_files: Mapping[str, str],
    include_dirs: Sequence[str] = (),
    nvrtc_options: Sequence[str] = (),
) -> UnitPlan:
    """The plan of ``shims``' units, as ``numbast_import.shim_units.compile_module_shims``
    takes it: ``header`` is the mapped header's path, ``context_files`` path -> sha256 of the
    other files its parse read."""
    from numbast.core.nvrtc import nvrtc_version, stand_in_digest, unit_options
    from numbast_import.header_items import constant_names, header_items

    options = unit_options(arch, lto=True, user_dirs=include_dirs, extra=nvrtc_options)
    files = sorted((p, h) for p, h in context_files.items() if p != header)
    context = digest(
        UNIT_FORMAT,
        _rules_digest(),
        nvrtc_version(),
        stand_in_digest(),
        *options,
        preamble,
        *(f for p in files for f in p),
    )
    text = Path(header).read_text(encoding="utf-8", errors="surrogateescape")
    keys = shim_keys(text, shims, context, options)
    items = header_items(text)
    if items is None:
        relevant, constants = [text], frozenset()
    else:
        relevant = [i.digest for i in items if i.may_define or not i.declares or i.constant]
        constants = constant_names(items)
    plan = UnitPlan(
        context, digest("header", text), keys, digest("check", context, *relevant), constants
    )
    _forget_items()  # a big header's items are tens of MB, held through NVRTC otherwise
    return plan


def _forget_items() -> None:
    """Let the header's items go (remembered for the keys and the check, both done) and hand
    the memory back before NVRTC's compiles."""
    from numbast_import.free_memory import release_free_memory
    from numbast_import.header_items import header_items

    header_items.cache_clear()
    release_free_memory()

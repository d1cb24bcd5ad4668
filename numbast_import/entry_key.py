"""What names a header module's cache entry (its lookup components and their digest), and the
file name its code runs under. Apart from ``numbast_import.build``: a warm import needs these
and nothing of the build (whose imports cost it ~0.7 ms)."""

from __future__ import annotations

from pathlib import Path

from numbast_import.cache.key import lookup_components, lookup_digest
from numbast_import.cache.manifest import BINDINGS
from numbast_import.cache.root import KEYS_DIR
from numbast_import.mapping import HeaderMapping


def entry_key(
    mapping: HeaderMapping, module_name: str, arch: str, root: Path | None = None
) -> tuple[dict, str]:
    """The lookup components and the digest naming ``module_name``'s entry for ``arch``
    (``root``: the cache root, where the generator's fingerprint is remembered)."""
    options = {k: v for k, v in mapping.static_mapping(arch).items() if k != "GPU Arch"}
    if mapping.uses:
        options["uses"] = list(mapping.uses)
    if mapping.nvrtc_options:
        options["nvrtc-options"] = list(mapping.nvrtc_options)
    if mapping.default_device is not None:
        options["default-device"] = mapping.default_device
    components = lookup_components(
        module_name,
        mapping.header,
        options,
        arch,
        mapping.bypass_parse_error,
        memo_dir=None if root is None else root / KEYS_DIR,
    )
    return components, lookup_digest(components)


def bindings_filename(entry_dir: Path | None, module_name: str) -> str:
    """The file name a module's code runs under: its entry's ``bindings.py``, or, for an entry
    built in memory, a name tracebacks find in ``linecache``."""
    if entry_dir is not None:
        return str(entry_dir / BINDINGS)
    return f"<numbast-import: {module_name}, built in memory>"

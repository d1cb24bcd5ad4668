"""The current project's view of the cache, for ``numbast-cache``: which entries belong to
one of its modules, what key a module has now and why an entry would miss, and which entries
are stale.

Entries are shared by every project on the machine (the key names the header, not the
project), so "the project's entries of my_lib" are those whose module is ``cuda_headers.my_lib``
and whose header is the file the project maps to that name now.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

from numbast_import.cache.inventory import Record
from numbast_import.cache.key import component_differences, included_file_differences
from numbast_import.config import ProjectConfig
from numbast_import.entry_key import entry_key
from numbast_import.errors import HeaderImportError
from numbast_import.finder import BUILTIN_PACKAGE, USER_PACKAGE, resolve_mapping
from numbast_import.mapping import HeaderMapping


def qualified(name: str) -> tuple[str, str]:
    """(package, short name) of a module named with or without its package."""
    for package in (BUILTIN_PACKAGE, USER_PACKAGE):
        if name.startswith(package + "."):
            return package, name[len(package) + 1 :]
    return USER_PACKAGE, name


@dataclass(frozen=True)
class Module:
    """A module name resolved in the current project."""

    fullname: str
    mapping: HeaderMapping

    def owns(self, record: Record) -> bool:
        if record.kind != "header" or record.manifest is None:
            return False
        return record.name == self.fullname and record.header == os.path.realpath(
            self.mapping.header
        )

    def current_key(self, arch: str) -> tuple[dict[str, Any], str]:
        return entry_key(self.mapping, self.fullname, arch)


def resolve(name: str, project: ProjectConfig) -> Module:
    """The module ``name`` maps to in ``project`` (or registered, or built in); raises
    HeaderImportError when it is not mapped or its mapping is broken."""
    package, short = qualified(name)
    return Module(f"{package}.{short}", resolve_mapping(package, short, project))


def miss_reasons(record: Record, components: dict[str, Any]) -> list[str]:
    """Why ``record`` would not be hit by a lookup with ``components`` (empty: a hit)."""
    assert record.manifest is not None
    reasons = component_differences(record.manifest["key"], components)
    return reasons + included_file_differences(
        record.manifest["included_files"], record.manifest.get("included_stamps")
    )


def stale_reason(record: Record, project: ProjectConfig, current_arch: str | None) -> str | None:
    """Why a header entry can no longer be used, or None. Stale: damaged; a file it was built
    from changed or is gone; or it is an entry of one of the project's modules that the
    module's current key no longer names (its options, the toolkit or a package version
    changed, or it is for another arch than the one imports use now)."""
    if record.problems:
        return "damaged: " + "; ".join(record.problems)
    if record.obsolete:
        return "written in an earlier format, which no lookup reads"
    if record.kind != "header" or record.manifest is None:
        return None
    changed = included_file_differences(
        record.manifest["included_files"], record.manifest.get("included_stamps")
    )
    if changed:
        return "; ".join(changed)
    try:
        module = resolve(record.name, project)
    except HeaderImportError:
        return None  # not one of this project's modules: only its files can make it stale
    if not module.owns(record) or record.arch is None:
        return None
    if current_arch is not None and record.arch != current_arch:
        return f"built for {record.arch}; imports use {current_arch} now"
    components, _digest = module.current_key(record.arch)
    reasons = component_differences(record.manifest["key"], components)
    return "; ".join(reasons) or None

"""The user's header mappings: ``[tool.numbast-import]`` in their pyproject.toml.

Where the file is: the first ``pyproject.toml`` found walking up from the current working
directory (as ruff and black find theirs), so ``import cuda_headers.x`` means the same thing
anywhere inside a project. Reading it is cheap (no clang, no Numba): the finder does it in
``find_spec``; turning a mapping into a static-binding config happens only when the module is
loaded.

The table form of a header takes the static generator's config keys in kebab-case
(``KEBAB_TO_STATIC``); they are handed to ``numbast.static.config.config_from_mapping`` so that
both entry points validate and normalize options the same way.
"""

from __future__ import annotations

import hashlib
import os
import re
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

DOCS = "docs/import_system.md"
TABLE = "tool.numbast-import"

# [tool.numbast-import] keys, with what each holds (for error messages).
PROJECT_KEYS = {
    "arch": "the GPU arch to generate for, such as 'sm_90'",
    "include-dirs": "include directories for every header",
    "cache-dir": "where the cache lives",
    "headers": "the table of module name -> header",
}

# Kebab-case table keys -> the static generator's YAML key (a path for nested keys).
KEBAB_TO_STATIC: dict[str, tuple[str, ...]] = {
    "retain": ("File List",),
    "name": ("Name",),
    "version": ("Version",),
    "types": ("Types",),
    "data-models": ("Data Models",),
    "exclude-functions": ("Exclude", "Function"),
    "exclude-structs": ("Exclude", "Struct"),
    "include-dirs": ("Clang Include Paths",),
    "additional-imports": ("Additional Import",),
    "shim-include-override": ("Shim Include Override",),
    "defines": ("Predefined Macros",),
    "cooperative-launch-required-functions-regex": ("Cooperative Launch Required Functions Regex",),
    "function-prefix-removal": ("API Prefix Removal", "Function"),
    "struct-prefix-removal": ("API Prefix Removal", "Struct"),
    "enum-prefix-removal": ("API Prefix Removal", "Enum"),
    "module-setup-callback": ("Module Callbacks", "setup"),
    "module-teardown-callback": ("Module Callbacks", "teardown"),
    "skip-prefix": ("Skip Prefix",),
    "use-separate-registry": ("Use Separate Registry",),
    "function-argument-intents": ("Function Argument Intents",),
}
HEADER_KEYS = {"header", "sha256", *KEBAB_TO_STATIC}
_ARCH_RE = re.compile(r"^sm_[0-9]+[a-z]?$")
_MODULE_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


class ImportConfigError(ValueError):
    """A ``[tool.numbast-import]`` setting that cannot be used; the message names the file, the
    key and the fix."""


@dataclass(frozen=True)
class HeaderMapping:
    """One mapped header: ``module`` is the name under its package (``my_lib`` for
    ``cuda_headers.my_lib``); ``options`` are static-config keys (paths still relative to
    ``base_dir``), with no ``GPU Arch``: the arch is chosen when the module is loaded."""

    module: str
    header: str
    options: dict[str, Any]
    base_dir: str
    source: str
    sha256: str | None = None
    arch: str | None = None
    cache_dir: str | None = None

    def static_mapping(self, arch: str) -> dict[str, Any]:
        """The static-binding config mapping for ``arch``, with absolute paths."""
        raw = dict(self.options)
        raw["GPU Arch"] = [arch]
        raw["Entry Point"] = _absolute(self.base_dir, raw["Entry Point"])
        raw["File List"] = [_absolute(self.base_dir, p) for p in raw["File List"]]
        if raw.get("Clang Include Paths"):
            raw["Clang Include Paths"] = [
                _absolute(self.base_dir, p) for p in raw["Clang Include Paths"]
            ]
        return raw

    def static_config(self, arch: str):
        """The validated :class:`numbast.static.config.StaticConfig` for ``arch``."""
        from numbast.static.config import config_from_mapping

        return config_from_mapping(
            self.static_mapping(arch), base_dir=self.base_dir, source=self.source
        )

    def check_pin(self) -> None:
        """Raise when the header's contents do not match its ``sha256`` pin."""
        if self.sha256 is None:
            return
        try:
            actual = hashlib.sha256(Path(self.header).read_bytes()).hexdigest()
        except OSError as exc:
            raise ImportConfigError(
                f"{self.source}: header {self.header} cannot be read ({exc.strerror}); fix the "
                "path or create the file"
            ) from None
        if actual != self.sha256.lower():
            raise ImportConfigError(
                f"{self.source}: header {self.header} does not match its sha256 pin (pinned "
                f"{self.sha256}, file has {actual}); if the change is intended, set sha256 = "
                f'"{actual}", else restore the header'
            )


@dataclass(frozen=True)
class ProjectConfig:
    """``[tool.numbast-import]`` of one pyproject.toml (or nothing, when there is none)."""

    pyproject: str | None
    arch: str | None = None
    cache_dir: str | None = None
    headers: dict[str, HeaderMapping] = field(default_factory=dict)


def find_pyproject(start: str | os.PathLike[str] | None = None) -> Path | None:
    """The first pyproject.toml in ``start`` (default: the working directory) or a parent."""
    here = Path(start if start is not None else os.getcwd()).resolve()
    for directory in (here, *here.parents):
        candidate = directory / "pyproject.toml"
        if candidate.is_file():
            return candidate
    return None


def load_project_config(pyproject: str | os.PathLike[str] | None = None) -> ProjectConfig:
    """Read ``[tool.numbast-import]`` from ``pyproject`` (default: :func:`find_pyproject`)."""
    path = Path(pyproject) if pyproject is not None else find_pyproject()
    if path is None:
        return ProjectConfig(pyproject=None)
    document = _read_toml(path)
    table = document.get("tool", {}).get("numbast-import")
    if table is None:
        return ProjectConfig(pyproject=str(path))
    return project_config_from_table(table, path)


def project_config_from_table(table: Mapping[str, Any], path: Path) -> ProjectConfig:
    """Validate the ``[tool.numbast-import]`` table read from ``path``."""
    where = f"{path} [{TABLE}]"
    _reject_unknown(table, PROJECT_KEYS, where, "the known keys are " + ", ".join(PROJECT_KEYS))
    base_dir = str(path.parent)
    arch = table.get("arch")
    if arch is not None and not (isinstance(arch, str) and _ARCH_RE.match(arch)):
        raise ImportConfigError(
            f"{where}: arch = {arch!r} is not an arch; write it as sm_<major><minor>, for "
            'example arch = "sm_90"'
        )
    include_dirs = _string_list(table.get("include-dirs", []), where, "include-dirs")
    cache_dir = table.get("cache-dir")
    if cache_dir is not None:
        if not isinstance(cache_dir, str) or not cache_dir:
            raise ImportConfigError(f'{where}: cache-dir must be a path, e.g. cache-dir = ".cache"')
        cache_dir = _absolute(base_dir, os.path.expanduser(cache_dir))
    headers_table = table.get("headers", {})
    if not isinstance(headers_table, Mapping):
        raise ImportConfigError(
            f'{where}: headers must be a table of module name = "path/to/header.cuh"'
        )
    headers = {}
    for module, entry in headers_table.items():
        headers[module] = header_mapping(
            module, entry, base_dir, f"{path} [{TABLE}.headers]", include_dirs
        )
    headers = {name: _with_project(mapping, arch, cache_dir) for name, mapping in headers.items()}
    return ProjectConfig(pyproject=str(path), arch=arch, cache_dir=cache_dir, headers=headers)


def header_mapping(
    module: str,
    entry: Any,
    base_dir: str,
    where: str,
    include_dirs: list[str] | tuple[str, ...] = (),
) -> HeaderMapping:
    """One ``module = "header"`` or ``module = { header = ..., ... }`` entry."""
    if not _MODULE_RE.match(module):
        raise ImportConfigError(
            f"{where}: {module!r} is not a Python module name; rename it to an identifier "
            "(letters, digits and _, not starting with a digit)"
        )
    if isinstance(entry, str):
        entry = {"header": entry}
    if not isinstance(entry, Mapping):
        raise ImportConfigError(
            f'{where}: {module} must be a header path ("include/x.cuh") or a table with a '
            "header key"
        )
    key_where = f"{where} {module}"
    _reject_unknown(
        entry, HEADER_KEYS, key_where, f"the known keys are listed in {DOCS} (kebab-case)"
    )
    header = entry.get("header")
    if not isinstance(header, str) or not header:
        raise ImportConfigError(f'{key_where}: give the header to bind, header = "x.cuh"')
    options: dict[str, Any] = {"Entry Point": header}
    for key, value in entry.items():
        if key in ("header", "sha256"):
            continue
        path = KEBAB_TO_STATIC[key]
        target = options
        for part in path[:-1]:
            target = target.setdefault(part, {})
        target[path[-1]] = value
    retained = options.get("File List") or []
    if not isinstance(retained, list):
        raise ImportConfigError(f'{key_where}: retain must be a list of headers, ["x.cuh"]')
    options["File List"] = [header, *[p for p in retained if p != header]]
    if include_dirs:
        own = options.get("Clang Include Paths") or []
        if not isinstance(own, list):
            raise ImportConfigError(f'{key_where}: include-dirs must be a list, ["include"]')
        options["Clang Include Paths"] = [*own, *[d for d in include_dirs if d not in own]]
    pin = entry.get("sha256")
    if pin is not None and not (isinstance(pin, str) and re.fullmatch(r"[0-9a-fA-F]{64}", pin)):
        raise ImportConfigError(
            f"{key_where}: sha256 must be 64 hex digits (the output of sha256sum {header})"
        )
    return HeaderMapping(
        module=module,
        header=_absolute(base_dir, header),
        options=options,
        base_dir=base_dir,
        source=key_where,
        sha256=pin,
    )


def _with_project(mapping: HeaderMapping, arch: str | None, cache_dir: str | None):
    from dataclasses import replace

    return replace(mapping, arch=arch, cache_dir=cache_dir)


def _reject_unknown(table: Mapping[str, Any], known, where: str, fix: str) -> None:
    unknown = [key for key in table if key not in known]
    if unknown:
        listed = ", ".join(repr(k) for k in unknown)
        raise ImportConfigError(f"{where}: unknown key {listed}; remove or correct it ({fix})")


def _string_list(value: Any, where: str, key: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise ImportConfigError(f'{where}: {key} must be a list of paths, {key} = ["include"]')
    return list(value)


def _absolute(base_dir: str, path: str) -> str:
    return os.path.normpath(os.path.join(base_dir, path))


def _read_toml(path: Path) -> dict[str, Any]:
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - Python 3.10
        import tomli as tomllib
    try:
        with open(path, "rb") as stream:
            return tomllib.load(stream)
    except OSError as exc:
        raise ImportConfigError(f"{path}: cannot be read ({exc.strerror})") from None
    except tomllib.TOMLDecodeError as exc:
        raise ImportConfigError(f"{path}: not valid TOML ({exc}); fix the syntax") from None

"""The user's header mappings: ``[tool.numbast-import]`` in their pyproject.toml.

Which file: ``NUMBAST_IMPORT_CONFIG`` when set; else the first ``pyproject.toml`` that has a
``[tool.numbast-import]`` table, walking up from the working directory (a nested
pyproject.toml without the table is skipped, as ruff skips one without ``[tool.ruff]``).
Reading it is cheap (no clang, no Numba, no jsonschema): the finder does it in ``find_spec``,
and every setting is checked then, so a bad key is reported under its own name before any work
is done. A mapping with problems is recorded as broken and fails only its own import; settings
of the table itself (``arch``, ``include-dirs``, ...) concern every mapping, so their problems
fail every import.
"""

# No ``from __future__ import annotations`` here: typing.NamedTuple would compile a ForwardRef
# for each field of ProjectConfig at every import.
import os
import sys
from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Any, NamedTuple

from numbast_import.arch import ARCH_RE
from numbast_import.errors import ImportConfigError
from numbast_import.mapping import (
    DOCS,
    KEBAB_TO_STATIC,
    HeaderMapping,
    header_mapping,
    problems_message,
)

__all__ = [
    "CONFIG_ENV",
    "DOCS",
    "KEBAB_TO_STATIC",
    "TABLE",
    "HeaderMapping",
    "ImportConfigError",
    "ProjectConfig",
    "find_pyproject",
    "header_mapping",
    "load_project_config",
]

TABLE = "tool.numbast-import"
CONFIG_ENV = "NUMBAST_IMPORT_CONFIG"

# [tool.numbast-import] keys, with what each holds (for error messages).
PROJECT_KEYS = {
    "arch": "the GPU arch to generate for when no GPU can be asked, such as 'sm_90'",
    "include-dirs": "include directories for every header",
    "cache-dir": "where the cache lives",
    "headers": "the table of module name -> header",
}


class ProjectConfig(NamedTuple):
    """``[tool.numbast-import]`` of one pyproject.toml (or nothing, when there is none).
    ``broken`` holds, per module name, the message of a mapping that cannot be used. (A named
    tuple, as ``HeaderMapping``: every import through the finder defines it.)"""

    pyproject: str | None
    arch: str | None = None
    cache_dir: str | None = None
    headers: Mapping[str, HeaderMapping] = MappingProxyType({})
    broken: Mapping[str, str] = MappingProxyType({})
    # How the file was found, for messages when a name is not mapped.
    searched_from: str | None = None

    def names(self) -> list[str]:
        return sorted({*self.headers, *self.broken})


def find_pyproject(start: str | os.PathLike[str] | None = None) -> Path | None:
    """The first pyproject.toml with a ``[tool.numbast-import]`` table in ``start`` (default:
    the working directory) or a parent, else None."""
    here = Path(start if start is not None else os.getcwd()).resolve()
    for directory in (here, *here.parents):
        candidate = directory / "pyproject.toml"
        if candidate.is_file() and _table_of(candidate) is not None:
            return candidate
    return None


def load_project_config(pyproject: str | os.PathLike[str] | None = None) -> ProjectConfig:
    """Read ``[tool.numbast-import]`` from ``pyproject``, else from the file named by
    ``NUMBAST_IMPORT_CONFIG``, else from :func:`find_pyproject`'s."""
    if pyproject is None:
        from_env = os.environ.get(CONFIG_ENV, "").strip()
        if from_env:
            pyproject = _from_environment(from_env)
    if pyproject is None:
        path = find_pyproject()
        if path is None:
            return ProjectConfig(pyproject=None, searched_from=os.getcwd())
        # Found, not named: its Python expressions (module callbacks, additional imports) would
        # run in your import, so it must be a file only you (or root) can change.
        _refuse_untrusted(path)
    else:
        path = Path(pyproject).resolve()
    table = _table_of(path)
    if table is None:
        return ProjectConfig(pyproject=str(path))
    return project_config_from_table(table, path)


def _refuse_untrusted(path: Path) -> None:
    from ast_canopy.cache_files import unsafe_reason

    for place, sticky_ok in ((path, False), (path.parent, True)):
        try:
            problem = unsafe_reason(os.stat(place), shared=True, sticky_ok=sticky_ok)
        except OSError:
            continue
        if problem:
            raise ImportConfigError(
                f"{path}: not read, because {place} is not safe to trust: {problem}. Its "
                "module callbacks and additional imports are Python that would run in your "
                f"import, and others can change them. If you trust it, name it explicitly: "
                f"{CONFIG_ENV}={path} (or numbast-cache --config {path}); or make it yours "
                f"and not writable by others (chmod go-w)"
            )


def _from_environment(value: str) -> Path:
    path = Path(value).expanduser()
    if path.is_dir():
        path = path / "pyproject.toml"
    if not path.is_file():
        raise ImportConfigError(
            f"{CONFIG_ENV}={value!r} names no file ({path} does not exist); point it at your "
            "pyproject.toml, or unset it to use the one found from the working directory"
        )
    return path.resolve()


def project_config_from_table(table: Mapping[str, Any], path: Path) -> ProjectConfig:
    """Validate the ``[tool.numbast-import]`` table read from ``path``. Problems of the table's
    own keys raise ImportConfigError; a bad mapping is recorded in ``broken``."""
    where = f"{path} [{TABLE}]"
    base_dir = str(path.parent)
    problems = _project_problems(table, base_dir)
    if problems:
        raise ImportConfigError(problems_message(where, problems))
    arch = table.get("arch")
    include_dirs = list(table.get("include-dirs", []))
    cache_dir = table.get("cache-dir")
    if cache_dir is not None:
        cache_dir = os.path.normpath(os.path.join(base_dir, os.path.expanduser(cache_dir)))
    headers: dict[str, HeaderMapping] = {}
    broken: dict[str, str] = {}
    for module, entry in table.get("headers", {}).items():
        try:
            mapping = header_mapping(
                module, entry, base_dir, f"{path} [{TABLE}.headers]", include_dirs, str(path)
            )
        except ImportConfigError as exc:
            broken[module] = str(exc)
            continue
        headers[module] = mapping._replace(arch=arch, cache_dir=cache_dir)
    return ProjectConfig(
        pyproject=str(path), arch=arch, cache_dir=cache_dir, headers=headers, broken=broken
    )


def _project_problems(table: Mapping[str, Any], base_dir: str) -> list[str]:
    problems = [
        f"unknown key {key!r}; remove or correct it (the known keys are "
        + ", ".join(PROJECT_KEYS)
        + ")"
        for key in table
        if key not in PROJECT_KEYS
    ]
    arch = table.get("arch")
    if arch is not None and not (isinstance(arch, str) and ARCH_RE.fullmatch(arch)):
        problems.append(
            f'arch = {arch!r} is not an arch; write it as sm_<major><minor>, e.g. arch = "sm_90"'
        )
    include_dirs = table.get("include-dirs", [])
    if not isinstance(include_dirs, list) or not all(
        isinstance(d, str) and d for d in include_dirs
    ):
        problems.append(
            f"include-dirs = {include_dirs!r} is not a list of directories; write "
            'include-dirs = ["include"]'
        )
    else:
        for i, directory in enumerate(include_dirs):
            resolved = os.path.normpath(os.path.join(base_dir, os.path.expanduser(directory)))
            if not os.path.isdir(resolved):
                problems.append(
                    f"include-dirs[{i}]: directory {directory!r} does not exist (resolved to "
                    f"{resolved}); fix the path (relative to the pyproject.toml's directory)"
                )
    cache_dir = table.get("cache-dir")
    if cache_dir is not None and not (isinstance(cache_dir, str) and cache_dir):
        problems.append(f'cache-dir = {cache_dir!r} is not a path; write cache-dir = ".cache"')
    if not isinstance(table.get("headers", {}), Mapping):
        problems.append('headers must be a table of module name = "path/to/header.cuh"')
    return problems


def _table_of(path: Path) -> Mapping[str, Any] | None:
    tool = _read_toml(path).get("tool", {})
    table = tool.get("numbast-import") if isinstance(tool, Mapping) else None
    if table is not None and not isinstance(table, Mapping):
        raise ImportConfigError(f"{path}: [{TABLE}] must be a table ({DOCS})")
    return table


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

"""The meta-path finder for ``cuda_headers.<name>`` (the user's pyproject.toml mappings) and
``numbast.headers.<name>`` (built-in mappings of toolkit headers).

``find_spec`` only resolves the mapping (a TOML read); parsing, rendering and compiling happen
in the loader's ``exec_module``.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import importlib.util
import sys
from dataclasses import replace

from numbast_import.config import HeaderMapping, ProjectConfig, load_project_config

USER_PACKAGE = "cuda_headers"
BUILTIN_PACKAGE = "numbast.headers"


class HeaderModuleFinder(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname: str, path=None, target=None):
        package, _, name = fullname.rpartition(".")
        if package not in (USER_PACKAGE, BUILTIN_PACKAGE):
            return None
        project = load_project_config()
        mapping = resolve_mapping(package, name, project)
        from numbast_import.loader import HeaderModuleLoader

        return importlib.util.spec_from_loader(
            fullname, HeaderModuleLoader(mapping), origin=mapping.header
        )


def resolve_mapping(package: str, name: str, project: ProjectConfig) -> HeaderMapping:
    """The mapping behind ``package.name``; ModuleNotFoundError listing the known names."""
    if package == BUILTIN_PACKAGE:
        from numbast_import.builtin_headers import BUILTIN_HEADERS, builtin_mapping

        if name in BUILTIN_HEADERS:
            mapping = builtin_mapping(name)
            # The project's arch pin and cache-dir apply to built-in modules too.
            return replace(mapping, arch=project.arch, cache_dir=project.cache_dir)
        known = ", ".join(sorted(BUILTIN_HEADERS))
        raise ModuleNotFoundError(
            f"No module named '{package}.{name}': the built-in header modules are {known}",
            name=f"{package}.{name}",
        )
    mapping = project.headers.get(name)
    if mapping is not None:
        return mapping
    if project.pyproject is None:
        where = "no pyproject.toml was found in the working directory or its parents"
    elif not project.headers:
        where = f"{project.pyproject} maps no headers under [tool.numbast-import.headers]"
    else:
        where = f"{project.pyproject} [tool.numbast-import.headers] maps " + ", ".join(
            sorted(project.headers)
        )
    raise ModuleNotFoundError(
        f"No module named '{package}.{name}': {where}. Map it there, for example "
        f'{name} = "include/{name}.cuh"',
        name=f"{package}.{name}",
    )


def install() -> None:
    """Put the finder on sys.meta_path, once."""
    if not any(isinstance(f, HeaderModuleFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, HeaderModuleFinder())

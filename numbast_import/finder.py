"""The meta-path finder for ``cuda_headers.<name>`` (mappings from ``register()`` and from the
user's pyproject.toml) and ``numbast.headers.<name>`` (built-in mappings of toolkit headers).

``find_spec`` only resolves the mapping (a TOML read); everything else (the device query, the
cache, parsing, rendering, compiling, running) is the loader's ``exec_module``. Both packages
are virtual namespaces owned by this finder: a name that cannot be imported (not mapped, or
mapped badly) still gets a spec, whose loader raises the reason, so that the user sees it as the
import's error without frames of ours (see ``loader``).
"""

from __future__ import annotations

import importlib.abc
import importlib.util
import sys
from collections.abc import Iterable, Mapping

from numbast_import.config import TABLE, ProjectConfig, load_project_config
from numbast_import.errors import HeaderImportError, HeaderNotMappedError, ImportConfigError
from numbast_import.mapping import HeaderMapping

USER_PACKAGE = "cuda_headers"
BUILTIN_PACKAGE = "numbast.headers"
PACKAGES = (USER_PACKAGE, BUILTIN_PACKAGE)


class HeaderModuleFinder(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname: str, path=None, target=None):
        package, _, name = fullname.rpartition(".")
        if package not in PACKAGES:
            return None
        from numbast_import.loader import FailedHeaderLoader, HeaderModuleLoader

        try:
            mapping = resolve_mapping(package, name, load_project_config())
        except HeaderImportError as error:
            return importlib.util.spec_from_loader(fullname, FailedHeaderLoader(error))
        return importlib.util.spec_from_loader(
            fullname, HeaderModuleLoader(mapping), origin=mapping.header
        )


def resolve_mapping(package: str, name: str, project: ProjectConfig) -> HeaderMapping:
    """The mapping behind ``package.name``: registered, else the project's, else built in.
    Raises ImportConfigError for a bad mapping and HeaderNotMappedError for an unknown name."""
    if not name.isidentifier():
        raise _not_mapped(
            f"No module named '{package}.{name}': {name!r} is not a module name that can be "
            "mapped; header modules are named by Python identifiers (letters, digits and _, "
            f"not starting with a digit), such as {package}.my_lib"
        )
    if package == BUILTIN_PACKAGE:
        from numbast_import.builtin_headers import BUILTIN_HEADERS, builtin_mapping

        if name in BUILTIN_HEADERS:
            # The project's arch pin and cache-dir apply to built-in modules too.
            return builtin_mapping(name)._replace(arch=project.arch, cache_dir=project.cache_dir)
        known = ", ".join(sorted(BUILTIN_HEADERS))
        builtins = {b: f"{BUILTIN_PACKAGE}.{b}" for b in BUILTIN_HEADERS}
        raise _not_mapped(
            f"No module named '{package}.{name}'{_did_you_mean(name, builtins)}: the "
            f"built-in header modules are {known}"
        )
    from numbast_import.registry import registered, registered_names

    mapping = registered(name)
    if mapping is not None:
        # A mapping pickled elsewhere keeps that project's arch pin where this one has none.
        arch = project.arch or mapping.arch
        return mapping._replace(arch=arch, cache_dir=project.cache_dir)
    mapping = project.headers.get(name)
    if mapping is not None:
        return mapping
    if name in project.broken:
        raise ImportConfigError(f"cannot import {package}.{name}: {project.broken[name]}")
    from numbast_import.builtin_headers import BUILTIN_HEADERS

    known = {n: n for n in (*project.names(), *registered_names())}
    for builtin in BUILTIN_HEADERS:  # `cufp16` for `numbast.headers.cufp16`
        known.setdefault(builtin, f"{BUILTIN_PACKAGE}.{builtin}")
    raise _not_mapped(
        f"No module named '{package}.{name}'{_did_you_mean(name, known)}: "
        f"{_what_is_mapped(project, registered_names())}. "
        f"Map it under [{TABLE}.headers] in pyproject.toml, for example "
        f'{name} = "include/{name}.cuh", or call numbast_import.register("{name}", '
        f'"include/{name}.cuh")'
    )


def _did_you_mean(name: str, known: Mapping[str, str] | Iterable[str]) -> str:
    """The suggestion ``(did you mean 'x'?)`` for the closest of ``known`` (a name, or a name -> how
    to write it), or ""."""
    import difflib  # only on this error path: a warm import does not pay for it (~0.7 ms)

    spelled = known if isinstance(known, Mapping) else {k: k for k in known}
    close = difflib.get_close_matches(name, list(spelled), n=1, cutoff=0.6)
    return f" (did you mean {spelled[close[0]]!r}?)" if close else ""


def _not_mapped(message: str) -> HeaderNotMappedError:
    # name=None: importlib silently drops a ModuleNotFoundError naming the module from
    # `from cuda_headers import x`, and would replace this message with a vaguer one.
    return HeaderNotMappedError(message, name=None)


def _what_is_mapped(project: ProjectConfig, registered: list[str]) -> str:
    if project.pyproject is None:
        where = (
            f"no pyproject.toml with a [{TABLE}] table was found in {project.searched_from} or "
            "its parents"
        )
    elif not project.names():
        where = f"{project.pyproject} maps no headers under [{TABLE}.headers]"
    else:
        where = f"{project.pyproject} [{TABLE}.headers] maps " + ", ".join(project.names())
    if registered:
        where += "; numbast_import.register() mapped " + ", ".join(registered)
    return where


def install() -> None:
    """Put the finder on sys.meta_path, once."""
    if not any(isinstance(f, HeaderModuleFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, HeaderModuleFinder())

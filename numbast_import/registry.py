"""Mappings made in code, for notebooks and scripts: ``numbast_import.register("name",
"path.cuh", **options)``, then ``import cuda_headers.name``.

The options are those of the table form in pyproject.toml, under the same kebab-case names or
with underscores (``exclude_functions=[...]``); relative paths are taken from the working
directory at the time of the call. A registered name takes precedence over the same name in
pyproject.toml; the project's ``arch`` pin and ``cache-dir`` still apply.
"""

from __future__ import annotations

import logging
import os
import sys
from typing import Any

from numbast_import.errors import ImportConfigError
from numbast_import.mapping import HeaderMapping, header_mapping

logger = logging.getLogger(__name__)

PACKAGE = "cuda_headers"
_registered: dict[str, HeaderMapping] = {}


def register(name: str, header: str | os.PathLike[str], **options: Any) -> None:
    """Map ``cuda_headers.<name>`` to ``header`` in this process, with the options of the
    pyproject table form (``retain=[...]``, ``defines=[...]``, ``exclude_functions=[...]``).

    Raises ImportConfigError, naming the option and the fix, when an option cannot be used.
    """
    short = name[len(PACKAGE) + 1 :] if name.startswith(PACKAGE + ".") else name
    caller = sys._getframe(1)
    where = f"numbast_import.register({short!r}, ...) at {caller.f_code.co_filename}"
    where += f":{caller.f_lineno}"
    entry = {key.replace("_", "-"): value for key, value in options.items()}
    if "header" in entry:
        raise ImportConfigError(f"{where}: give the header once, as the second argument")
    entry["header"] = os.fspath(header)
    mapping = header_mapping(short, entry, os.getcwd(), PACKAGE, source=where)
    mapping = mapping._replace(registered={"header": os.fspath(header), **options})
    previous = _registered.get(short)
    if previous is not None and previous != mapping and f"{PACKAGE}.{short}" in sys.modules:
        logger.warning(
            "numbast-import: %s.%s is already imported; the new mapping applies to later "
            "imports (importlib.reload(%s.%s) rebuilds it now)",
            PACKAGE,
            short,
            PACKAGE,
            short,
        )
    _registered[short] = mapping


def unregister(name: str) -> None:
    """Forget a mapping made with :func:`register` (modules already imported stay)."""
    short = name[len(PACKAGE) + 1 :] if name.startswith(PACKAGE + ".") else name
    if _registered.pop(short, None) is None:
        raise KeyError(f"{name!r} was not registered with numbast_import.register()")


def receive(mapping: HeaderMapping) -> HeaderMapping | None:
    """Map ``cuda_headers.<mapping.module>`` to ``mapping`` in this process: the mapping of a
    module pickled in another process (``numbast_import.pickling``), which takes precedence as
    ``register()``'s does. Returns the mapping it replaces (for :func:`restore`)."""
    previous = _registered.get(mapping.module)
    _registered[mapping.module] = mapping
    return previous


def restore(name: str, previous: HeaderMapping | None) -> None:
    """Undo :func:`receive`: ``name`` maps to ``previous`` again (None: to nothing here)."""
    if previous is None:
        _registered.pop(name, None)
    else:
        _registered[name] = previous


def registered(name: str) -> HeaderMapping | None:
    return _registered.get(name)


def registered_names() -> list[str]:
    return sorted(_registered)

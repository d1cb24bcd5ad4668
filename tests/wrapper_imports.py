"""Import a mapped header in the test process, with a cache of the test's own: the way a user
imports a library through a one-line wrapper header and a ``retain`` list, shared by the tests
of real libraries (a module-scoped fixture imports once for all of a file's tests)."""

from __future__ import annotations

import contextlib
import importlib
import os
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

_SETTINGS = ("NUMBAST_CACHE_DIR", "NUMBAST_IMPORT_ARCH", "NUMBAST_IMPORT_QUIET")


@contextlib.contextmanager
def imported_header(
    name: str, header: str | Path, directory: Path, *, quiet: bool = True, **mapping: Any
) -> Iterator[ModuleType]:
    """``import cuda_headers.<name>`` for ``header`` mapped with ``mapping`` (the table form's
    keys, with ``_``), cached under ``directory``; forgotten again afterwards. ``quiet``: with
    NUMBAST_IMPORT_QUIET=1."""
    from conftest import cuda_device_available

    import numbast_import

    saved = {key: os.environ.get(key) for key in _SETTINGS}
    os.environ["NUMBAST_CACHE_DIR"] = str(directory / "cache")
    if quiet:
        os.environ["NUMBAST_IMPORT_QUIET"] = "1"
    else:
        os.environ.pop("NUMBAST_IMPORT_QUIET", None)
    if not cuda_device_available():
        os.environ["NUMBAST_IMPORT_ARCH"] = "sm_90"  # no GPU to ask
    retain = mapping.get("retain")
    if retain is not None:  # the mapping takes strings, as pyproject.toml holds them
        mapping["retain"] = [str(path) for path in retain]
    numbast_import.register(name, str(header), **mapping)
    try:
        yield importlib.import_module(f"cuda_headers.{name}")
    finally:
        numbast_import.unregister(name)
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def wrapper_header(directory: Path, name: str, includes: list[str]) -> Path:
    """A header of ``#include`` lines (the one-line wrapper a user writes) in ``directory``."""
    path = directory / f"{name}.cuh"
    path.write_text("".join(f"#include <{include}>\n" for include in includes))
    return path

"""Header modules pickle as their mapping, so that kernels using them run in other processes.

A kernel that calls ``my_lib.dot`` pickles (numba-cuda's dispatcher reduces to its Python
function, which cloudpickle takes by value from ``__main__``) with the module among its
globals, and cloudpickle writes modules by reference: the other process imports
``cuda_headers.my_lib`` again. On a Dask worker started elsewhere there is no pyproject.toml to
map that name, and a header reached there may not be the one the kernel was written against.
So a header module is a :class:`HeaderModule`, which pickles as what defines it: its name, its
mapping (header path, options; ``None`` for a built-in module, whose mapping the other process
has), the sha256 of its header, and one digest over the contents of every file its parse read.

Unpickling (:func:`import_pickled`) gives the same bindings, or a stand-in whose first use
raises an ImportError saying why, never other bindings: the header the process reaches must
hash as pickled (checked before anything is built), the mapping becomes this process's mapping
of the name (as with ``register()``), the module is imported as usual (a cache hit, a read-only
layer, or a build), and the files its entry was built from must hash as pickled. A module the
process already has is checked, not imported again: a process holds one version of a module.

Objects taken from a module (``from cuda_headers.my_lib import dot``) pickle by reference to
it, which needs the mapping on the other side first: the module itself earlier in the same
pickle, or the ``numbast_import.dask.HeaderModules`` plugin on Dask workers. Class templates,
their instances and function templates pickle as (this module, their name), the module by its
mapping (``numbast.runtime.templates.pickling``); a module finds its instances by name
(``Arr[float32, 3]``), as pickle looks classes up before it takes their reduction.
"""

from __future__ import annotations

import hashlib
import importlib
import logging
import socket
import sys
import types
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from numbast_import.errors import HeaderImportError, PickledHeaderMismatchError
from numbast_import.mapping import HeaderMapping

logger = logging.getLogger(__name__)

FORMAT = 1
BUILTIN_PREFIX = "numbast.headers."
# Settings of the pickling process that are not part of the mapping: the receiving process's
# own environment chooses its cache (NUMBAST_CACHE_DIR, its project's cache-dir).
_NOT_PICKLED = ("cache_dir",)


class ModuleOrigin:
    """What a loaded header module was made from: its mapping, the sha256 of its header and of
    every file its cache entry was built from (path -> sha256, the header among them). A plain
    class: every warm import defines it, and a dataclass costs ~0.5 ms to define."""

    __slots__ = ("mapping", "header_sha256", "included_files", "_files_digest")

    def __init__(
        self, mapping: HeaderMapping, header_sha256: str, included_files: Mapping[str, str]
    ) -> None:
        self.mapping = mapping
        self.header_sha256 = header_sha256
        self.included_files = included_files
        self._files_digest: str | None = None

    def __repr__(self) -> str:
        return f"ModuleOrigin({self.mapping.module!r}, header_sha256={self.header_sha256!r})"

    @property
    def files_digest(self) -> str:
        """One digest over the contents of the included files, whatever their paths."""
        if self._files_digest is None:
            self._files_digest = files_digest(self.included_files.values())
        return self._files_digest


class HeaderModule(types.ModuleType):
    """An imported header module (``cuda_headers.x``, ``numbast.headers.x``): it pickles as
    its mapping and digests (see the module docstring)."""

    __numbast_origin__: ModuleOrigin

    def __reduce__(self) -> tuple[Any, tuple[dict[str, Any]]]:
        return import_pickled, (pickled_state(self),)

    def __getattr__(self, name: str) -> Any:
        # ``Arr[float32, 3]``: an instance of the module's class template Arr made in this
        # process. pickle and cloudpickle look a class up by module and name before they take
        # its reduction (numbast.runtime.templates.pickling: the template subscripted again).
        template, bracket, _rest = name.partition("[")
        if bracket:
            instances = getattr(self.__dict__.get(template), "instances", None)
            if isinstance(instances, dict):
                for instance in instances.values():
                    if instance.__qualname__ == name:
                        return instance
        raise AttributeError(f"module {self.__name__!r} has no attribute {name!r}")


def adopt(module: types.ModuleType, mapping: HeaderMapping, manifest: Mapping[str, Any]) -> None:
    """Make ``module`` a HeaderModule made from ``mapping`` and what its cache entry's
    ``manifest`` records. Called by the loader before the module's code runs."""
    module.__class__ = HeaderModule
    origin = ModuleOrigin(mapping, manifest["key"]["header_sha256"], manifest["included_files"])
    module.__numbast_origin__ = origin


def files_digest(digests: Iterable[str]) -> str:
    return hashlib.sha256("\n".join(sorted(digests)).encode()).hexdigest()


def pickled_state(module: types.ModuleType) -> dict[str, Any]:
    """The plain data a header module pickles as."""
    origin: ModuleOrigin = module.__numbast_origin__
    mapping = None
    if not module.__name__.startswith(BUILTIN_PREFIX):
        mapping = {k: v for k, v in origin.mapping._asdict().items() if k not in _NOT_PICKLED}
    return {
        "format": FORMAT,
        "name": module.__name__,
        "mapping": mapping,
        "header_sha256": origin.header_sha256,
        "files_digest": origin.files_digest,
        "host": socket.gethostname(),
    }


def import_pickled(state: Mapping[str, Any]) -> types.ModuleType:
    """The module ``state`` describes, imported in this process (see the module docstring).

    Never raises for a module that cannot be had with the same bindings: it returns an
    :class:`UnavailableHeaderModule` whose first use raises why (PickledHeaderMismatchError, or
    the import's own error). Dask unpickles tasks in its communication layer, where an exception
    breaks the worker's connection instead of failing the task; raised where the module is
    first used (compiling the kernel), it fails the task, and the client sees it."""
    try:
        return _import_pickled(state)
    except HeaderImportError as error:
        logger.warning("%s", error)
        return UnavailableHeaderModule(str(state.get("name")), error, state)


def _import_pickled(state: Mapping[str, Any]) -> types.ModuleType:
    if state.get("format") != FORMAT:
        raise PickledHeaderMismatchError(
            f"cannot unpickle header module {state.get('name')!r}: it was pickled by another "
            f"version of numbast-import (format {state.get('format')!r}; this one reads "
            f"{FORMAT}); install the same numbast-import on every machine"
        )
    loaded = sys.modules.get(state["name"])
    if isinstance(loaded, HeaderModule):
        _check_loaded(loaded, state)
        return loaded
    mapping = mapping_here(state)
    _check_header(mapping, state)
    if state["mapping"] is None:  # built in: this process maps it already
        module = importlib.import_module(state["name"])
        _check_loaded(module, state)
        return module
    from numbast_import.registry import receive, restore

    previous = receive(mapping)
    try:
        module = importlib.import_module(state["name"])
        _check_loaded(module, state)
    except HeaderImportError:
        # Not other bindings under this name, for what pickles by reference to it later.
        restore(mapping.module, previous)
        _forget(state["name"])
        raise
    return module


def _forget(name: str) -> None:
    """Take the module ``name`` out of this process (the import system's record of it)."""
    module = sys.modules.pop(name, None)
    package, _, short = name.rpartition(".")
    parent = sys.modules.get(package)
    if module is not None and getattr(parent, short, None) is module:
        delattr(parent, short)


class UnavailableHeaderModule(types.ModuleType):
    """What a pickled header module unpickles as where it cannot be imported with the same
    bindings: using any of its names raises the reason. It pickles as the original did."""

    def __init__(self, name: str, error: HeaderImportError, state: Mapping[str, Any]) -> None:
        super().__init__(name)
        self.__numbast_error__ = error
        self.__numbast_state__ = dict(state)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)  # introspection (copy, inspect) is not a use
        raise self.__numbast_error__.with_traceback(None) from None

    def __reduce__(self) -> tuple[Any, tuple[dict[str, Any]]]:
        return import_pickled, (self.__numbast_state__,)


def mapping_here(state: Mapping[str, Any]) -> HeaderMapping:
    """The mapping to import ``state`` with: the pickled one, or the built-in one of this
    process (with its toolkit's include directory)."""
    name = state["name"]
    if state["mapping"] is None:
        from numbast_import.builtin_headers import builtin_mapping

        return builtin_mapping(name[len(BUILTIN_PREFIX) :])
    fields = dict(state["mapping"])
    fields["uses"] = tuple(fields.get("uses") or ())
    mapping = HeaderMapping(**fields)
    return mapping._replace(source=f"{mapping.source} (pickled on {state['host']})")


def _check_header(mapping: HeaderMapping, state: Mapping[str, Any]) -> None:
    name, host, pickled = state["name"], state["host"], state["header_sha256"]
    header = Path(mapping.header)
    try:
        actual = hashlib.sha256(header.read_bytes()).hexdigest()
    except OSError as exc:
        raise PickledHeaderMismatchError(
            f"cannot import {name} as pickled on {host}: its header {header} cannot be read "
            f"here ({exc.strerror}). Give this machine the same header at the same path (a "
            "shared filesystem, or the same package installed)"
        ) from None
    if actual != pickled:
        raise PickledHeaderMismatchError(
            f"cannot import {name} as pickled on {host}: its header {header} has sha256 "
            f"{actual} here, but the pickled module was built from {pickled}. The header was "
            "edited after the module was imported there, or this machine has another version "
            "of it: give both the same header, then import the module again there "
            "(importlib.reload) before sending the work"
        )


def _check_loaded(module: HeaderModule, state: Mapping[str, Any]) -> None:
    origin = module.__numbast_origin__
    name, host, pickled = state["name"], state["host"], state["header_sha256"]
    if origin.header_sha256 != pickled:
        raise PickledHeaderMismatchError(
            f"cannot use {name} as pickled on {host}: this process imported it from a header "
            f"with sha256 {origin.header_sha256} ({origin.mapping.header}), and the pickled "
            f"module was built from {pickled}. A process holds one version of a module: "
            "restart it (Dask: client.restart()) to use the other"
        )
    if origin.files_digest != state["files_digest"]:
        raise PickledHeaderMismatchError(
            f"cannot use {name} as pickled on {host}: its header is the same, but of the "
            f"{len(origin.included_files)} files the header's parse read here (the CUDA "
            "toolkit's headers, libclang's, included headers of yours) some differ from those "
            "the pickled module was built from. Install the same versions on every machine; "
            f"`numbast-cache show {name}` lists the files on each"
        )

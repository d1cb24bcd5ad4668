"""What a cached kernel linked (``kernel_cache``): the live ShimLibraries of this process by
identity, the records of a kernel's link objects (bindings, ``link=`` files, in-memory
``link=`` code) made when it is saved, and, when it is loaded, the records checked against this
process and the live link objects and their Module Callbacks put back into its code library.
It imports numba-cuda and the standard library only.
"""

from __future__ import annotations

import os
import weakref
from collections.abc import Sequence
from typing import Any

from .state import LOCK, shared_table


class Lasting(str):
    """Why a cached kernel is not used, where the reason holds in every process (it is warned
    about once rather than logged)."""


# Shared by every copy of the runtime in a process (see state.py): the live ShimLibraries by
# identity (weak references: a library is not kept alive for a cache).
# What an entry must offer, whichever copy made it: link_object(), shim_names() and
# cache_token(shim_names), and where its shims are linked in several objects (units),
# link_objects() and link_objects_for(shim_names); a copy that changes that contract must use
# new table names.
_LIBRARIES: dict[str, list] = shared_table("kernel_cache_libraries", dict)


def _digests() -> Any:
    """``link_digests``, imported when a kernel is saved or loaded: a warm import only tracks
    its library (a generated module's has a name)."""
    from . import link_digests

    return link_digests


def library_identity(library: Any, name: str | None) -> str:
    """What names a ShimLibrary in every process: its given name (a generated module's), else
    its preamble (a dynamic shim writer: the header it includes)."""
    return name if name else "preamble " + _digests().digest(library.preamble)[:20]


def remember_library(identity: str, library: Any) -> None:
    """Let cached kernels find ``library`` (a ShimLibrary) under ``identity``."""
    with LOCK:
        alive = [ref for ref in _LIBRARIES.get(identity, ()) if ref() is not None]
        alive.append(weakref.ref(library))
        _LIBRARIES[identity] = alive


def describe_links(library: Any, link_option: Sequence, nrt: Any) -> tuple | str:
    """``(records, setup order, teardown order)`` of what the code library ``library`` links
    besides numba-cuda's runtime (``nrt``, which numba-cuda saves itself), or why it cannot be
    described (a str)."""
    owners = _libraries_by_link_object()
    llvm = "\n".join(library.llvm_strs)
    records: list[tuple] = []
    objects: list[Any] = []  # one per record (a library's units share its callbacks)
    described: set[int] = set()
    for item in library._linking_files:
        if item is nrt:
            continue
        owner = owners.get(id(item))
        if owner is not None:
            identity, bindings = owner
            if id(bindings) in described:  # another unit of a library already recorded
                continue
            described.add(id(bindings))
            names = tuple(sorted(n for n in bindings.shim_names() if n in llvm))
            token = bindings.cache_token(names)
            if token is None:
                return f"a shim of the bindings {identity} is only known once lowered"
            records.append(("bindings", identity, names, token))
        elif isinstance(item, str):
            path = os.path.abspath(item)
            token = _digests().file_digest(path)
            if token is None:
                return f"link file {item} cannot be digested (missing, or a computed #include)"
            records.append(("file", path, token))
        elif any(item is given for given in link_option):
            token = _digests().code_digest(item.kind, item.data)
            if token is None:
                return f"link object {item.name} has a computed #include"
            records.append(("code", item.kind, token))
        else:
            name = getattr(item, "name", repr(item))
            return f"{name} was linked by an extension numbast cannot follow to another process"
        objects.append(item)
    setup = _callback_order(library._setup_functions, objects, "setup_callback")
    teardown = _callback_order(library._teardown_functions, objects, "teardown_callback")
    if setup is None or teardown is None:
        return "a Module Callback belongs to none of the link objects"
    return tuple(records), setup, teardown


def restore_links(library: Any, links: tuple, link_option: Sequence, nrt: Any) -> str | None:
    """Check the records ``links`` against this process and, if they all match, put the live
    link objects and their Module Callbacks back into ``library`` (a code library numba-cuda
    just loaded). Returns why not, or None."""
    records, setup, teardown = links
    objects: list[Any] = []  # one per record: what its callbacks belong to
    linked: list[Any] = []
    for record in records:
        if record[0] == "bindings":
            _kind, identity, names, token = record
            found, problem = _find_library(identity, names, token, link_option)
            if found is None:
                return problem
            units = getattr(found, "link_objects_for", None)
            found_objects = units(names) if units is not None else [found.link_object()]
            objects.append(found_objects[0])
            linked += found_objects[1:]
        elif record[0] == "file":
            _kind, path, token = record
            if _digests().file_digest(path) != token:
                return f"link file {path} changed"
            objects.append(path)
        elif record[0] == "code":
            _kind, code_kind, token = record
            found = _find_code(code_kind, token, link_option, nrt)
            if found is None:
                return f"link= no longer holds the {code_kind} object the kernel linked"
            objects.append(found)
        else:
            return f"an unknown record {record[0]!r}"
    unrecorded = _unrecorded_option(link_option, records, objects, nrt)
    if unrecorded is not None:
        return f"link= holds {unrecorded}, which the cached kernel did not link"
    library._linking_files.update(objects)
    library._linking_files.update(linked)
    library._setup_functions.extend(objects[i].setup_callback for i in setup)
    library._teardown_functions.extend(objects[i].teardown_callback for i in teardown)
    return None


def without_link_files(library: Any, nrt: Any) -> Any:
    """A shallow copy of the code library ``library`` that numba-cuda serializes: its link files
    left out (the records stand for them), its runtime library (``nrt``) kept."""
    clone = object.__new__(type(library))
    clone.__dict__.update(vars(library))
    clone._linking_files = {item for item in library._linking_files if item is nrt}
    return clone


def _libraries_by_link_object() -> dict[int, tuple[str, Any]]:
    with LOCK:
        tracked = [(identity, ref()) for identity, refs in _LIBRARIES.items() for ref in refs]
    found = {}
    for identity, lib in tracked:
        if lib is None:
            continue
        objects = getattr(lib, "link_objects", None)
        for item in objects() if objects is not None else [lib.link_object()]:
            found[id(item)] = (identity, lib)
    return found


def _find_library(
    identity: str, names: Sequence[str], token: str, link_option: Sequence
) -> tuple[Any, str | None]:
    """The live library ``identity`` that links what the record says, or why there is none."""
    with LOCK:
        alive = [ref() for ref in _LIBRARIES.get(identity, ())]
    candidates = [lib for lib in alive if lib is not None]
    if not candidates:
        return None, f"the bindings {identity} are not imported"
    # A library given in link= as well (link=shim_writer.links()) is the one the kernel means.
    candidates.sort(key=lambda lib: not any(lib.link_object() is o for o in link_option))
    tokens = []
    for lib in candidates:
        tokens.append(lib.cache_token(names))
        if tokens[-1] == token:
            return lib, None
    if all(t is None for t in tokens):
        return None, Lasting(
            f"a shim of the bindings {identity} that the kernel calls is only made while a "
            "kernel is compiled (a template instance), so it cannot be checked beforehand"
        )
    return None, f"the bindings {identity} changed"


def _find_code(kind: str, token: str, link_option: Sequence, nrt: Any) -> Any:
    for item in link_option:
        if item is nrt or isinstance(item, str) or getattr(item, "kind", None) != kind:
            continue
        if _digests().code_digest(kind, item.data) == token:
            return item
    return None


def _unrecorded_option(
    link_option: Sequence, records: Sequence[tuple], objects: Sequence[Any], nrt: Any
) -> str | None:
    """An entry of link= that the records do not account for (numba-cuda's own files, which it
    appends to link= as kernels compile, excepted)."""
    from numba.cuda import dispatcher

    numba_dir = os.path.dirname(os.path.abspath(dispatcher.__file__)) + os.sep
    paths = {record[1] for record in records if record[0] == "file"}
    for item in link_option:
        if item is nrt or any(item is o for o in objects):
            continue
        if isinstance(item, str):
            path = os.path.abspath(item)
            if path in paths or path.startswith(numba_dir):
                continue
            return item
        return getattr(item, "name", repr(item))
    return None


def _callback_order(callbacks: Sequence, objects: Sequence[Any], attribute: str) -> list | None:
    """For each callback, the index of the link object it belongs to; None if one has none."""
    order = []
    for callback in callbacks:
        index = next(
            (i for i, o in enumerate(objects) if getattr(o, attribute, None) == callback), None
        )
        if index is None:
            return None
        order.append(index)
    return order

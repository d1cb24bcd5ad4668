"""What the test files of docs/libraries.md's worked examples share (one file per library, so
that pytest-xdist's workers, which take whole files, build different libraries side by side):
the import of one library as a user writes it (a module-scoped fixture's body), the coverage its
cache entry records, and a GPU launch."""

from __future__ import annotations

import json
import warnings
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import library_examples as ex
import pytest
from numba import cuda
from support import link_kernel_to_cubin
from wrapper_imports import imported_header


def import_library(library: ex.Library, tmp_path_factory) -> Iterator[ModuleType]:
    """``import cuda_headers.<library.name>`` with a cache of its own (skips when the library's
    headers are not installed)."""
    try:
        header, options = library.mapping(tmp_path_factory.mktemp(library.name))
    except LookupError as exc:
        pytest.skip(str(exc))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # declarations left out are listed in coverage
        with imported_header(library.name, header, header.parent, **options) as module:
            yield module


def coverage_kinds(module: ModuleType) -> dict:
    """The coverage the module's cache entry records (manifest.json beside its bindings)."""
    manifest = Path(module.__file__).with_name("manifest.json")
    return json.loads(manifest.read_text())["coverage"]["kinds"]


def worked_example_links(library: ex.Library, example: str, module: ModuleType) -> bool:
    """True when ``example``'s kernel links to an sm_90 cubin (an ELF image)."""
    make_kernel, signature = ex.WORKED[library.name][example]
    return link_kernel_to_cubin(make_kernel(module), signature)[:4] == b"\x7fELF"


def run(kernel, blocks: int, threads: int, *arrays) -> list:
    """Launch ``kernel`` on copies of ``arrays``; their contents afterwards."""
    device = [cuda.to_device(a) for a in arrays]
    cuda.jit(kernel)[blocks, threads](*device)
    return [d.copy_to_host() for d in device]

"""Test configuration: the ``gpu`` marker skips with 'no CUDA device' when none is present."""

from __future__ import annotations

import functools
import sys

import pytest


@functools.cache
def cuda_device_available() -> bool:
    """True when a CUDA driver and at least one device are usable by numba-cuda."""
    try:
        from numba import cuda
    except ImportError:
        return False
    try:
        return bool(cuda.is_available()) and len(cuda.gpus) > 0
    except cuda.CudaSupportError:
        return False


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    gpu_items = [item for item in items if "gpu" in item.keywords]
    if not gpu_items or cuda_device_available():
        return
    skip_no_device = pytest.mark.skip(reason="no CUDA device")
    for item in gpu_items:
        item.add_marker(skip_no_device)


@pytest.fixture(autouse=True, scope="module")
def parser_directory_as_in_a_fresh_process():
    """Each test file starts with the parser's cache directory unchosen, as in a new process.

    A build in the test process points the parser at that build's cache root for the rest of
    the process (``ast_canopy.cache.use_directory``, by design: the import system's choice
    outranks ``$AST_CANOPY_CACHE_DIR``), and ``numbast-cache warm --into`` moves the preludes
    of later builds. Without this, a file that tests the parser on its own passes or fails by
    which files ran before it in the same process (pytest-xdist's workers run files in any
    order). Nothing is imported here: a module not imported yet has made no choice.
    """
    _forget_parser_directory()
    yield
    _forget_parser_directory()


def _forget_parser_directory() -> None:
    parser_cache = sys.modules.get("ast_canopy.cache")
    if parser_cache is not None:
        parser_cache._chosen = None  # unchosen (use_directory(None) would choose "private")
    loader = sys.modules.get("numbast_import.loader")
    if loader is not None:
        loader.keep_parser_preludes_in(None)

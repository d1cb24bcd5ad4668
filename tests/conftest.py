"""Test configuration: the ``gpu`` marker skips with 'no CUDA device' when none is present."""

from __future__ import annotations

import functools
import os
import shutil
import sys
import tempfile

import pytest

_made_pycache_prefix: str | None = None


def pytest_configure(config: pytest.Config) -> None:
    """Where the shell says not to write bytecode (``PYTHONDONTWRITEBYTECODE``), the suite
    writes it into a private directory of its own for the session instead
    (``PYTHONPYCACHEPREFIX``, inherited by pytest-xdist's workers and every Python process a
    test starts): otherwise each of the suite's ~300 Python processes compiles every module of
    this repository (and pytest its test files) again (test_cache_hardening.py and
    test_import_cli.py took 14% less CPU time with it). Nothing is written beside any source,
    as with the setting."""
    global _made_pycache_prefix
    if not sys.dont_write_bytecode:
        return
    _made_pycache_prefix = tempfile.mkdtemp(prefix="numbast-import-tests-pycache-")
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    os.environ["PYTHONPYCACHEPREFIX"] = sys.pycache_prefix = _made_pycache_prefix
    sys.dont_write_bytecode = False


def pytest_unconfigure(config: pytest.Config) -> None:
    if _made_pycache_prefix is not None:
        shutil.rmtree(_made_pycache_prefix, ignore_errors=True)


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

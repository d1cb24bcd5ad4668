"""Test configuration: the ``gpu`` marker skips with 'no CUDA device' when none is present."""

from __future__ import annotations

import functools

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

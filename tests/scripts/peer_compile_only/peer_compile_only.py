"""Compile-only mode for test suites written for a GPU (NVIDIA Numbast's among them).

Kernels are typed, lowered, compiled and linked to an sm_90 cubin (nvJitLink, no driver), and
not run. Installed by ``sitecustomize`` (this directory on PYTHONPATH and
``NUMBAST_COMPILE_ONLY=1``), so subprocesses that tests start get it too; as a pytest plugin
(``-p peer_compile_only``) it also reports a test whose kernels all compiled and linked but
whose numbers could not be checked as skipped ("compiled and linked"), and a test that failed
before or while compiling as failed.

    NUMBAST_COMPILE_ONLY=1 PYTHONPATH=tests/scripts/peer_compile_only \\
        python -m pytest -p peer_compile_only <tests>

A development aid: it proves typing, lowering and linking of GPU tests on a machine without a
GPU; only the GPU machine proves their numbers.
"""

from __future__ import annotations

import os
import types

import numpy as np

CC = (9, 0)
_LOG = os.environ.get("NUMBAST_COMPILE_ONLY_LOG")
_compiled: list[str] = []


class _Device:
    compute_capability = CC
    name = b"compile-only sm_90"
    id = 0

    def __getattr__(self, name):
        raise AttributeError(f"compile-only device has no {name!r}")


class _HostArray(np.ndarray):
    """A NumPy array standing in for a device array: typed like one, never on a device."""

    def copy_to_host(self, *args, **kwargs):
        return np.asarray(self).copy()

    def copy_to_device(self, ary, *args, **kwargs):
        self[...] = ary


class _Linked(Exception):
    """Raised where a driver would load the linked cubin: compiling and linking succeeded."""


def _load_module_image(cubin, *callbacks):
    assert cubin, "nvJitLink produced an empty cubin"
    raise _Linked()


def _launch(self, *args):
    dispatcher = self.dispatcher
    argtypes = tuple(dispatcher.typeof_pyval(a) for a in args)
    try:
        dispatcher.compile(argtypes)
    except _Linked:
        pass
    _compiled.append(dispatcher.py_func.__name__)
    if _LOG:
        with open(_LOG, "a") as log:
            log.write(dispatcher.py_func.__name__ + "\n")


def install() -> None:
    from numba import cuda
    from numba.cuda import dispatcher
    from numba.cuda.cudadrv import devices

    device = _Device()
    context = types.SimpleNamespace(device=device, create_module_image=_load_module_image)
    devices._runtime.get_or_create_context = lambda devnum=None: context
    dispatcher._LaunchConfiguration.__call__ = _launch
    cuda.device_array = lambda shape, dtype=np.float64, **kw: np.zeros(shape, dtype).view(
        _HostArray
    )
    cuda.to_device = lambda ary, **kw: np.array(ary).view(_HostArray)
    cuda.synchronize = lambda: None


def pytest_configure(config):
    install()


def pytest_runtest_setup(item):
    _compiled.clear()
    item._compile_only_log_size = os.path.getsize(_LOG) if _LOG and os.path.exists(_LOG) else 0


def _log_grew(item) -> bool:
    return bool(
        _LOG and os.path.exists(_LOG) and os.path.getsize(_LOG) > item._compile_only_log_size
    )


import pytest  # noqa: E402


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if call.when != "call" or not report.failed or call.excinfo is None:
        return
    if (_compiled or _log_grew(item)) and call.excinfo.errisinstance(AssertionError):
        report.outcome = "skipped"
        report.longrepr = (
            str(item.path),
            0,
            f"compiled and linked {_compiled or 'in a subprocess'}",
        )

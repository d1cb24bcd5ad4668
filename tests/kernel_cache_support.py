"""Helpers for the kernel-cache tests: what ``CUDADispatcher.compile`` does for a ``cache=True``
kernel, done without a GPU.

numba-cuda's ``compile`` loads an overload from the dispatcher's cache, or compiles a ``_Kernel``
(which asks the device for its compute capability), links its cubin and saves it. Here the
kernel is compiled for sm_90 and linked with nvJitLink (both work without a driver), and saved
and loaded through the dispatcher's own cache object; the device's part of numba-cuda's cache
key (CUDA runtime version, compute capability) is a fixed answer. A load runs with NVVM, NVRTC
and the linker made to fail, as the GPU tests do on a real second run.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import sys
from collections.abc import Iterator
from typing import Any

CC = (9, 0, "a")  # numba-cuda's key of an sm_90 device's cubin (CUDACodeLibrary._ensure_cc)
FAKE_DEVICE_KEY = ((13, 0), (9, 0))  # what JITCUDACodegen.magic_tuple would say


def device_patches(magic: tuple = FAKE_DEVICE_KEY) -> list[tuple[Any, str, Any]]:
    """(object, attribute, value) that answer numba-cuda's questions to the device: its compute
    capability (sm_90) and the device part of the cache key (``magic``)."""
    from numba.cuda import codegen, dispatcher

    class Device:
        compute_capability = CC[:2]
        id = 0

    ensure_cc = codegen.CUDACodeLibrary._ensure_cc
    return [
        (codegen.JITCUDACodegen, "magic_tuple", lambda self: magic),
        (dispatcher, "get_current_device", Device),
        (codegen.CUDACodeLibrary, "_ensure_cc", lambda self, cc: ensure_cc(self, cc or CC)),
    ]


def pretend_device(magic: tuple = FAKE_DEVICE_KEY) -> None:
    """Apply :func:`device_patches` for good (in a script's own process)."""
    for target, attribute, value in device_patches(magic):
        setattr(target, attribute, value)


@contextlib.contextmanager
def toolchain_forbidden() -> Iterator[None]:
    """NVVM, NVRTC and the linker raise while inside."""
    from numba.cuda.cudadrv import driver, nvrtc, nvvm

    def forbidden(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("the toolchain ran while loading a cached kernel")

    saved = nvvm.compile_ir, nvrtc.compile, driver._Linker
    nvvm.compile_ir = nvrtc.compile = driver._Linker = forbidden
    try:
        yield
    finally:
        nvvm.compile_ir, nvrtc.compile, driver._Linker = saved


def compile_kernel(dispatcher: Any, argtypes: tuple) -> Any:
    """What ``CUDADispatcher.compile`` does on a miss: a ``_Kernel`` (compiled for sm_90 under
    :func:`pretend_device`) whose cubin is linked (``bind`` would also load it)."""
    from numba.cuda.dispatcher import _Kernel

    kernel = _Kernel(dispatcher.py_func, argtypes, **dispatcher.targetoptions)
    kernel.library.get_cubin()
    return kernel


def load_or_compile(dispatcher: Any, argtypes: tuple) -> tuple[Any, bool]:
    """(kernel, loaded from the cache?): the cache's part of ``CUDADispatcher.compile``."""
    with toolchain_forbidden():
        kernel = dispatcher._cache.load_overload(argtypes, dispatcher.targetctx)
        if kernel is not None:
            kernel.library.get_cubin()  # from the pickled cubins: nothing is linked
            return kernel, True
    kernel = compile_kernel(dispatcher, argtypes)
    dispatcher._cache.save_overload(argtypes, kernel)
    return kernel, False


def outcome(dispatcher: Any, argtypes: tuple) -> tuple[Any, dict[str, Any]]:
    """Load or compile; the kernel and a description of it (printed as JSON by :func:`emit`)."""
    kernel, loaded = load_or_compile(dispatcher, argtypes)
    library = kernel.library
    return kernel, {
        "loaded": loaded,
        "cubin": hashlib.sha256(bytes(library.get_cubin().code)).hexdigest(),
        "links": sorted(getattr(f, "name", str(f)) for f in library._linking_files),
        "setup": len(library._setup_functions),
        "teardown": len(library._teardown_functions),
    }


def emit(result: dict[str, Any]) -> None:
    print("RESULT " + json.dumps(result))
    sys.stdout.flush()


def main(dispatcher: Any, argtypes: tuple) -> None:
    emit(outcome(dispatcher, argtypes)[1])


def result_of(stdout: str) -> dict[str, Any]:
    lines = [line for line in stdout.splitlines() if line.startswith("RESULT ")]
    assert lines, stdout
    return json.loads(lines[-1].removeprefix("RESULT "))

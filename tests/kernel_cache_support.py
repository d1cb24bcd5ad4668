"""Helpers for the kernel-cache tests: the scenarios of tests/data/kernel_cache/, run in fresh
processes on a GPU or, without one, with what ``CUDADispatcher.compile`` does for a
``cache=True`` kernel done on the CPU.

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
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

TESTS = Path(__file__).resolve().parent
SCENARIOS = TESTS / "data" / "kernel_cache"
DEVICE_ENV = "KERNEL_CACHE_TEST_DEVICE"  # "cpu": the scenario runs without a GPU

CC = (9, 0, "a")  # numba-cuda's key of an sm_90 device's cubin (CUDACodeLibrary._ensure_cc)
FAKE_DEVICE_KEY = ((13, 0), (9, 0))  # what JITCUDACodegen.magic_tuple would say


def device_patches(magic: tuple = FAKE_DEVICE_KEY) -> list[tuple[Any, str, Any]]:
    """(object, attribute, value) that answer numba-cuda's questions to the device: its compute
    capability (sm_90) and the device part of the cache key (``magic``); and a ``_Kernel.bind``
    that does what loading the module does to it: link the cubin (unless cached) and call its
    setup callbacks once, with the kernel's stand-in module object (``kernel.fake_module``)."""
    from numba.cuda import codegen, dispatcher

    class Device:
        compute_capability = CC[:2]
        id = 0

    def bind(kernel: Any) -> None:
        kernel.library.get_cubin()
        if getattr(kernel, "fake_module", None) is None:
            kernel.fake_module = object()
            for setup in kernel.library._setup_functions:
                setup(kernel.fake_module)

    ensure_cc = codegen.CUDACodeLibrary._ensure_cc
    return [
        (codegen.JITCUDACodegen, "magic_tuple", lambda self: magic),
        (dispatcher, "get_current_device", Device),
        (codegen.CUDACodeLibrary, "_ensure_cc", lambda self, cc: ensure_cc(self, cc or CC)),
        (dispatcher._Kernel, "bind", bind),
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
    :func:`pretend_device`), bound (its cubin linked, its module's setup callbacks run)."""
    from numba.cuda.dispatcher import _Kernel

    kernel = _Kernel(dispatcher.py_func, argtypes, **dispatcher.targetoptions)
    kernel.bind()
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


# -- scenario scripts ---------------------------------------------------------------------------


def prepare() -> None:
    """First thing a scenario script does: stand in for the device where there is none."""
    if os.environ.get(DEVICE_ENV) == "cpu":
        pretend_device()


def finish(
    dispatcher: Any,
    argtypes: tuple,
    make_arrays: Any,
    extra: Any = dict,
) -> None:
    """Get the kernel (from the cache or compiled), load its module, unload it, and emit what
    happened and ``extra()``. On a GPU the kernel runs on ``make_arrays()`` (copied to the
    device), and with ``forbid`` among the script's arguments NVVM, NVRTC and the linker fail.
    Without one, a bound kernel's module has run its setup callbacks (see
    :func:`device_patches`), and unloading it means calling its teardown callbacks."""
    if os.environ.get(DEVICE_ENV) == "cpu":
        kernel, result = outcome(dispatcher, argtypes)
        for teardown in kernel.library._teardown_functions:  # the module is unloaded
            teardown(getattr(kernel, "fake_module", None))
    else:
        result = _launch(dispatcher, make_arrays(), "forbid" in sys.argv[1:])
    emit({**result, **extra()})


def _launch(dispatcher: Any, arrays: list, forbid: bool) -> dict[str, Any]:
    import gc

    from numba import cuda

    device_arrays = [cuda.to_device(array) for array in arrays]
    with toolchain_forbidden() if forbid else contextlib.nullcontext():
        dispatcher[1, 1](*device_arrays)
        cuda.synchronize()
    values = [array.copy_to_host().tolist() for array in device_arrays]
    stats = dispatcher.stats
    del device_arrays
    cuda.current_context().reset()  # unloads the kernel's module: teardown callbacks run
    gc.collect()
    return {
        "loaded": sum(stats.cache_hits.values()) == 1,
        "compiled": sum(stats.cache_misses.values()),
        "values": values,
    }


def dynamic_scenario(directory: Path) -> Path:
    """dynamic_kernel.py with demo.cuh, in ``directory``; returns the script."""
    shutil.copy(TESTS.parent / "examples" / "demo.cuh", directory / "demo.cuh")
    return _copy_script("dynamic_kernel.py", directory)


def imported_scenario(directory: Path) -> Path:
    """The import tests' project (``cuda_headers.vec``) with imported_kernel.py in it."""
    from import_support import make_project

    return _copy_script("imported_kernel.py", make_project(directory))


def static_scenario(directory: Path) -> Path:
    """static_kernel.py, hooks.py and a standalone module of functions.cuh whose Module
    Callbacks are hooks.setup and hooks.teardown."""
    from static_support import render, static_config

    shutil.copy(SCENARIOS / "hooks.py", directory / "hooks.py")
    config = static_config(
        "functions.cuh",
        Output_Name="function_bindings.py",
        Additional_Import=["hooks"],
        Module_Callbacks={"setup": "hooks.setup", "teardown": "hooks.teardown"},
    )
    render(config, directory)
    return _copy_script("static_kernel.py", directory)


def linked_scenario(directory: Path) -> Path:
    """linked_kernel.py with ext.cu and the ext_scale.h it includes."""
    for name in ("ext.cu", "ext_scale.h"):
        shutil.copy(SCENARIOS / name, directory / name)
    return _copy_script("linked_kernel.py", directory)


def _copy_script(name: str, directory: Path) -> Path:
    shutil.copy(SCENARIOS / name, directory / name)
    return directory / name


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text, (path, old)
    path.write_text(text.replace(old, new))


def run_script(script: Path, cache: Path, *args: str, device: str = "gpu") -> dict[str, Any]:
    """Run ``script`` in a fresh interpreter (in its folder) with numba-cuda's and numbast's
    caches under ``cache``, the tests folder importable and ``device`` "gpu" or "cpu"; returns
    what it :func:`emit`-ted."""
    path = [str(TESTS), str(script.parent), os.environ.get("PYTHONPATH", "")]
    environment = {
        **os.environ,
        "NUMBA_CACHE_DIR": str(cache),
        "NUMBAST_CACHE_DIR": str(cache / "numbast"),
        "NUMBAST_IMPORT_QUIET": "1",
        "PYTHONPATH": os.pathsep.join(p for p in path if p),
        DEVICE_ENV: device,
    }
    for variable in ("NUMBAST_IMPORT_ARCH", "NUMBAST_KERNEL_CACHE"):
        environment.pop(variable, None)
    done = subprocess.run(
        [sys.executable, str(script), *args],
        cwd=script.parent,
        env=environment,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    lines = [line for line in done.stdout.splitlines() if line.startswith("RESULT ")]
    assert lines, done.stdout + done.stderr
    return json.loads(lines[-1].removeprefix("RESULT "))

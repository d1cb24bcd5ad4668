"""What ``numbast.runtime.backends`` hands this backend, and when it is registered.

``receive`` keeps a registration until numba-cuda-mlir next compiles: the first receive wraps
``numba_cuda_mlir.mlir_compiler.compile_mlir`` (which every compile goes through: kernels,
device functions, ``compile_ptx``, ``compile_mlir``...), and the wrapper registers what waits
and refreshes numba-cuda-mlir's typing and target contexts before it compiles. So importing
bindings costs nothing in numba-cuda-mlir, and a process that never compiles with it never
registers anything there. The pending list and the hook live in the process-wide registration
state, shared by every copy of the runtime.

Checked against numba-cuda-mlir ``KNOWN_VERSIONS``; on others the hook is installed all the
same, with one warning, since the extension API it uses is numba-cuda-mlir's public one.
"""

from __future__ import annotations

import functools
import logging
import warnings
from typing import Any

from ..runtime.state import LOCK, shared_table

logger = logging.getLogger(__name__)

KNOWN_VERSIONS = ((0, 6),)

_PENDING: list = shared_table("mlir_pending_registrations", list)
_HOOK: dict = shared_table("mlir_compile_hook", dict)


def receive(registration: Any) -> None:
    """Register ``registration`` before numba-cuda-mlir next compiles."""
    with LOCK:
        _PENDING.append(registration)
        install()


def pending() -> int:
    return len(_PENDING)


def run_pending() -> int:
    """Register everything received so far (in order); returns how many registrations ran."""
    from .registration import register

    _type_module_classes()
    done = 0
    while True:
        with LOCK:
            if not _PENDING:
                break
            registration = _PENDING.pop(0)
        try:
            register(registration)
        except Exception:  # one module's failure must not fail every numba-cuda-mlir compile
            logger.warning(
                "%r could not be registered with numba-cuda-mlir; its bindings are callable "
                "from numba-cuda kernels only",
                registration,
                exc_info=True,
            )
            continue
        done += 1
    if done:
        from numba_cuda_mlir.extending import refresh_registries

        refresh_registries(typing=True, target=True, include_uninitialized_cuda=False)
    return done


def install() -> None:
    """Wrap numba-cuda-mlir's compile entry (once per process)."""
    with LOCK:
        if _HOOK.get("installed"):
            return
        from numba_cuda_mlir import __version__, mlir_compiler

        if tuple(int(p) for p in __version__.split(".")[:2]) not in KNOWN_VERSIONS:
            warnings.warn(
                f"numbast's numba-cuda-mlir backend was checked with numba-cuda-mlir "
                f"{', '.join('.'.join(map(str, v)) for v in KNOWN_VERSIONS)}, not "
                f"{__version__}: bindings may not register with it",
                stacklevel=2,
            )
        original = mlir_compiler.compile_mlir

        @functools.wraps(original)
        def compile_mlir(*args, **kwargs):
            run_pending()
            return original(*args, **kwargs)

        mlir_compiler.compile_mlir = compile_mlir
        _HOOK["installed"] = True


_MODULE_TYPED: set = shared_table("mlir_module_classes_typed", set)


def _type_module_classes() -> None:
    """Objects kernels use as modules (``backends.add_module_class``) are modules to
    numba-cuda-mlir too."""
    from ..runtime.backends import module_classes

    for cls in module_classes():
        with LOCK:
            if cls in _MODULE_TYPED:
                continue
            _MODULE_TYPED.add(cls)
        from numba_cuda_mlir import types as mlir_types
        from numba_cuda_mlir.numba_cuda.typing.typeof import typeof_impl

        typeof_impl.register(cls)(lambda value, context: mlir_types.Module(value))

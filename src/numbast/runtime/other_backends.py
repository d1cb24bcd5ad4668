"""The compilers other than numba-cuda that bindings can register with, and whether this process
uses one (``wanted``).

Every apply asks ``wanted`` (``registration.hand_over``); only where it is true is what it
registered handed over (``backends``, which imports this). Apart from ``backends`` so that a
process with no other compiler (most) does not import the hand-over machinery with every
bindings import. Imports nothing but the standard library; its table is the process-wide
registration state's (``state``), shared by every copy of the runtime.
"""

# No ``from __future__ import annotations``: typing.NamedTuple would compile a ForwardRef for
# each field of Backend at every import.
import importlib.util
import sys
from typing import NamedTuple

from .state import shared_table


class Backend(NamedTuple):
    name: str  # as users know it: "numba-cuda-mlir"
    trigger: str  # the top-level module whose import means the process uses it
    package: str  # the backend's package, relative to numbast's root: "runtime_mlir"


OTHER_BACKENDS: tuple[Backend, ...] = (
    Backend("numba-cuda-mlir", "numba_cuda_mlir", "runtime_mlir"),
)

# backend name -> whether its compiler can be imported (asked once per process)
INSTALLED: dict[str, bool] = shared_table("backend_compiler_installed", dict)


def wanted() -> bool:
    """Whether any other backend takes registrations in this process: its compiler imported,
    or installed (then they wait for its import). A caller makes a Registration only then."""
    return any(b.trigger in sys.modules or installed(b) for b in OTHER_BACKENDS)


def installed(backend: Backend) -> bool:
    """Whether ``backend``'s compiler can be imported here."""
    found = INSTALLED.get(backend.name)
    if found is None:
        found = INSTALLED[backend.name] = importlib.util.find_spec(backend.trigger) is not None
    return found

"""Header modules on Dask workers: ``client.register_plugin(HeaderModules())``.

A kernel that uses a header module through the module (``my_lib.dot(...)``) carries it when
pickled (``numbast_import.pickling``), so workers need nothing more. This plugin is for the rest:
kernels that use names taken from a module (``from cuda_headers.my_lib import dot``, which pickle
by reference to it), kernels defined in your own modules (which import ``cuda_headers.my_lib``
again on the worker), and workers that should be ready before the first task arrives. It gives
every worker, present and future, the header modules of this process, as pickled: each worker
checks their headers' digests and imports them (from the cache; see docs/clusters.md).

Needs ``distributed`` (``pip install "numbast-import[dask]"``).
"""

from __future__ import annotations

import sys
import types
from collections.abc import Iterable
from typing import Any

from distributed.diagnostics.plugin import WorkerPlugin

from numbast_import.pickling import HeaderModule, import_pickled, pickled_state

__all__ = ["HeaderModules"]


class HeaderModules(WorkerPlugin):
    """Imports ``modules`` (default: every header module imported in this process now) on each
    worker, checked against their headers' digests. Registering it again (it has one name)
    replaces it, for modules imported since."""

    name = "numbast-import-header-modules"

    def __init__(self, modules: Iterable[types.ModuleType] | None = None) -> None:
        if modules is None:  # in the order they were imported (sys.modules keeps it)
            modules = [m for m in list(sys.modules.values()) if isinstance(m, HeaderModule)]
        else:
            modules = list(modules)
        for module in modules:
            if not isinstance(module, HeaderModule):
                raise TypeError(
                    f"{getattr(module, '__name__', module)!r} is not a header module "
                    "(cuda_headers.x or numbast.headers.x); import it first"
                )
        self.states = [pickled_state(module) for module in modules]

    @property
    def names(self) -> list[str]:
        return [state["name"] for state in self.states]

    def setup(self, worker: Any = None) -> None:
        # A module that cannot be had here with the same bindings is logged (as a warning) and
        # left out; the first task that uses it fails with the reason. Raising would stop the
        # worker from starting (a restarted or added worker sets its plugins up as it starts).
        for state in self.states:
            import_pickled(state)

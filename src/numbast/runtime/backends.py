"""Which compilers bindings register with: numba-cuda, and each other backend a process imports.

Applying rows (``numbast.runtime.apply``) registers them with numba-cuda, the required dependency,
through this package. Every other backend is a package of its own that registers the same rows with
another compiler; ``OTHER_BACKENDS`` (``other_backends``, with ``wanted``) names it and the module
whose import means a process uses that compiler (``numba_cuda_mlir`` for ``numbast.runtime_mlir``).
What one apply registers is handed to such a backend as one :class:`Registration`: the rows with
their types resolved (as numba-cuda types: the rows' one vocabulary of types, which each backend
translates), the Python objects kernels use (struct stubs, function stubs), and the shim library
(the same shims, the same compiled LTO-IR). A backend gets it only once its compiler is imported:
at once when it is, else when it is (a finder on ``sys.meta_path`` notices that import), so a
process that never imports a backend's compiler loads nothing of it and pays nothing for it (where
the compiler is not installed at all, nothing is kept for it either).

A third backend is one more package with a ``backend`` module whose ``receive(registration)``
takes registrations, and one more entry in ``other_backends.OTHER_BACKENDS``.

The pending registrations and the finder live in the process-wide registration state, shared by
every copy of the runtime (``state``). Imports nothing but the standard library.
"""

# No ``from __future__ import annotations``: typing.NamedTuple would compile a ForwardRef for
# each field of the named tuples below at every import.
import importlib
import importlib.abc
import logging
import sys
import threading
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

# wanted and OTHER_BACKENDS are other_backends' (an older runtime copy asks them here)
from .other_backends import OTHER_BACKENDS, Backend, installed, wanted  # noqa: F401
from .state import LOCK, shared_table

logger = logging.getLogger(__name__)


class StructEntry(NamedTuple):
    row: Any  # rows.StructRow
    numba_type: Any  # its numba-cuda type
    body: Any  # rows.StructBodyRow, indices into Registration.types / .shims
    stub: type  # the Python class kernels construct it with


class FunctionEntry(NamedTuple):
    row: Any  # rows.FunctionRow, indices into Registration.types / .shims
    key: Any  # what kernels call: the function's stub, or the ``operator`` function


class Registration:
    """What one apply registers: a module's rows, one struct, one function, one instance.

    ``types`` is the rows' type table resolved as numba-cuda types, computed once, when a
    backend first asks (resolving may import other bindings modules or instantiate class
    templates, as numba-cuda's registration would)."""

    def __init__(
        self,
        module_name: str,
        library: Any,
        shims: Sequence[tuple[str, str]],
        types: Sequence[Any] | Callable[[], Sequence[Any]],
        structs: Sequence[StructEntry] = (),
        functions: Sequence[FunctionEntry] = (),
    ) -> None:
        self.module_name = module_name
        self.library = library
        self.shims = tuple(shims)
        self.structs = tuple(StructEntry(*entry) for entry in structs)
        self.functions = tuple(FunctionEntry(*entry) for entry in functions)
        self._types = types
        self._resolving = threading.Lock()

    @property
    def types(self) -> tuple[Any, ...]:
        with self._resolving:
            if callable(self._types):
                self._types = tuple(self._types())
            return tuple(self._types)

    def __repr__(self) -> str:
        return (
            f"<Registration of {self.module_name or 'dynamic bindings'}: "
            f"{len(self.structs)} structs, {len(self.functions)} functions>"
        )


# classes whose objects kernels use as modules (their attributes are bindings: a BoundHeader)
_MODULE_CLASSES: list[type] = shared_table("backend_module_classes", list)


def add_module_class(cls: type) -> None:
    """Kernels use objects of ``cls`` as modules: globals whose attributes are bindings. Each
    backend types them so (numba-cuda's typing is the class's own business)."""
    with LOCK:
        if cls not in _MODULE_CLASSES:
            _MODULE_CLASSES.append(cls)


def module_classes() -> tuple[type, ...]:
    return tuple(_MODULE_CLASSES)


# backend name -> registrations waiting for its compiler to be imported
_WAITING: dict[str, list[Registration]] = shared_table("backend_registrations_waiting", dict)
# backend name -> the module that receives its registrations, once found (None: not found)
_RECEIVERS: dict[str, Any] = shared_table("backend_receivers", dict)
_WATCHER: list = shared_table("backend_import_watcher", list)  # the finder, once made


def hand_over(registration: Registration) -> None:
    """Give ``registration`` to every other backend: now to those whose compiler the process
    has imported, later to the others, when (if ever) it imports theirs; never to those whose
    compiler is not installed (nothing waits for them, nothing watches for them)."""
    for backend in OTHER_BACKENDS:
        if backend.trigger in sys.modules:
            _deliver(backend, [registration])
        elif installed(backend):
            with LOCK:
                _WAITING.setdefault(backend.name, []).append(registration)
            _watch()


def waiting(backend_name: str) -> int:
    """How many registrations wait for ``backend_name``'s compiler to be imported."""
    return len(_WAITING.get(backend_name, ()))


def _deliver(backend: Backend, registrations: list[Registration]) -> None:
    receiver = _receiver(backend)
    if receiver is None:
        return
    for registration in registrations:
        receiver.receive(registration)


def _receiver(backend: Backend) -> Any:
    """The backend's ``backend`` module: this runtime's own (a standalone module's copy may
    carry it), else the installed numbast's; None, logged once, where neither exists."""
    with LOCK:
        if backend.name in _RECEIVERS:
            return _RECEIVERS[backend.name]
    own_root = __package__.rpartition(".")[0]  # "numbast", or a runtime copy's package
    found = None
    for root in dict.fromkeys((own_root, "numbast")):
        module_name = f"{root}.{backend.package}.backend"
        try:
            found = importlib.import_module(module_name)
            break
        except ModuleNotFoundError as exc:
            if exc.name is None or not module_name.startswith(exc.name):
                raise  # the backend itself failed to import something: a real error
    if found is None:
        logger.warning(
            "this process uses %s, but these bindings cannot register with it: they carry no "
            "%s backend and numbast is not installed (pip install numbast-import, or generate "
            "them with MLIR Backend: true)",
            backend.name,
            backend.name,
        )
    with LOCK:
        return _RECEIVERS.setdefault(backend.name, found)


# -- noticing a backend's compiler being imported ---------------------------------------------


def _watch() -> None:
    with LOCK:
        if _WATCHER:
            return
        watcher = _ImportWatcher()
        _WATCHER.append(watcher)
        sys.meta_path.insert(0, watcher)


def _imported(trigger: str) -> None:
    """``trigger`` has just been imported: hand its backends what waits for them."""
    for backend in OTHER_BACKENDS:
        if backend.trigger != trigger:
            continue
        with LOCK:
            registrations = _WAITING.pop(backend.name, [])
        if registrations:
            _deliver(backend, registrations)
    with LOCK:
        if not _WAITING and _WATCHER:
            watcher = _WATCHER.pop()
            if watcher in sys.meta_path:
                sys.meta_path.remove(watcher)


class _ImportWatcher(importlib.abc.MetaPathFinder):
    """Finds nothing itself: for a backend's trigger module it asks the finders after it for
    the spec and wraps the spec's loader, so that the module's import, once done, hands the
    backend its registrations."""

    def find_spec(self, fullname: str, path: Any, target: Any = None) -> Any:
        if fullname not in {backend.trigger for backend in OTHER_BACKENDS}:
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(fullname, path, target)
            if spec is not None:
                if spec.loader is not None and hasattr(spec.loader, "exec_module"):
                    spec.loader = _NotifyingLoader(spec.loader, fullname)
                return spec
        return None


class _NotifyingLoader(importlib.abc.Loader):
    """A loader that runs another, then reports the import as done."""

    def __init__(self, loader: Any, fullname: str) -> None:
        self._loader = loader
        self._fullname = fullname

    def create_module(self, spec: Any) -> Any:
        return self._loader.create_module(spec)

    def exec_module(self, module: Any) -> None:
        self._loader.exec_module(module)
        _imported(self._fullname)

    def __getattr__(self, name: str) -> Any:  # get_resource_reader, is_package, ...
        return getattr(self._loader, name)

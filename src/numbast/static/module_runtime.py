"""What a generated bindings module runs when it is imported: register its bindings from tables.

The static generator embeds this file's source verbatim in every module it writes, next to a
verbatim copy of ``numbast/runtime.py``, and executes both in private namespaces (so no name
from a header can shadow theirs). The tables are plain literals: numbers, strings, and indices
into a table of Numba types. Applying them calls the runtime functions with the same arguments,
in the same order per declaration, as dynamic binding (``numbast.functions`` /
``numbast.structs`` / ``numbast.enums``), which is what makes a generated module behave like
dynamic bindings.

Keep it self-contained: it may import the standard library and numba-cuda only, and it reaches
the runtime through the ``rt`` argument (``numbast.runtime``, or the module's embedded copy).
"""

from __future__ import annotations

import enum
import operator
import re
import threading
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from numba.cuda import types as numba_types
from numba.cuda.cudadrv.linkable_code import CUSource
from numba.cuda.datamodel import models as numba_models
from numba.cuda.typing.templates import signature

# Table row layouts (tuples of literals, so that a module's tables cost nothing to build):
#   struct:      (python name, C++ name, qualified C++ name, sizeof, alignof, parent type class
#                name, data model class name)
#   struct body: (members ((field, type index), ...) or None, public fields, member rows)
#   member row:  (kind, name, call, flag): kind "constructor" (flag: implicit conversion),
#                "conversion", "operator" (name: the operator module's function), "method"
#                (flag: non-const, updates its object)
#   enum:        (python name, C++ name, ((enumerator, value), ...))
#   function:    (python name, C++ name, operator name or "", call, label, cooperative)
#   call:        (shim index, ((type index, mode, align), ...), result type index or -1,
#                 result align, returns first argument)
#   shim:        (shim name, shim text)


class CUDAVersionWarning(UserWarning):
    """The CUDA toolkit found at import is older than the one the bindings were made from."""


# -- the shims --------------------------------------------------------------------------------


class _LiveShimSource(CUSource):
    """A CUDA source whose text is read when Numba links, so it holds every shim used so far."""

    def __init__(self, library: ShimLibrary, name: str, setup, teardown) -> None:
        super().__init__(data="", name=name, setup_callback=setup, teardown_callback=teardown)
        self._library = library

    @property
    def data(self) -> str:
        return self._library.source()


class _OncePerModule:
    """Module Callbacks, run once per loaded CUDA module.

    numba-cuda records a link object's callbacks every time lowering adds the object to a code
    library, i.e. once per bound call in a kernel, and then calls each record. Setup runs once
    per module here, and teardown once for each module that was set up. Loaded modules are held
    until they are torn down, so an id is never mistaken for a later module's.
    """

    def __init__(self, setup: Callable | None, teardown: Callable | None) -> None:
        self._setup = setup
        self._teardown = teardown
        self._loaded: dict[int, Any] = {}
        self._lock = threading.Lock()

    def setup(self, object_code) -> None:
        with self._lock:
            if id(object_code) in self._loaded:
                return
            self._loaded[id(object_code)] = object_code
        if self._setup is not None:
            self._setup(object_code)

    def teardown(self, object_code) -> None:
        with self._lock:
            if self._loaded.pop(id(object_code), None) is None:
                return
        if self._teardown is not None:
            self._teardown(object_code)


class ShimLibrary:
    """The module's shims. Lowering a bound call records its shim here and attaches the one link
    object to the kernel being compiled, so kernels need no ``link=``; only shims that kernels
    use are ever compiled."""

    def __init__(
        self,
        preamble: str,
        shims: Sequence[tuple[str, str]],
        name: str,
        setup_callback: Callable | None = None,
        teardown_callback: Callable | None = None,
    ) -> None:
        self.preamble = preamble
        self.all_shims = shims
        self._used: dict[str, str] = {}
        self._lock = threading.Lock()
        if setup_callback is None and teardown_callback is None:
            setup = teardown = None
        else:
            callbacks = _OncePerModule(setup_callback, teardown_callback)
            setup, teardown = callbacks.setup, callbacks.teardown
        self._link = _LiveShimSource(self, name, setup, teardown)

    def write_to_shim(self, content: str, id: str) -> None:  # noqa: A002 - the runtime's name
        with self._lock:
            self._used.setdefault(id, content)

    def link_object(self):
        return self._link

    def use_link_object(self, link_object) -> None:
        """Link ``link_object`` instead of compiling the shims from source (for instance the
        LTO-IR of :meth:`full_source`, compiled once and cached)."""
        self._link = link_object

    def source(self) -> str:
        """The preamble and every shim used so far: what Numba compiles with NVRTC."""
        with self._lock:
            body = "\n".join(self._used.values())
        return f"{self.preamble}\n\n{body}\n"

    def full_source(self) -> str:
        """The preamble and every shim of the module."""
        body = "\n".join(text for _name, text in self.all_shims)
        return f"{self.preamble}\n\n{body}\n"


def shim_preamble(include: str, macros: Sequence[str]) -> str:
    """``#define`` lines for the predefined macros, then ``#include <include>``."""
    lines = []
    for macro in macros:
        name, _, value = macro.partition("=")
        lines.append(f"#define {name} {value or '1'}")
    lines.append(f"#include <{include}>")
    return "\n".join(lines)


def add_nvrtc_include_dirs(directories: Sequence[str]) -> None:
    """Let NVRTC find the headers the entry point includes through Clang Include Paths: add the
    directories that exist to numba-cuda's extra NVRTC search path (process-wide, as the
    ``NUMBA_CUDA_NVRTC_EXTRA_SEARCH_PATHS`` environment variable does)."""
    from numba.cuda import config
    from numba.cuda.cudadrv import nvrtc  # noqa: F401  (it initializes the setting from the env)

    current = [d for d in (getattr(config, "CUDA_NVRTC_EXTRA_SEARCH_PATHS", "") or "").split(":")]
    wanted = [d for d in directories if Path(d).is_dir() and d not in current]
    if wanted:
        config.CUDA_NVRTC_EXTRA_SEARCH_PATHS = ":".join([d for d in current if d] + wanted)


# -- the toolkit --------------------------------------------------------------------------------


def running_cuda_version() -> tuple[int, int] | None:
    """The version of the CUDA headers the shims will be compiled against (cuda.pathfinder's
    find, as numba-cuda's), from CUDART_VERSION; None when it cannot be told cheaply."""
    try:
        from cuda.pathfinder import find_nvidia_header_directory

        directory = find_nvidia_header_directory("cudart")
        if directory is None:
            return None
        with open(Path(directory) / "cuda_runtime_api.h", encoding="utf-8", errors="replace") as f:
            text = f.read(1 << 16)  # CUDART_VERSION is defined near the top
    except (ImportError, OSError, RuntimeError, ValueError):
        return None
    match = re.search(r"#define\s+CUDART_VERSION\s+(\d+)", text)
    if match is None:
        return None
    number = int(match.group(1))
    return number // 1000, (number % 1000) // 10


def warn_if_older_cuda(generated_with: tuple[int, int], module_name: str, regenerate: str) -> None:
    running = running_cuda_version()
    if running is not None and running < tuple(generated_with):
        warnings.warn(
            f"{module_name} was generated from the CUDA {generated_with[0]}.{generated_with[1]} "
            f"headers, but the CUDA toolkit found now is {running[0]}.{running[1]}: some bound "
            "declarations may not exist in it and kernels using them will fail to compile. "
            f"Install CUDA {generated_with[0]}.{generated_with[1]} or newer, or regenerate the "
            f"bindings with this toolkit ({regenerate}).",
            CUDAVersionWarning,
            stacklevel=3,
        )


# -- registration -----------------------------------------------------------------------------


def resolve_class(namespace: Any, name: str, what: str, struct: str, module_name: str) -> type:
    found = getattr(namespace, name, None)
    if not isinstance(found, type):
        raise TypeError(
            f"{module_name}: the config maps struct {struct} to {what} {name!r}, which is not a "
            f"class in {namespace.__name__}; fix that entry of the config's "
            f"{'Types' if what == 'type class' else 'Data Models'} and regenerate the bindings."
        )
    return found


def make_struct_types(rt, structs: Sequence[tuple], module_name: str) -> tuple:
    """The Numba type of every struct (first, because signatures and fields refer to them)."""
    made = []
    for _python_name, _name, qual_name, sizeof, alignof, parent_name, _model in structs:
        parent = resolve_class(numba_types, parent_name, "type class", qual_name, module_name)
        made.append(rt.make_struct_type(parent, qual_name, sizeof, alignof))
    return tuple(made)


def make_enums(enums: Sequence[tuple]) -> tuple:
    made = []
    for python_name, qual_name, members in enums:
        py_enum = enum.IntEnum(python_name, dict(members))
        py_enum.__doc__ = f"C++ enum {qual_name} (bound by numbast)."
        made.append(py_enum)
    return tuple(made)


def _cooperative(lowering: Callable) -> Callable:
    """Kernels calling this need a cooperative launch (grid-wide synchronization): mark the
    code library as numba-cuda's cooperative groups do, so the kernel is launched that way."""

    def lower_cooperative_call(context, builder, sig, args):
        context.active_code_library.use_cooperative = True
        return lowering(context, builder, sig, args)

    return lower_cooperative_call


class _Call:
    """One call row with its types resolved: what CallPlan is in dynamic binding."""

    def __init__(self, rt, row: tuple, type_table: tuple, shims: Sequence[tuple[str, str]]):
        shim_index, arguments, result, result_align, returns_first = row
        self.rt = rt
        self.shim_name, self.shim_text = shims[shim_index]
        self.arguments = tuple(
            rt.ShimArgument(type_table[index], mode, align) for index, mode, align in arguments
        )
        self.cxx_result = None if result < 0 else type_table[result]
        self.result_align = result_align
        self.returns_first_argument = returns_first

    @property
    def visible_args(self) -> tuple:
        return self.rt.visible_argument_types(self.arguments)

    @property
    def numba_return_type(self):
        return self.rt.call_return_type(
            self.arguments, self.cxx_result, self.returns_first_argument
        )

    def signature(self):
        return signature(self.numba_return_type, *self.visible_args)

    def lowering(self, shims: ShimLibrary, returns_updated_object: bool = False) -> Callable:
        return self.rt.shim_lowering(
            shims,
            self.shim_name,
            self.shim_text,
            self.arguments,
            self.cxx_result,
            self.result_align,
            self.returns_first_argument,
            returns_updated_object,
        )


def bind_structs(
    rt,
    rt_members,
    structs: Sequence[tuple],
    struct_types: tuple,
    bodies: Sequence[tuple],
    type_table: tuple,
    shims: Sequence[tuple[str, str]],
    library: ShimLibrary,
    registries,
    module_name: str,
) -> dict[str, Any]:
    """Models, stubs and members of every struct, as ``numbast.structs.bind_cxx_struct`` does."""
    stubs: dict[str, Any] = {}
    for header, numba_type, body in zip(structs, struct_types, bodies, strict=True):
        python_name, cxx_name, qual_name, _size, _align, _parent, model_name = header
        members, public_fields, member_rows = body
        model = resolve_class(numba_models, model_name, "data model", qual_name, module_name)
        if members is not None and issubclass(model, numba_models.StructModel):
            members = [(field, type_table[index]) for field, index in members]
        else:
            members = None
        rt.register_struct_model(numba_type, model, members, public_fields if members else ())
        stub = rt.make_struct_stub(python_name, qual_name, numba_type)
        stubs[python_name] = stub
        methods: dict[str, list[_Call]] = {}
        mutating: dict[str, list[_Call]] = {}
        statics: dict[str, list[_Call]] = {}
        for kind, name, row, flag in member_rows:
            call = _Call(rt, row, type_table, shims)
            if kind == "constructor":
                sig = signature(numba_type, *call.visible_args)
                rt.add_overload(stub, sig, call.lowering(library), cxx_name, registries)
                if flag:
                    rt.add_implicit_constructor(
                        numba_type, call.visible_args[0], call.lowering(library)
                    )
            elif kind == "conversion":
                rt.add_conversion(numba_type, call.cxx_result, call.lowering(library), registries)
            elif kind == "operator":
                key = getattr(operator, name)
                rt.add_overload(key, call.signature(), call.lowering(library), name, registries)
            elif kind == "static_method":
                statics.setdefault(name, []).append(call)
            else:
                methods.setdefault(name, []).append(call)
                if flag:
                    mutating.setdefault(name, []).append(call)
        if statics:
            static_overloads = {
                name: [(c.signature(), c.lowering(library)) for c in calls]
                for name, calls in statics.items()
            }
            rt_members.add_static_methods(stub, qual_name, static_overloads, registries)
        if methods:
            overloads = {
                name: [
                    (c.visible_args[1:], c.numba_return_type, c.lowering(library)) for c in calls
                ]
                for name, calls in methods.items()
            }
            rt.add_methods(numba_type, qual_name, overloads, registries)
        if mutating:
            mutators = {
                name: [
                    (c.visible_args[1:], c.numba_return_type, c.lowering(library, True))
                    for c in calls
                ]
                for name, calls in mutating.items()
            }
            rt_members.add_mutating_methods(numba_type, mutators, registries)
    return stubs


def bind_functions(
    rt,
    functions: Sequence[tuple],
    type_table: tuple,
    shims: Sequence[tuple[str, str]],
    library: ShimLibrary,
    registries,
) -> dict[str, Any]:
    """Free functions and operators, as ``numbast.functions.bind_cxx_function`` does; all
    overloads of one Python name share one stub."""
    stubs: dict[str, Any] = {}
    for python_name, qual_name, operator_name, row, label, cooperative in functions:
        call = _Call(rt, row, type_table, shims)
        if operator_name:
            key = getattr(operator, operator_name)
        else:
            key = stubs.get(python_name)
            if key is None:
                key = stubs[python_name] = rt.make_function_stub(qual_name, python_name)
        lowering = call.lowering(library)
        if cooperative:
            lowering = _cooperative(lowering)
        rt.add_overload(key, call.signature(), lowering, label, registries)
    return stubs

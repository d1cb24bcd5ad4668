"""What dynamic binding keeps per shim writer, in one registry: the function stubs bound with
the writer (one per C++ qualified name, so a second overload joins the first), its function
template stubs, and its template context (how its templates are instantiated).

Kept here rather than as attributes on the user's writer (an object of theirs, maybe of a class
of their own), and made under one lock: two threads binding with one writer get one state. The
registry holds writers weakly; in practice a writer with bindings lives as long as the process,
since Numba's registries keep its lowerings.
"""

from __future__ import annotations

import threading
import weakref
from dataclasses import dataclass, field
from typing import Any

from numbast.runtime.overloads import FunctionStubs
from numbast.runtime.shim_library import ShimLibrary, add_nvrtc_include_dirs
from numbast.runtime.templates.context import TemplateContext


@dataclass
class WriterBindings:
    """The binding state of one shim writer."""

    function_stubs: FunctionStubs = field(default_factory=lambda: FunctionStubs(by_qual_name=True))
    template_stubs: dict[str, Any] = field(default_factory=dict)  # qualified name -> stub
    templates: TemplateContext | None = None


class BinderRegistry:
    """Shim writer -> its WriterBindings (see the module docstring)."""

    def __init__(self) -> None:
        self._states: weakref.WeakKeyDictionary[ShimLibrary, WriterBindings] = (
            weakref.WeakKeyDictionary()
        )
        self.lock = threading.RLock()

    def of(self, shim_writer: ShimLibrary) -> WriterBindings:
        with self.lock:
            state = self._states.get(shim_writer)
            if state is None:
                state = self._states[shim_writer] = WriterBindings()
            return state

    def template_context(self, shim_writer: ShimLibrary, options: Any) -> TemplateContext:
        """The writer's template context, made with ``options`` (an InstantiationOptions) by
        the first template bound with it."""
        with self.lock:
            state = self.of(shim_writer)
            if state.templates is None:
                add_nvrtc_include_dirs(options.include_dirs)
                state.templates = TemplateContext(
                    f"templates of {shim_writer.link_object().name}",
                    shim_writer,
                    arch=options.arch,
                    defines=options.defines,
                )
            return state.templates


BINDERS = BinderRegistry()

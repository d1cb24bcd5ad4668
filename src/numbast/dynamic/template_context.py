"""The template context of a shim writer: one per writer, so its templates' instances share its
shims, and the options that say how to instantiate them."""

from __future__ import annotations

from dataclasses import dataclass

from numbast.dynamic.binders import BINDERS
from numbast.runtime.shim_library import ShimLibrary
from numbast.runtime.templates.context import _CLASS_TEMPLATES, TemplateContext


@dataclass(frozen=True)
class InstantiationOptions:
    """How templates bound to a shim writer are instantiated: the GPU arch to ask the compiler
    for (None: the current GPU's), the directories its includes are found in, and macros to
    define (besides those the shim writer's preamble defines)."""

    arch: str | None = "sm_90"
    include_dirs: tuple[str, ...] = ()
    defines: tuple[str, ...] = ()


def context_for(shim_writer: ShimLibrary, options: InstantiationOptions | None) -> TemplateContext:
    """The template context of ``shim_writer`` (made with ``options`` by its first template)."""
    return BINDERS.template_context(shim_writer, options or InstantiationOptions())


def known_class_templates() -> list[str]:
    """Qualified names of the class templates bound in this process (patterns name them)."""
    return [binder.row.qual_name for binder in list(_CLASS_TEMPLATES.values())]

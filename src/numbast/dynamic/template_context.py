"""The template context of a shim writer: one per writer, so its templates' instances share its
shims, and the options that say how to instantiate them."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ast_canopy.model import ParamVar
from numbast.planning.intents import IntentSpec, resolve_intents
from numbast.runtime.shim_library import ShimLibrary, add_nvrtc_include_dirs
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
    context = getattr(shim_writer, "_numbast_templates", None)
    if context is None:
        options = options or InstantiationOptions()
        add_nvrtc_include_dirs(options.include_dirs)
        context = TemplateContext(
            f"templates of {shim_writer.link_object().name}",
            shim_writer,
            arch=options.arch,
            defines=options.defines,
        )
        shim_writer._numbast_templates = context
    return context


def known_class_templates() -> list[str]:
    """Qualified names of the class templates bound in this process (patterns name them)."""
    return [binder.row.qual_name for binder in list(_CLASS_TEMPLATES.values())]


def template_intents(
    params: Sequence[ParamVar], spec: IntentSpec | None, qual_name: str
) -> tuple[str, ...]:
    """The intent of each parameter of a template's callable (``in`` unless ``spec`` says
    otherwise), as the runtime takes them; raises BindingError for an unknown parameter or
    intent, or an intent on a parameter that is neither a reference nor a pointer."""
    if not spec:
        return ()
    return tuple(intent.value for intent in resolve_intents(qual_name, params, spec))

"""NVIDIA Numbast's module path for class template binding (``numbast.class_template``); the
binders live in :mod:`numbast.dynamic.class_templates`.

Two private helpers of NVIDIA's module are named here because NVIDIA's test module imports them
at its top: ``_get_ctor_candidates_from_template_record`` (the constructors of a class
template's record) works; ``_make_templated_method_shim_arg_strings`` writes the parameter list
of NVIDIA's own shims, which this package does not have (its shims take every argument by
pointer, see docs/numbast.md), so it raises NotImplementedError (docs/numbast_compat.md).
"""

from __future__ import annotations

from typing import Any

from ast_canopy.model import Method, Struct
from numbast.dynamic.class_templates import (
    bind_cxx_class_template,
    bind_cxx_class_templates,
    clear_concrete_type_caches,
)


def _get_ctor_candidates_from_template_record(record: Struct) -> list[Method]:
    """The constructors of a class template's record, every overload kept."""
    return list(record.constructors())


def _make_templated_method_shim_arg_strings(*args: Any, **kwargs: Any) -> tuple[str, str]:
    raise NotImplementedError(
        "NVIDIA Numbast's shim parameter lists have no counterpart here: numbast-import's shims "
        "take every argument by pointer (numbast.core.shim_text)"
    )


__all__ = ["bind_cxx_class_template", "bind_cxx_class_templates", "clear_concrete_type_caches"]

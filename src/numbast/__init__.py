"""numbast: generate Numba-CUDA bindings from ast_canopy declarations (second stage).

The public names are the ones NVIDIA's Numbast documents, so its examples run unchanged.
Importing this package is cheap: numba is imported only when a binding name is first used.
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

# name -> submodule that defines it; resolved on first attribute access (PEP 562).
_LAZY: dict[str, str] = {
    "MemoryShimWriter": "numbast.dynamic.shim_writer",
    "FileShimWriter": "numbast.dynamic.shim_writer",
    "bind_cxx_struct": "numbast.dynamic.structs",
    "bind_cxx_structs": "numbast.dynamic.structs",
    "bind_cxx_function": "numbast.dynamic.functions",
    "bind_cxx_functions": "numbast.dynamic.functions",
    "bind_cxx_enum": "numbast.dynamic.enums",
    "bind_cxx_enums": "numbast.dynamic.enums",
    "bind_cxx_function_template": "numbast.dynamic.function_templates",
    "bind_cxx_function_templates": "numbast.dynamic.function_templates",
    "bind_cxx_class_template": "numbast.dynamic.class_templates",
    "bind_cxx_class_templates": "numbast.dynamic.class_templates",
    "clear_concrete_type_caches": "numbast.dynamic.class_templates",
    "register_cxx_type": "numbast.dynamic.numba_types",
    "BindingSkippedWarning": "numbast.planning.diagnostics",
    "ArgIntent": "numbast.planning.intents",
    "element_pointer": "numbast.runtime.pointers",
    "struct_array": "numbast.runtime.struct_arrays",
    "struct_dtype": "numbast.runtime.struct_arrays",
    "bind_header": "numbast.dynamic.header_binding",
    "bind_declarations": "numbast.dynamic.header_binding",
    "BoundHeader": "numbast.dynamic.header_binding",
}


def __getattr__(name: str) -> Any:
    module_name = _LAZY.get(name)
    if module_name is None:
        raise AttributeError(f"module 'numbast' has no attribute {name!r}")
    value = getattr(importlib.import_module(module_name), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(list(globals()) + list(_LAZY))

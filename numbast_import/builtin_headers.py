"""The built-in header modules (``numbast.headers.<name>``): CUDA toolkit headers with the
options that bind them well.

Each entry is the table form of a ``[tool.numbast-import.headers]`` mapping, with paths
relative to the toolkit's include directory. The 16-bit float formats are bound as Numba
numbers in a register (``Number`` / ``PrimitiveModel``) so they pass by value like ``float``;
the paired ``.hpp`` holds most of the definitions and is retained alongside its ``.h``.
"""

from __future__ import annotations

from typing import Any

BUILTIN_HEADERS: dict[str, dict[str, Any]] = {
    "cufp16": {
        "header": "cuda_fp16.h",
        "retain": ["cuda_fp16.hpp"],
        "types": {"__half": "Number"},
        "data-models": {"__half": "PrimitiveModel"},
    },
    "cubf16": {
        "header": "cuda_bf16.h",
        "retain": ["cuda_bf16.hpp"],
        "types": {"__nv_bfloat16": "Number"},
        "data-models": {"__nv_bfloat16": "PrimitiveModel"},
    },
    "cufp8": {
        "header": "cuda_fp8.h",
        "retain": ["cuda_fp8.hpp"],
        "types": {"__nv_fp8_e4m3": "Number"},
        "data-models": {"__nv_fp8_e4m3": "PrimitiveModel"},
    },
}


def builtin_mapping(name: str):
    """The :class:`numbast_import.config.HeaderMapping` of built-in module ``name``."""
    from ast_canopy.toolkit import cudart_include_dir
    from numbast_import.config import header_mapping

    return header_mapping(
        name, BUILTIN_HEADERS[name], cudart_include_dir(), "built-in numbast.headers"
    )

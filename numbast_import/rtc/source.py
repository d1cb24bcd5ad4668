"""The translation unit compiled for a SourceModule: PyCUDA's ``extern "C"`` wrapper, with a
``#line`` directive so that compiler messages keep the user's line numbers."""

from __future__ import annotations

SOURCE_NAME = "kernel.cu"


def translation_unit(source: str, no_extern_c: bool) -> str:
    """``source`` as compiled: wrapped in ``extern "C" { }`` unless ``no_extern_c``."""
    if no_extern_c:
        return source
    return f'extern "C" {{\n#line 1 "{SOURCE_NAME}"\n{source}\n}}\n'

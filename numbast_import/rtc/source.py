"""The translation unit compiled for a SourceModule: PyCUDA's ``extern "C"`` wrapper, with a
``#line`` directive so that compiler messages keep the user's line numbers.

Unlike PyCUDA, the ``#include`` lines that open the source (before any other code) are moved
above the wrapper: C++ headers such as ``cuda_fp16.h`` cannot be included inside
``extern "C"``. Their lines stay in place as blank lines, and each moved line is preceded by
a ``#line`` directive, so compiler messages give the user's line numbers everywhere.
"""

from __future__ import annotations

import re

SOURCE_NAME = "kernel.cu"
_LEADING = re.compile(r"[ \t]*(#[ \t]*include\b.*|//.*|)$")


def translation_unit(source: str, no_extern_c: bool) -> str:
    """``source`` as compiled: wrapped in ``extern "C" { }`` unless ``no_extern_c``."""
    if no_extern_c:
        return source
    lines = source.split("\n")
    hoisted = []
    for index, line in enumerate(lines):
        if not _LEADING.match(line):
            break
        if line.lstrip().startswith("#"):
            hoisted.append(f'#line {index + 1} "{SOURCE_NAME}"\n{line}\n')
            lines[index] = ""
    head = "".join(hoisted)
    body = "\n".join(lines)
    return f'{head}extern "C" {{\n#line 1 "{SOURCE_NAME}"\n{body}\n}}\n'

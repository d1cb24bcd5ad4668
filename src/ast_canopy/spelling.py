"""Reading C++ spellings that clang hands back as text (no clang needed here).

Kept free of libclang so the binding layer can use it on a warm path.
"""

from __future__ import annotations

import re

# An elaborated type specifier ("struct A") names the same type as "A"; spellings meant for
# lookups and for generated C++ drop the keyword.
_TAG_KEYWORD = re.compile(r"\b(?:struct|class|union|enum)\s+")


def drop_tag_keywords(spelling: str) -> str:
    return _TAG_KEYWORD.sub("", spelling)


def split_template_arguments(display_name: str) -> tuple[str, ...]:
    """``"Vec<float, 3>"`` -> ``("float", "3")``, splitting at top-level commas only."""
    start = display_name.find("<")
    if start < 0 or not display_name.endswith(">"):
        return ()
    inner = display_name[start + 1 : -1]
    args: list[str] = []
    depth = 0
    current = []
    for ch in inner:
        if ch in "<([{":
            depth += 1
        elif ch in ">)]}":
            depth -= 1
        if ch == "," and depth == 0:
            args.append("".join(current).strip())
            current = []
        else:
            current.append(ch)
    if "".join(current).strip():
        args.append("".join(current).strip())
    return tuple(args)

"""Toolkit headers that clang's CUDA wrapper hides, read anyway.

clang's CUDA runtime wrapper does not include ``sm_30_intrinsics.h`` and ``sm_32_intrinsics.h``
(``__shfl_*_sync``, ``__ldg``, ``__ldcg``, ``__funnelshift_*``...): its
``__clang_cuda_intrinsics.h`` defines those functions itself with clang builtins, and defines
the headers' include guards (``__SM_32_INTRINSICS_H__``, ``..._HPP__``) so that the toolkit's
copies are skipped when anything includes them. A header mapped or retained from that family
would bind nothing. NVRTC, which compiles the shims, reads the toolkit's copies.

So each retained header of the family is also parsed on its own, the way a CUDA compiler that
has no such wrapper reads it: without clang's wrapper (``-nocudainc``), with ``__CUDACC__``
defined as the wrapper would, from the toolkit's directory (``cuda_header_mode``). Its
declarations are added to the parse's, so a mapping of ``sm_32_intrinsics.h``, or of a header
that includes it and retains it, binds the toolkit's ``__ldg`` overloads with their own
signatures and locations.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable
from pathlib import Path

from ast_canopy.model import Declarations

logger = logging.getLogger(__name__)

# The family, by the header that declares the API and its .hpp of definitions.
HIDDEN_BY_CLANG_WRAPPER = {
    "sm_30_intrinsics.h": "sm_30_intrinsics.hpp",
    "sm_32_intrinsics.h": "sm_32_intrinsics.hpp",
}


def hidden_headers(retained: frozenset[str], cudart_include: str) -> list[tuple[str, list[str]]]:
    """(header to parse, its retained files) for each of the family that ``retained`` names."""
    include = Path(cudart_include)
    found = []
    for header, definitions in HIDDEN_BY_CLANG_WRAPPER.items():
        # Each file's own realpath, as ``retained`` holds them: a toolkit directory may be made
        # of links to the headers (a stand-in layout), not only be reached through one.
        files = [os.path.realpath(include / name) for name in (header, definitions)]
        kept = [path for path in files if path in retained]
        if kept:
            found.append((files[0], kept))
    return found


def add_hidden_declarations(
    decls: Declarations,
    hidden: list[tuple[str, list[str]]],
    parse: Callable[[str, list[str]], Declarations],
) -> None:
    """Parse each hidden header with ``parse(header, retained)`` (which must read it without
    clang's wrapper) and add its functions and macro constants (all the family declares) to
    ``decls``, and the files it read to ``decls.included_files``."""
    for header, retained in hidden:
        extra = parse(header, retained)
        logger.debug("%s: %d functions read without clang's wrapper", header, len(extra.functions))
        functions = {f.mangled_name for f in decls.functions}
        decls.functions += [f for f in extra.functions if f.mangled_name not in functions]
        macros = {m.name for m in decls.macro_constants}
        decls.macro_constants += [m for m in extra.macro_constants if m.name not in macros]
        included = set(decls.included_files)
        decls.included_files += [p for p in extra.included_files if p not in included]

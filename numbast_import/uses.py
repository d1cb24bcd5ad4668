"""Header modules that use the types of others: ``numbast.headers.cufp8`` takes
``numbast.headers.cufp16``'s ``__half``, not Numba's ``float16``.

A mapping's ``uses`` lists the modules whose bound types its declarations use, in order. Those
modules are imported first, always (so a type means the same whatever the user imported before),
and the generator maps each C++ type they export (``__numbast_types__``) to theirs: the new
module's rows name it ``("external", module, python_name)``, resolved when the rows are applied.
Today only built-in modules use others, following their headers' ``#include`` order.
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence

from numbast_import.mapping import HeaderMapping


def import_used_modules(mapping: HeaderMapping) -> None:
    """Import (building them when needed) the modules ``mapping`` uses, in order."""
    for name in mapping.uses:
        importlib.import_module(name)


def external_types(uses: Sequence[str]) -> tuple:
    """The types the modules ``uses`` export, as ``ExternalType``\\ s for the generator (a type
    exported by two of them is the later one's)."""
    from numbast.planning.type_refs import ExternalType

    found: dict[str, ExternalType] = {}
    for name in uses:
        module = importlib.import_module(name)
        for qual_name, python_name, enum_storage in getattr(module, "__numbast_types__", ()):
            found[qual_name] = ExternalType(qual_name, name, python_name, enum_storage)
    return tuple(found.values())

"""Members a struct inherits, as C++ finds them: the public members of its public bases (and
of theirs), unless a member of the same name declared closer hides them.

A derived object reaches its bases' members in C++ (``cooperative_groups::thread_block``'s
from ``thread_group_base``, a ``numeric_limits`` from ``__numeric_limits_impl``). Planning binds
them as members of the derived struct itself: the shim calls the member through the derived
object (``(*a0).name(args)``, ``::Derived::name(args)``), so C++ finds it, converts the object
to the base and updates it in place as for any member. Only the bases the parse reported
(structs and class template instances of the header) are known; a base of another header's
that no declaration names is not followed.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping

from ast_canopy.model import Access, Method, MethodKind, Struct

logger = logging.getLogger(__name__)

_NOT_INHERITED = (MethodKind.DESTRUCTOR,)


def inherited_methods(decl: Struct, records: Mapping[str, Struct]) -> list[Method]:
    """The public methods ``decl`` inherits, nearest base first; ``records`` are the parsed
    records by qualified name. Constructors and assignment are not inherited (C++), names
    ``decl`` declares hide the bases' members of that name, and a name two bases provide is
    left out (C++ finds it ambiguous)."""
    own = {_name(method) for method in decl.methods}
    own |= {template.function.name for template in decl.templated_methods}
    by_base: list[list[Method]] = []
    for base in decl.bases:
        if base.access is not Access.PUBLIC or base.is_virtual:
            continue
        record = records.get(base.qual_name)
        if record is None:
            logger.debug("%s: base %s is not among the parsed records", decl.qual_name, base)
            continue
        # The base's own members, then what it inherits (which its own already hide).
        found = [m for m in record.methods if _inheritable(m)]
        by_base.append(found + inherited_methods(record, records))
    counts: dict[str, int] = {}
    for methods in by_base:
        for name in {_name(m) for m in methods}:
            counts[name] = counts.get(name, 0) + 1
    return [
        method
        for methods in by_base
        for method in methods
        if _name(method) not in own and counts[_name(method)] == 1
    ]


def _inheritable(method: Method) -> bool:
    return (
        method.access is Access.PUBLIC
        and not method.kind.is_constructor
        and method.kind not in _NOT_INHERITED
        and method.operator != "="
    )


def _name(method: Method) -> str:
    """The name C++ looks up: a conversion function's target, an operator's symbol."""
    if method.kind is MethodKind.CONVERSION_FUNCTION:
        return f"operator {method.return_type.canonical_name}"
    return method.name

"""Templates that no argument of the module fits: every representative instance tried fails
because a type argument lacks a member the template names (CUB's ``BlockLoadType<Policy, It>``
reads ``Policy::BLOCK_THREADS``: ``class "cub::NullType" has no member "BLOCK_THREADS"``) or is
no class at all (``name followed by "::" must be a class or namespace name`` for ``int``).

Such a template is not broken: it needs a type the module does not bind (a tuning policy, an
iterator), which a header of the user's could declare. Coverage says so instead of quoting the
compiler's first error; it still counts the template as device-callable and not bound (what the
module binds is the measure, and a kernel of this module cannot make an instance).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

NEEDS_PREFIX = "needs a type argument the module lacks"

_NO_MEMBER = re.compile(r'class "(?P<cls>[^"]+)" has no member "(?P<member>\w+)"')
_NOT_A_CLASS = 'name followed by "::" must be a class or namespace name'
_NAME = re.compile(r"[A-Za-z_]\w*(?!\w|\s*::)")
_BUILTIN_WORDS = frozenset("bool char short int long float double signed unsigned".split())


def missing_members(tried: Sequence[str], errors: Sequence[str]) -> str | None:
    """``NEEDS_PREFIX`` and the members no argument tried has, when every candidate
    (``tried[i]``, a template-id) failed with ``errors[i]`` because an argument of its own
    lacks a member or is not a class; None when any error says something else."""
    if not errors or len(errors) != len(tried):
        return None
    members: dict[str, None] = {}
    for template_id, error in zip(tried, errors, strict=True):
        arguments = _argument_words(template_id)
        found = _NO_MEMBER.search(error)
        if found is not None:
            # The class lacking it is an argument, or made of one (iterator_traits<int>).
            if not arguments & _names(found["cls"]):
                return None
            members.setdefault(found["member"])
        elif _NOT_A_CLASS in error:
            if not arguments & _BUILTIN_WORDS and "*" not in template_id:
                return None
        else:
            return None
    if not members:
        return f"{NEEDS_PREFIX} (a class: the arguments tried are none)"
    return f"{NEEDS_PREFIX} (the arguments tried have no member {', '.join(members)})"


def _argument_words(template_id: str) -> set[str]:
    """The names in a template-id's arguments (``::ns::Tag<int>``: Tag, int)."""
    return _names(template_id[template_id.find("<") + 1 : template_id.rfind(">")]) - {"void"}


def _names(text: str) -> set[str]:
    """The identifiers of ``text`` that are no namespace's or class's qualifier (those a
    library's classes share: ``cub::``, ``cuda::std::``)."""
    return set(_NAME.findall(text))

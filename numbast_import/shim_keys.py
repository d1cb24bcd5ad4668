"""The key of each shim: a digest of everything its compiled code depends on, so that an edited
header recompiles only the shims whose code changed (issue 22); and the units shims are
compiled and linked in.

NVRTC compiles a shim with the whole header, and the LTO-IR holds the shim and the code of the
header's functions it reaches (inline functions and templates are emitted where used). So a
shim depends on the options, the other files the header includes, the header's global items
(``numbast_import.header_items``: ``#include``, conditionals, anything not understood), and the
items it reaches: those declaring a name its text mentions, then those declaring a name those
mention, and so on. Each item's reach is digested once (Merkle-style over the graph of items,
cycles taken whole), so keys cost about as much as the header's items.

- changing a function's body changes the keys of the shims that reach that function;
- appending a function changes no other key (no other shim mentions its name);
- changing a struct changes the keys of the shims that mention it or reach it.

Line numbers are part of an item's digest only where the header can observe them (it names
``__LINE__``, ``assert``, ``__builtin_LINE`` or ``source_location``, or the options ask for
line information): otherwise moving code changes no key. What a macro of another file expands
to is not followed (such a macro using ``__LINE__`` would keep an old line in a reused unit).

Units: shims are grouped in header order, a unit of at least ``MIN_UNIT`` shims ending after a
shim whose name's digest is a multiple of ``CUT_ONE_IN`` (content-defined chunking, as rsync
and backup tools cut files, on names: a shim's name stays when its header function changes).
An edit changes the keys of the units holding changed shims and no unit's shims; a function
added joins the unit where it lands (a cut moves only where a unit outgrows ``MAX_UNIT``).
A unit has ~15 shims on average and at most ``MAX_UNIT``. Units made ``scale`` times larger
(a header of many constants, ``numbast_import.shim_units``) are at most ``MAX_SCALED_UNIT``
times the scale: NVRTC's memory for one grows with its shims (about 35 MB per thousand on top
of a 5 MB header's ~600 MB), so the largest is kept near the average (issue 23 point 12).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from numbast_import.digests import framed_digest as _digest

if TYPE_CHECKING:
    from numbast_import.header_items import Item

# Units of ~15 shims: a kernel links the units of the shims it calls, and nvJitLink
# spends about 1 ms per KB of LTO-IR (one-line shims: ~0.4 KB each), so a unit costs a kernel
# little more than a 10-function header's whole LTO-IR; compiling one costs about a compile
# of the header alone (NVRTC's time for a unit barely depends on its shims below ~100).
MIN_UNIT = 8
CUT_ONE_IN = 8
MAX_UNIT = 24
MAX_SCALED_UNIT = MIN_UNIT + CUT_ONE_IN
AVERAGE_UNIT = MIN_UNIT + CUT_ONE_IN - 1  # about: cut after the first 8, then one in 8

_OBSERVES_LINES = frozenset(("__LINE__", "assert", "__builtin_LINE", "source_location"))
_LINE_OPTIONS = ("-G", "--device-debug", "-lineinfo", "--generate-line-info")
_NAME = re.compile(r"[A-Za-z_]\w*")
# A shim's own names (numbast.core.shim_text: the result and argument pointers, the result
# type's alias, shims' names), which no header declaration is reached by.
_SHIM_OWN = re.compile(r"nbi_\w*|a\d+")


def shim_keys(
    header_text: str,
    shims: Sequence[tuple[str, str]],
    context: str,
    options: Sequence[str] = (),
) -> dict[str, str]:
    """Shim name -> its key. ``header_text`` is the mapped header (the files it includes are
    in ``context``, a digest of everything else the shims are compiled with)."""
    # Imported here: a warm import links units by the digests below and never cuts a header.
    from numbast_import.header_items import header_items

    items = header_items(header_text)
    if items is None:  # not understood: every shim depends on all of it
        base = _digest(context, "whole header", header_text)
        return {name: _digest(base, name, text) for name, text in shims}
    lines = any(o.startswith(_LINE_OPTIONS) for o in options) or any(
        item.mentions & _OBSERVES_LINES for item in items
    )
    own = [item.digest + (f"@{item.line}" if lines else "") for item in items]
    base = _digest(context, *(own[i] for i, item in enumerate(items) if not item.declares))
    reach = _Reach(items, own)
    keys = {}
    for name, text in shims:
        names = [n for n in _NAME.findall(text) if not _SHIM_OWN.fullmatch(n)]
        reached = sorted(reach.of_names(names))
        keys[name] = _digest(base, name, text, *reached)
    return keys


class _Reach:
    """The digest of everything each item reaches (itself, the items declaring what it
    mentions, and so on), computed once per strongly connected group of items.

    The graph goes through names: an item leads to each name it mentions that some item
    declares, a name to the items declaring it. Edges are as many as the items' mentions and
    declarations (linear in the header), where item-to-item edges would be quadratic: in a
    header whose structs share member names (``a``, ``x``), every item mentioning ``x`` would
    lead to every item declaring it (issue 23: 12 million edges at 0.8 MB of header, several
    GB at 6.5 MB). Reaching an item through a name is reaching it directly, so every item
    reaches the same items either way."""

    def __init__(self, items: Sequence[Item], own: list[str]) -> None:
        self.items = items
        self.declaring: dict[str, list[int]] = {}
        for index, item in enumerate(items):
            for name in item.declares:
                self.declaring.setdefault(name, []).append(index)
        names = {name: len(items) + n for n, name in enumerate(self.declaring)}
        # Nodes: the items, then the declared names (a name's own part is the name itself).
        self.own = [*own, *(f"name {name}" for name in names)]
        self.edges = [sorted({names[n] for n in item.mentions if n in names}) for item in items]
        self.edges += [self.declaring[name] for name in names]
        self.digests = self._digests()

    def of_names(self, names: Iterable[str]) -> set[str]:
        """The reach digests of the items declaring any of ``names``."""
        return {self.digests[j] for name in set(names) for j in self.declaring.get(name, ())}

    def _digests(self) -> list[str]:
        """Tarjan's strongly connected components, iteratively (headers nest deeply), each
        digested with its members and the digests of the components it reaches."""
        count = len(self.edges)
        index_of = [-1] * count
        low = [0] * count
        on_stack = [False] * count
        stack: list[int] = []
        component_of = [-1] * count
        digests: list[str] = [""] * count
        counter = 0
        for root in range(count):
            if index_of[root] != -1:
                continue
            work = [(root, 0)]
            while work:
                node, child = work.pop()
                if child == 0:
                    index_of[node] = low[node] = counter
                    counter += 1
                    stack.append(node)
                    on_stack[node] = True
                edges = self.edges[node]
                if child < len(edges):
                    work.append((node, child + 1))
                    successor = edges[child]
                    if index_of[successor] == -1:
                        work.append((successor, 0))
                    elif on_stack[successor]:
                        low[node] = min(low[node], index_of[successor])
                    continue
                for successor in edges:  # finished children pass their low link up
                    if component_of[successor] == -1 and on_stack[successor]:
                        low[node] = min(low[node], low[successor])
                if low[node] == index_of[node]:
                    members = []
                    while True:
                        member = stack.pop()
                        on_stack[member] = False
                        component_of[member] = node
                        members.append(member)
                        if member == node:
                            break
                    below = {
                        digests[s]
                        for m in members
                        for s in self.edges[m]
                        if component_of[s] != node
                    }
                    digest = _digest(*sorted(self.own[m] for m in members), "->", *sorted(below))
                    for member in members:
                        digests[member] = digest
        return digests


def units_of(names: Sequence[str], scale: int = 1) -> list[list[str]]:
    """The shims ``names`` (in header order) cut into units (see the module docstring);
    ``scale`` times larger ones (a power of two: the cuts of a scale are cuts of the smaller
    scales)."""
    units: list[list[str]] = []
    current: list[str] = []
    least, one_in = MIN_UNIT * scale, CUT_ONE_IN * scale
    most = (MAX_UNIT if scale == 1 else MAX_SCALED_UNIT) * scale
    for name in names:
        current.append(name)
        cut = len(current) >= least and int(_digest(name)[-8:], 16) % one_in == 0
        if cut or len(current) >= most:
            units.append(current)
            current = []
    if current:
        units.append(current)
    return units

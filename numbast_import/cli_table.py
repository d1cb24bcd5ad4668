"""Tables for ``numbast-cache`` text output, fitted to the terminal's width: paths shown short
(relative to the working directory or the project, ``~`` for home), and where a row is still too
wide, the path columns cut from the left (``…`` then the end of the path, which names the file).
``--wide`` shows them whole; ``--json`` always gives everything."""

from __future__ import annotations

import os
import shutil
from collections.abc import Collection, Sequence

ELLIPSIS = "…"
MIN_CUT_WIDTH = 10  # a cut column keeps at least this many characters
GAP = "  "


def terminal_width() -> int:
    """The terminal's width (``COLUMNS`` when set; 100 when there is no terminal)."""
    return shutil.get_terminal_size((100, 24)).columns


def short_path(path: str | None, base: str | None = None) -> str:
    """``path`` relative to ``base`` (or the working directory) when inside it, else with
    ``~`` for the home directory; "-" for none."""
    if not path:
        return "-"
    for start in (base, os.getcwd()):
        if start and _inside(path, start):
            return os.path.relpath(path, start)
    home = os.path.expanduser("~")
    if home not in ("", "/") and _inside(path, home):
        return "~" + os.sep + os.path.relpath(path, home)
    return path


def _inside(path: str, directory: str) -> bool:
    try:
        return os.path.commonpath([os.path.abspath(path), os.path.abspath(directory)]) == (
            os.path.abspath(directory)
        )
    except ValueError:  # different drives
        return False


def table(
    rows: Sequence[Sequence[str]],
    width: int | None = None,
    cuttable: Sequence[Collection[int]] = (),
) -> str:
    """``rows`` (the first is the heading) as left-aligned columns. With ``width``, columns are
    cut from the left until a line fits: those of the first group in ``cuttable`` first (widest
    first, each down to MIN_CUT_WIDTH at most), then the next group's."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    excess = sum(widths) + len(GAP) * (len(widths) - 1) - width if width else 0
    for group in cuttable:
        while excess > 0:
            candidates = [i for i in group if widths[i] > MIN_CUT_WIDTH]
            if not candidates:
                break
            widest = max(candidates, key=lambda i: widths[i])
            others = [widths[i] for i in candidates if i != widest] or [MIN_CUT_WIDTH]
            cut = min(excess, widths[widest] - max(max(others), MIN_CUT_WIDTH)) or 1
            widths[widest] -= cut
            excess -= cut
    return "\n".join(
        GAP.join(_fit(cell, w).ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip()
        for row in rows
    )


def _fit(cell: str, width: int) -> str:
    return cell if len(cell) <= width else ELLIPSIS + cell[len(cell) - width + 1 :]

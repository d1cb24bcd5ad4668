"""Numbers a user sets in the environment (``NUMBAST_IMPORT_LOCK_TIMEOUT``,
``NUMBAST_IMPORT_PARSE_PROCESS_MB``), read alike: unset or empty is the default; anything but
a number >= 0 is an ImportConfigError that says what to set."""

from __future__ import annotations

import os

from numbast_import.errors import ImportConfigError


def non_negative_number(name: str, default: float, unit: str, example: str) -> float:
    """The value of the environment variable ``name`` in ``unit``; ``example`` completes "set
    it to one (such as NAME=...)"."""
    text = os.environ.get(name, "").strip()
    if not text:
        return default
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not value >= 0:  # also NaN
        raise ImportConfigError(
            f"{name}={text!r} is not a number of {unit}; set it to one (such as {name}="
            f"{example}), or unset it for the default of {default:g} {unit}"
        )
    return value

"""How the binding generator reports a declaration it cannot bind: one warning each, never a
failure of the rest of the header."""

from __future__ import annotations

import logging
import warnings
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

_Bound = TypeVar("_Bound")

logger = logging.getLogger(__name__)


class BindingSkippedWarning(UserWarning):
    """A declaration was left out of the bindings; the message names it and says why."""


class BindingError(TypeError):
    """A declaration cannot be bound. Raised inside the generator, reported as a skip."""


def warn_skipped(kind: str, qual_name: str, reason: str, where: str = "") -> None:
    location = f" ({where})" if where else ""
    message = f"numbast: skipped {kind} {qual_name}{location}: {reason}"
    logger.info(message)
    warnings.warn(message, BindingSkippedWarning, stacklevel=3)


def bind_each(
    declarations: Iterable[Any], exclude: Iterable[str], bind: Callable[[Any], _Bound | None]
) -> list[_Bound]:
    """``bind`` applied to each declaration whose name ``exclude`` does not hold, in order; a
    declaration ``bind`` skips (it warns and returns None) is left out of the list."""
    excluded = set(exclude)
    results = (bind(decl) for decl in declarations if decl.name not in excluded)
    return [result for result in results if result is not None]

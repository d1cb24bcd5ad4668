"""What every ``numbast-cache`` command works on and prints with: the context (cache root,
layers, project, output format), the failures commands raise, and human-readable sizes and ages.
The parser is ``numbast_import.cli``; the commands are ``numbast_import.cli_commands``."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from numbast_import.cache import inventory
from numbast_import.config import ProjectConfig

if TYPE_CHECKING:
    from numbast_import.project_cache import Module

OK, PROBLEM, USAGE = 0, 1, 2


class Failure(Exception):
    """A request that cannot be served: printed as ``numbast-cache: <message>``, exit 1."""


class UsageError(Failure):
    """Arguments that do not make a request (argparse cannot say it): exit 2."""


class Context:
    """What every command works on, and how it prints."""

    def __init__(self, root: Path, layers: list[Path], project: ProjectConfig, as_json: bool):
        self.root = root
        self.layers = layers
        self.project = project
        self.as_json = as_json
        if root.exists():
            from numbast_import.cache.root import check_safe

            check_safe(root)

    def records(self, verify: bool = False) -> list[inventory.Record]:
        return inventory.records(self.root, self.layers, verify=verify)

    def import_arch(self, module: Module) -> tuple[str | None, str]:
        """The arch an import of ``module`` would use now (``NUMBAST_IMPORT_ARCH``, the GPU,
        the pin), or None and why there is none: inspecting commands then look at the entries
        that exist, and only building ones ask for an arch."""
        from numbast_import.arch import resolve_arch
        from numbast_import.errors import ArchUnknownError

        try:
            return resolve_arch(module.mapping.arch, module.fullname, module.mapping.source), ""
        except ArchUnknownError as exc:
            return None, str(exc)

    def emit(self, data: Any, text: str) -> None:
        print(json.dumps(data, indent=1, sort_keys=True) if self.as_json else text)


def human_size(size: int) -> str:
    for unit, scale in (("G", 2**30), ("M", 2**20), ("K", 2**10)):
        if size >= scale:
            return f"{size / scale:.1f}{unit}"
    return f"{size}B"


def human_age(since: float | None) -> str:
    if not since:
        return "?"
    seconds = max(time.time() - since, 0)
    for unit, length in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= length:
            return f"{seconds / length:.0f}{unit}"
    return f"{seconds:.0f}s"

"""Helpers for the static generator tests: render a config into a module file and import it.

Configs are written as the YAML keys would give them (a dict), with paths relative to
tests/data/static/, and go through the same validation as a config file.
"""

from __future__ import annotations

import importlib.util
import itertools
import sys
import warnings
from pathlib import Path
from types import ModuleType
from typing import Any

from numbast.static.config import StaticConfig, config_from_mapping
from numbast.static.renderer import render_bindings_module

DATA = Path(__file__).parent / "data" / "static"
_names = itertools.count()


def static_config(entry: str, **keys: Any) -> StaticConfig:
    """A config for ``DATA/entry`` (File List defaults to the entry point, GPU Arch to sm_90);
    ``keys`` are further YAML keys with spaces written as underscores (``Skip_Prefix=...``)."""
    raw: dict[str, Any] = {"Entry Point": entry, "File List": [entry], "GPU Arch": ["sm_90"]}
    raw.update({key.replace("_", " "): value for key, value in keys.items()})
    return config_from_mapping(raw, base_dir=str(DATA), source=f"<test config for {entry}>")


def render(config: StaticConfig, directory: Path, *, quiet: bool = True) -> Path:
    """Render ``config`` into ``directory``; returns the module's path."""
    with warnings.catch_warnings():
        if quiet:
            warnings.simplefilter("ignore")
        source = render_bindings_module(config)
    path = directory / config.output_filename
    path.write_text(source, encoding="utf-8")
    return path


def import_path(path: Path) -> ModuleType:
    """Import the module at ``path`` under a fresh name (tests import several versions)."""
    name = f"{path.stem}_{next(_names)}"
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def generate(entry: str, directory: Path, **keys: Any) -> ModuleType:
    """Render the config for ``entry`` into ``directory`` and import the module."""
    return import_path(render(static_config(entry, **keys), directory))

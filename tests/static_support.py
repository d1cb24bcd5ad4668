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
from numbast.static.renderer import render_bindings

DATA = Path(__file__).parent / "data" / "static"
_names = itertools.count()


def static_config(entry: str, **keys: Any) -> StaticConfig:
    """A config for ``DATA/entry`` (File List defaults to the entry point, GPU Arch to sm_90);
    ``keys`` are further YAML keys with spaces written as underscores (``Skip_Prefix=...``)."""
    raw: dict[str, Any] = {"Entry Point": entry, "File List": [entry], "GPU Arch": ["sm_90"]}
    raw.update({key.replace("_", " "): value for key, value in keys.items()})
    return config_from_mapping(raw, base_dir=str(DATA), source=f"<test config for {entry}>")


def render(
    config: StaticConfig, directory: Path, *, quiet: bool = True, embed_runtime: bool = True
) -> Path:
    """Render ``config`` into ``directory``; returns the module's path. ``embed_runtime=False``:
    the module imports the installed runtime (as the import system's cache entries do)."""
    with warnings.catch_warnings():
        if quiet:
            warnings.simplefilter("ignore")
        source = render_bindings(config, embed_runtime=embed_runtime).source
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


# -- recording what the apply path registers, to compare static modules with dynamic binding --


def _name(value: Any) -> str:
    return value.__name__ if isinstance(value, type) else str(value)


def _describe_call(call) -> str:
    arguments = ", ".join(f"{a.type} {a.mode} {a.align}" for a in call.arguments)
    return (
        f"{call.shim_name} | {call.shim_text!r} | ({arguments}) -> {call.cxx_result} "
        f"align {call.result_align} first {call.returns_first_argument}"
    )


def _recorders(calls: list[str]):
    """Wrappers of the runtime's apply functions that describe what each applies, with every
    type and shim resolved (so rows indexed differently still compare equal)."""
    from numbast.runtime import apply
    from numbast.runtime.calls import Call

    def unwrapped(function):  # a recorder left in place by an earlier call: its original
        return getattr(function, "original", function)

    original_struct = unwrapped(apply.apply_struct)
    original_function = unwrapped(apply.apply_function)
    original_enum = unwrapped(apply.make_enum)

    def apply_struct(row, numba_type, body, types_, shims, *args, **kwargs):
        fields = None if body.fields is None else [(n, str(types_[i])) for n, i in body.fields]
        lines = [
            f"struct {row.python_name} {row.qual_name} {row.sizeof} {row.alignof} "
            f"{_name(row.parent_type)} {_name(row.data_model)} {fields} {body.public_fields}"
        ]
        for kind, name, call, flag in body.members:
            described = _describe_call(Call(call, types_, shims))
            lines.append(f"  member of {row.qual_name}: {kind} {name} {flag} {described}")
        calls.append("\n".join(sorted(lines)))
        return original_struct(row, numba_type, body, types_, shims, *args, **kwargs)

    def apply_function(row, types_, shims, *args, **kwargs):
        call = _describe_call(Call(row.call, types_, shims))
        calls.append(
            f"function {row.python_name} {row.qual_name} {row.operator} {row.label} "
            f"{row.cooperative} {row.declaration!r} {call}"
        )
        return original_function(row, types_, shims, *args, **kwargs)

    def make_enum(row, *args):
        calls.append(f"enum {tuple(row)}")
        return original_enum(row, *args)

    apply_struct.original = original_struct
    apply_function.original = original_function
    make_enum.original = original_enum
    return {"apply_struct": apply_struct, "apply_function": apply_function, "make_enum": make_enum}


def dynamic_registrations(config: StaticConfig, monkeypatch) -> tuple[list[str], str]:
    """What ``numbast.bind_header`` applies for the config's header (its first arch, its File
    List, Types, Data Models, intents, macros and include paths), recorded; and the preamble of
    its shim writer. ``monkeypatch``: pytest's, or any object with ``setattr``."""
    from numba.cuda import types
    from numba.cuda.datamodel import models as numba_models

    from numbast import bind_header
    from numbast.runtime import apply

    calls: list[str] = []
    # bind_header applies its rows through the runtime's apply_rows, which looks these up in
    # its module's globals.
    for name, recorder in _recorders(calls).items():
        monkeypatch.setattr(apply, name, recorder)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        bound = bind_header(
            config.entry_point,
            arch=config.gpu_arch[0],
            retain=config.file_list[1:],
            parent_types={name: getattr(types, cls) for name, cls in config.types.items()},
            data_models={name: getattr(numba_models, m) for name, m in config.data_models.items()},
            arg_intents=config.function_argument_intents,
            include_dirs=config.clang_include_paths,
            defines=config.predefined_macros,
        )
    return calls, bound.shim_writer.preamble


def static_registrations(module: ModuleType, monkeypatch) -> tuple[list[str], str]:
    """What the generated ``module``'s rows register, applied again through the installed
    runtime with recorders; and the preamble of the module's shim library."""
    from numbast.runtime import apply
    from numbast.runtime.deferred import run_lookups, run_pending

    # The module's own registrations, deferred at its import (functions: until a kernel looks
    # them up), run unrecorded.
    run_pending()
    run_lookups(vars(module).values())
    calls: list[str] = []
    # apply_module looks these up in its module's globals.
    for name, recorder in _recorders(calls).items():
        monkeypatch.setattr(apply, name, recorder)
    names = apply.apply_module("recorded", module._nb_rows, module._numbast_shim_library)
    run_pending()  # these are recorded
    run_lookups(names.values())
    return calls, module._numbast_shim_library.preamble

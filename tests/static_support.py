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


# -- recording what binding registers, to compare static modules with dynamic binding ----------

RECORDED = (
    "make_struct_type",
    "register_struct_model",
    "make_struct_stub",
    "add_overload",
    "add_implicit_constructor",
    "add_conversion",
    "add_methods",
    "add_mutating_methods",
    "add_static_methods",
)


def _describe(value) -> str:
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_describe(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {_describe(v)}" for k, v in sorted(value.items())) + "}"
    from numba.cuda import types

    if isinstance(value, types.Type):
        return str(value)
    if callable(value) and getattr(value, "_shim", None):
        return value._shim
    if isinstance(value, type):
        return f"class {value.__name__}"
    if callable(value):
        return getattr(value, "__name__", type(value).__name__)
    if type(value).__name__ == "Registries":
        return "registries"
    return str(value)


def _recording_runtime(calls: list[str]):
    """numbast.runtime with its registration functions wrapped to record their arguments."""
    import types as pytypes

    from numbast import runtime, runtime_members

    recorder = pytypes.ModuleType("recording_runtime")
    recorder.__dict__.update(runtime.__dict__)
    original_lowering = getattr(runtime.shim_lowering, "original", runtime.shim_lowering)

    def shim_lowering(shims, name, text, arguments, result, align=None, first=False, updated=False):
        lowering = original_lowering(shims, name, text, arguments, result, align, first, updated)
        lowering._shim = f"{name}|{text}|{_describe(arguments)}|{result}|{align}|{first}|{updated}"
        return lowering

    shim_lowering.original = original_lowering
    recorder.shim_lowering = shim_lowering
    for name in RECORDED:
        original = getattr(runtime, name, None) or getattr(runtime_members, name)

        def record(*args, _name=name, _original=original, **kwargs):
            described = [_describe(a) for a in args if type(a).__name__ != "Registries"]
            calls.append(f"{_name}({', '.join(described)})")
            return _original(*args, **kwargs)

        setattr(recorder, name, record)
    return recorder


def dynamic_registrations(
    config: StaticConfig, parent_types: dict[str, str], monkeypatch
) -> list[str]:
    """What ``numbast.header.bind_declarations`` registers for the config's header (parsed for
    its first arch), recorded. ``monkeypatch`` (pytest's, or any object with ``setattr``)
    routes numbast.functions / numbast.structs through the recording runtime."""
    from numba.cuda import types

    import numbast.functions
    import numbast.structs
    from ast_canopy import parse_declarations_from_source
    from numbast.header import bind_declarations
    from numbast.shim_writer import MemoryShimWriter

    calls: list[str] = []
    recorder = _recording_runtime(calls)
    for binder in (numbast.functions, numbast.structs):
        for name in RECORDED:
            if hasattr(binder, name):
                monkeypatch.setattr(binder, name, getattr(recorder, name))
    monkeypatch.setattr(numbast.runtime, "shim_lowering", recorder.shim_lowering)
    monkeypatch.setattr(numbast.functions, "_FUNCTION_STUBS", {})
    decls = parse_declarations_from_source(
        config.entry_point, list(config.file_list), config.gpu_arch[0]
    )
    parents = {name: getattr(types, cls) for name, cls in parent_types.items()}
    models = {}
    if config.data_models:
        from numba.cuda.datamodel import models as numba_models

        models = {name: getattr(numba_models, m) for name, m in config.data_models.items()}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        bind_declarations(
            MemoryShimWriter(""), decls, parents, models, config.function_argument_intents
        )
    return calls


def static_registrations(module: ModuleType) -> list[str]:
    """What the generated ``module``'s tables register, applied again through the recording
    runtime (the module's own import used its embedded copy of the runtime)."""
    from numba.cuda import types

    from numbast.static import module_runtime

    calls: list[str] = []
    recorder = _recording_runtime(calls)
    struct_types = module_runtime.make_struct_types(recorder, module._nb_struct_table, "test")
    enums = module_runtime.make_enums(module._nb_enum_table)
    type_table = module._nb_type_table(types, module._nb_vector_types, struct_types, enums)
    shared = (module._nb_shims, module._numbast_shim_library, recorder.DEFAULT_REGISTRIES)
    module_runtime.bind_structs(
        recorder,
        recorder,  # also stands for runtime_members (it records add_mutating/static_methods)
        module._nb_struct_table,
        struct_types,
        module._nb_struct_bodies,
        type_table,
        *shared,
        "test",
    )
    module_runtime.bind_functions(recorder, module._nb_function_table, type_table, *shared)
    return calls

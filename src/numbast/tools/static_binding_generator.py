"""NVIDIA Numbast's ``numbast.tools.static_binding_generator``: the static generator as a
command object and a ``Config`` class, with NVIDIA's names.

- ``static_binding_generator`` runs like NVIDIA's click command: ``main(args)`` takes
  ``--cfg-path``, ``--output-dir``, ``-fmt`` / ``--run-ruff-format`` and ``-noraise`` /
  ``--bypass-parse-error``; a wrong command line exits with status 2 and other errors propagate
  as exceptions (``python -m numbast`` turns them into one-paragraph messages instead).
  ``click.testing.CliRunner().invoke(static_binding_generator, [...])`` works with it; click
  itself is not needed.
- ``Config`` holds a config with NVIDIA's attribute names (``entry_point``, ``retain_list``,
  ``types`` as Numba type classes, ``function_argument_intents``...), built from a mapping of
  the YAML keys, ``Config.from_yaml_path(path)`` or ``Config.from_params(...)``; it is checked
  against the schema as it is made (``ValueError`` naming each problem). Attributes may be
  changed afterwards; ``_static_binding_generator(config, output_dir)`` generates the module
  they describe and returns its path.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping, Sequence
from typing import Any

from numbast.static.config import StaticConfig, config_from_mapping, read_config_yaml

_IN_PYTHON = "<config given in Python>"


class Config:
    """A static-binding config under NVIDIA Numbast's attribute names (see the module doc)."""

    def __init__(
        self,
        config_dict: Mapping[str, Any],
        *,
        base_dir: str | None = None,
        source: str = _IN_PYTHON,
    ) -> None:
        """``config_dict`` has the YAML keys; relative paths are taken from ``base_dir`` (the
        config file's directory; by default the current directory); ``source`` names the
        config in messages. Raises ValueError (``numbast.static.config.ConfigError``) listing
        every problem."""
        self._base_dir = os.path.abspath(base_dir or os.getcwd())
        self._raw = dict(config_dict)
        config = config_from_mapping(self._raw, base_dir=self._base_dir, source=source)
        self.config_path = config.config_path
        self.entry_point = config.entry_point
        self.gpu_arch = list(config.gpu_arch)
        self.retain_list = list(config.file_list)
        self.types = {name: _numba_class("types", value) for name, value in config.types.items()}
        self.datamodels = {
            name: _numba_class("models", value) for name, value in config.data_models.items()
        }
        self.exclude_functions = list(config.exclude_functions)
        self.exclude_structs = list(config.exclude_structs)
        self.clang_includes_paths = list(config.clang_include_paths)
        self.additional_imports = list(config.additional_imports)
        self.shim_include_override = config.shim_include_override
        self.predefined_macros = list(config.predefined_macros)
        self.output_name = config.output_name
        self.cooperative_launch_required_functions_regex = list(
            config.cooperative_launch_required_functions_regex
        )
        prefixes = {
            "Function": config.function_prefix_removal,
            "Struct": config.struct_prefix_removal,
            "Enum": config.enum_prefix_removal,
        }
        self.api_prefix_removal = {key: list(value) for key, value in prefixes.items() if value}
        callbacks = {
            "setup": config.module_setup_callback,
            "teardown": config.module_teardown_callback,
        }
        self.module_callbacks = {key: value for key, value in callbacks.items() if value}
        self.module_link_variables_used = list(self._raw.get("Module Link Variables Used") or [])
        self.skip_prefix = config.skip_prefix
        self.separate_registry = config.use_separate_registry
        self.function_argument_intents = dict(config.function_argument_intents)
        self.mlir_backend = bool(self._raw.get("MLIR Backend") or False)

    @property
    def excludes(self) -> dict[str, list[str]]:
        return {"Function": self.exclude_functions, "Struct": self.exclude_structs}

    @classmethod
    def from_yaml_path(cls, cfg_path: str | os.PathLike[str]) -> Config:
        """The config in the YAML file ``cfg_path`` (read without Python object tags; relative
        paths are taken from its directory)."""
        path = os.path.abspath(os.fspath(cfg_path))
        raw = _as_mapping(read_config_yaml(path), path)
        return cls(raw, base_dir=os.path.dirname(path), source=path)

    @classmethod
    def from_params(
        cls,
        entry_point: str,
        gpu_arch: Sequence[str],
        retain_list: Sequence[str],
        types: Mapping[str, type] | None,
        datamodels: Mapping[str, type] | None,
        exclude_functions: Sequence[str] | None = None,
        exclude_structs: Sequence[str] | None = None,
        clang_includes_paths: Sequence[str] | None = None,
        additional_imports: Sequence[str] | None = None,
        shim_include_override: str | None = None,
        predefined_macros: Sequence[str] | None = None,
        output_name: str | None = None,
        cooperative_launch_required_functions_regex: Sequence[str] | None = None,
        api_prefix_removal: Mapping[str, Sequence[str]] | None = None,
        module_callbacks: Mapping[str, str] | None = None,
        module_link_variables_used: Sequence[str] | None = None,
        skip_prefix: str | None = None,
        separate_registry: bool = False,
        function_argument_intents: Mapping[str, Any] | None = None,
        mlir_backend: bool = False,
    ) -> Config:
        """A config from NVIDIA's keyword parameters; ``types`` and ``datamodels`` map struct
        names to Numba type classes and data model classes."""
        if types is None or datamodels is None:
            raise ValueError("Config.from_params: types and datamodels must be given ({} for none)")
        mapping: dict[str, Any] = {
            "Entry Point": entry_point,
            "GPU Arch": list(gpu_arch),
            "File List": list(retain_list),
            "Types": {name: value.__name__ for name, value in types.items()},
            "Data Models": {name: value.__name__ for name, value in datamodels.items()},
            "Exclude": {
                "Function": list(exclude_functions or []),
                "Struct": list(exclude_structs or []),
            },  # fmt: skip
            "Clang Include Paths": list(clang_includes_paths or []),
            "Additional Import": list(additional_imports or []),
            "Shim Include Override": shim_include_override,
            "Predefined Macros": list(predefined_macros or []),
            "Output Name": output_name,
            "Cooperative Launch Required Functions Regex": list(
                cooperative_launch_required_functions_regex or []
            ),
            "API Prefix Removal": dict(api_prefix_removal or {}),
            "Module Callbacks": dict(module_callbacks or {}),
            "Module Link Variables Used": list(module_link_variables_used or []),
            "Skip Prefix": skip_prefix,
            "Use Separate Registry": separate_registry,
            "Function Argument Intents": dict(function_argument_intents or {}),
            "MLIR Backend": mlir_backend,
        }
        return cls(mapping)

    def to_static_config(self, **overrides: Any) -> StaticConfig:
        """The config as the generator takes it, from the attributes as they are now (checked
        again: an attribute may have been changed)."""
        config = config_from_mapping(
            self._mapping(), base_dir=self._base_dir, source=self.config_path
        )
        return _replace(config, **overrides)

    def _mapping(self) -> dict[str, Any]:
        mapping = {
            "Entry Point": self.entry_point,
            "GPU Arch": list(self.gpu_arch),
            "File List": list(self.retain_list),
            "Name": self._raw.get("Name"),
            "Version": self._raw.get("Version"),
            "Types": {name: value.__name__ for name, value in self.types.items()},
            "Data Models": {name: value.__name__ for name, value in self.datamodels.items()},
            "Exclude": {
                "Function": list(self.exclude_functions),
                "Struct": list(self.exclude_structs),
            },  # fmt: skip
            "Clang Include Paths": list(self.clang_includes_paths),
            "Additional Import": list(self.additional_imports),
            "Shim Include Override": self.shim_include_override,
            "Predefined Macros": list(self.predefined_macros),
            "Output Name": self.output_name,
            "Cooperative Launch Required Functions Regex": list(
                self.cooperative_launch_required_functions_regex
            ),
            "API Prefix Removal": {k: list(v) for k, v in self.api_prefix_removal.items()},
            "Module Callbacks": dict(self.module_callbacks),
            "Skip Prefix": self.skip_prefix,
            "Use Separate Registry": bool(self.separate_registry),
            "Function Argument Intents": {
                name: dict(params) for name, params in self.function_argument_intents.items()
            },
        }
        return {key: value for key, value in mapping.items() if value is not None}


def _as_mapping(raw: object, path: str) -> Mapping[str, Any]:
    if not isinstance(raw, Mapping):
        from numbast.static.config import ConfigFileError

        raise ConfigFileError(path, "the file holds no mapping of keys", "write the config keys")
    return raw


def _numba_class(kind: str, name: str) -> type:
    """The class a config names in ``numba.cuda.types`` or ``numba.cuda.datamodel.models``."""
    if kind == "types":
        from numba.cuda import types as namespace
    else:
        from numba.cuda.datamodel import models as namespace
    found = getattr(namespace, name, None)
    if not isinstance(found, type):
        raise ValueError(f"{name!r} is not a class in {namespace.__name__}")
    return found


def _replace(config: StaticConfig, **overrides: Any) -> StaticConfig:
    import dataclasses

    return dataclasses.replace(config, **overrides) if overrides else config


def _static_binding_generator(
    config: Config,
    output_dir: str | os.PathLike[str],
    log_generates: bool = False,
    cfg_file_path: str | None = None,
    sbg_params: Mapping[str, Any] | None = None,
    bypass_parse_error: bool = False,
    *,
    run_ruff_format: bool = False,
) -> str:
    """Generate the module ``config`` describes into ``output_dir``; returns its path.

    NVIDIA's parameters: ``bypass_parse_error`` binds what clang could parse of a header with
    errors; ``cfg_file_path`` names the config in the module's provenance comment;
    ``log_generates`` prints the path written; ``sbg_params`` (the command line's parameters)
    are not needed here. Errors propagate as exceptions."""
    from numbast.static.cli import generate

    overrides: dict[str, Any] = {"bypass_parse_error": bool(bypass_parse_error)}
    if cfg_file_path is not None:
        overrides["config_path"] = os.path.abspath(os.fspath(cfg_file_path))
    static_config = config.to_static_config(**overrides)
    written = generate(static_config, os.fspath(output_dir), run_ruff_format=run_ruff_format)
    if log_generates:
        print(f"numbast: wrote {written}")
    return str(written)


class StaticBindingGeneratorCommand:
    """The command line of the static generator as an object with click's ``main`` protocol
    (what ``click.testing.CliRunner.invoke`` calls)."""

    name = "static-binding-generator"

    def main(
        self,
        args: Sequence[Any] | None = None,
        prog_name: str | None = None,
        standalone_mode: bool = True,
        **_extra: Any,
    ) -> str:
        """Parse ``args`` (``sys.argv[1:]`` by default), generate, return the module's path.
        A wrong command line raises SystemExit(2) after printing the usage."""
        from numbast.__main__ import build_argument_parser

        parser = build_argument_parser(prog=prog_name or self.name)
        given = sys.argv[1:] if args is None else [_as_text(a) for a in args]
        options = parser.parse_args(given)
        config = Config.from_yaml_path(options.cfg_path)
        return _static_binding_generator(
            config,
            options.output_dir,
            log_generates=True,
            cfg_file_path=options.cfg_path,
            bypass_parse_error=options.bypass_parse_error,
            run_ruff_format=options.run_ruff_format,
        )

    def __call__(self, *args: Any, **kwargs: Any) -> str:
        return self.main(*args, **kwargs)


def _as_text(argument: Any) -> str:
    return os.fspath(argument) if isinstance(argument, os.PathLike) else str(argument)


static_binding_generator = StaticBindingGeneratorCommand()

__all__ = ["Config", "StaticBindingGeneratorCommand", "static_binding_generator"]

"""Read a static-binding config (the YAML file of ``python -m numbast --cfg-path``), check it
against the schema, and turn it into a :class:`StaticConfig` that the renderer can use as is.

Order of work, so that no effort is spent on a config that is wrong: read the file, parse it
with ``yaml.safe_load`` semantics, validate it against the schema (all violations at once),
then check what the schema cannot (files exist, regexes and Python snippets compile), again
reporting everything at once, and only then normalize.
"""

from __future__ import annotations

import ast
import logging
import os
import re
import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from numbast.static.config_schema import SCHEMA_LOCATION, join_key, schema_violations

logger = logging.getLogger(__name__)

INTENTS = ("in", "inout_ptr", "out_ptr", "out_return")
DOCS = "docs/static_config.md"


class ConfigError(ValueError):
    """A static-binding config that cannot be used. ``problems`` holds one
    ``<key path>: <message>`` line per violation; the message names the file and the fix."""

    def __init__(self, config_path: str, problems: list[str], fix: str) -> None:
        self.config_path = config_path
        self.problems = tuple(problems)
        listed = "\n".join(f"  {problem}" for problem in problems)
        count = f"{len(problems)} problem{'s' if len(problems) != 1 else ''}"
        super().__init__(f"static binding config {config_path} has {count}:\n{listed}\n{fix}")


class ConfigFileError(ConfigError):
    """The config file as a whole is unusable: missing, unreadable, empty, or not YAML."""

    def __init__(self, config_path: str, problem: str, fix: str) -> None:
        self.config_path = config_path
        self.problems = (problem,)
        ValueError.__init__(self, f"static binding config {config_path}: {problem}; fix: {fix}")


@dataclass(frozen=True, kw_only=True)
class StaticConfig:
    """A validated static-binding config with every default filled in.

    Paths are absolute (relative ones are taken from the config file's directory), sequences are
    tuples, and optional keys that were absent or null hold their default.
    """

    config_path: str
    entry_point: str
    file_list: tuple[str, ...]
    gpu_arch: tuple[str, ...]
    name: str | None = None
    version: str | None = None
    types: dict[str, str] = field(default_factory=dict)
    data_models: dict[str, str] = field(default_factory=dict)
    exclude_functions: tuple[str, ...] = ()
    exclude_structs: tuple[str, ...] = ()
    clang_include_paths: tuple[str, ...] = ()
    additional_imports: tuple[str, ...] = ()
    shim_include_override: str | None = None
    predefined_macros: tuple[str, ...] = ()
    output_name: str | None = None
    cooperative_launch_required_functions_regex: tuple[str, ...] = ()
    function_prefix_removal: tuple[str, ...] = ()
    struct_prefix_removal: tuple[str, ...] = ()
    enum_prefix_removal: tuple[str, ...] = ()
    module_setup_callback: str | None = None
    module_teardown_callback: str | None = None
    skip_prefix: str | None = None
    use_separate_registry: bool = False
    function_argument_intents: dict[str, dict[str | int, Any]] = field(default_factory=dict)
    # Not a YAML key: how a user regenerates the module, written at its top and in warnings.
    # None means the static CLI (``python -m numbast --cfg-path <config_path> ...``); the import
    # system sets its own (the module is rebuilt by importing it again).
    regenerate_command: str | None = None
    # Not a YAML key either (NVIDIA's schema has none): parse what clang can read despite its
    # errors (ast_canopy's bypass_parse_error). Set by the import system's bypass-parse-error.
    bypass_parse_error: bool = False
    # Not YAML keys: NVRTC options the header needs (numbast.core.nvrtc), and whether its
    # functions with no execution space are device functions (NVRTC's -default-device, which
    # the parser then follows). Set by the import system's nvrtc-options and default-device.
    nvrtc_options: tuple[str, ...] = ()
    default_device: bool = False
    # Not a YAML key: C++ types that other bindings modules bind, used here as those modules'
    # types (numbast.planning.type_refs.ExternalType). Set by the import system for modules that
    # use others (numbast.headers.cufp8 takes numbast.headers.cufp16's __half).
    external_types: tuple = ()
    # Not a YAML key: the directory the module is written to (None: unknown), for the
    # config's path relative to the module in the module's provenance comment.
    output_dir: str | None = None

    @property
    def shim_nvrtc_options(self) -> tuple[str, ...]:
        """What NVRTC compiles this module's shims with, beyond the one NVRTC environment."""
        device = ("-default-device",) if self.default_device else ()
        return (*device, *(o for o in self.nvrtc_options if o not in device))

    @property
    def output_filename(self) -> str:
        """``Output Name``, else the entry point's base name with ``.py`` for its extension."""
        if self.output_name is not None:
            return self.output_name
        return Path(self.entry_point).stem + ".py"


def load_config(path: str | os.PathLike[str]) -> StaticConfig:
    """Read, validate and normalize the static-binding config at ``path``.

    Raises :class:`ConfigError` naming the file, each bad key and how to fix it.
    """
    config_path = os.path.abspath(os.fspath(path))
    raw = read_config_yaml(config_path)
    return config_from_mapping(raw, base_dir=os.path.dirname(config_path), source=config_path)


def read_config_yaml(config_path: str) -> object:
    """The YAML document at ``config_path`` as plain data (no Python object tags)."""
    try:
        with open(config_path, encoding="utf-8") as stream:
            text = stream.read()
    except FileNotFoundError:
        raise ConfigFileError(
            config_path, "the file does not exist", "pass the path of a YAML config file"
        ) from None
    except UnicodeDecodeError as exc:
        raise ConfigFileError(
            config_path, f"the file is not UTF-8 text ({exc.reason})", "save it as UTF-8"
        ) from None
    except OSError as exc:
        raise ConfigFileError(
            config_path,
            f"the file cannot be read ({exc.strerror})",
            "pass the path of a readable YAML config file",
        ) from None

    from numbast.static.config_yaml import YAMLProblem, parse_config_text

    try:
        return parse_config_text(text)
    except YAMLProblem as exc:
        raise ConfigFileError(config_path, f"not valid YAML: {exc}", exc.fix) from None


def config_from_mapping(
    raw: object, *, base_dir: str, source: str, schema_checked: bool = False
) -> StaticConfig:
    """Validate ``raw`` (the parsed YAML) and normalize it. ``base_dir`` anchors relative paths;
    ``source`` names the config in error messages (a file path, or a pyproject table).
    ``schema_checked``: ``raw`` is known to satisfy the schema (the import system remembers the
    mappings it checked: jsonschema costs ~0.2 s to import, a third of an edited header's
    rebuild)."""
    if raw is None:
        raise ConfigFileError(
            source, "the config is empty", f"give Entry Point, File List and GPU Arch ({DOCS})"
        )
    problems = [] if schema_checked else schema_violations(raw)
    if problems:
        raise ConfigError(source, problems, _how_to_fix(source))
    assert isinstance(raw, Mapping)  # the schema requires an object

    _warn_ignored(raw, source)
    config = _normalize(raw, base_dir, source)
    problems = _semantic_problems(raw, config)
    if problems:
        raise ConfigError(source, problems, _how_to_fix(source))
    logger.debug("loaded static binding config %s: %s", source, config)
    return config


def _how_to_fix(source: str) -> str:
    return (
        f"Fix these keys in {source}; every key is described in {DOCS} and in the schema "
        f"{SCHEMA_LOCATION}."
    )


def _get(raw: Mapping[str, Any], key: str, default: Any = None) -> Any:
    # Every optional key accepts null as "use the default" (Numbast configs often write `key:`).
    value = raw.get(key)
    return default if value is None else value


def _as_tuple(value: str | list[str] | None) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        return (value,)
    return tuple(value)


def _resolve(base_dir: str, path: str) -> str:
    expanded = os.path.expanduser(path)
    return os.path.normpath(os.path.join(base_dir, expanded))


def normalize_import(entry: str) -> str:
    """An ``Additional Import`` entry as a full statement: Numbast's form (what follows
    ``import``, e.g. ``numpy as np``) gets ``import`` prepended; statements are kept."""
    text = entry.strip()
    if re.match(r"(import|from)\s", text):
        return text
    return f"import {text}"


def _normalize_intents(raw: Mapping[str, Any]) -> dict[str, dict[str | int, Any]]:
    """Function -> parameter -> intent; a class (or class template) -> method -> parameter ->
    intent, NVIDIA's nested form for methods (``BlockScan: {InclusiveSum: {output:
    out_return}}``)."""
    intents: dict[str, dict[str | int, Any]] = {}
    for function, params in raw.items():
        normalized: dict[str | int, Any] = {}
        for param, intent in params.items():
            # A quoted "0" and a bare 0 mean the same position; C++ names cannot be all digits.
            key: str | int = int(param) if isinstance(param, str) and param.isdigit() else param
            if isinstance(intent, Mapping) and "intent" not in intent:
                normalized[key] = _normalize_intents({key: intent})[key]  # a method's
            else:
                normalized[key] = intent if isinstance(intent, str) else intent["intent"]
        intents[function] = normalized
    return intents


# Keys of NVIDIA's schema that this generator accepts and ignores: why, when they are set.
IGNORED_KEYS = {
    "MLIR Backend": "this generator has one backend (numba-cuda); the module is generated for it",
    "Module Link Variables Used": "it configures NVIDIA's MLIR backend only",
}


def _warn_ignored(raw: Mapping[str, Any], source: str) -> None:
    for key, why in IGNORED_KEYS.items():
        if raw.get(key):
            warnings.warn(f"{source}: {key} is ignored: {why}", UserWarning, stacklevel=4)


def _normalize(raw: Mapping[str, Any], base_dir: str, source: str) -> StaticConfig:
    exclude = _get(raw, "Exclude", {})
    prefixes = _get(raw, "API Prefix Removal", {})
    callbacks = _get(raw, "Module Callbacks", {})
    version = _get(raw, "Version")
    return StaticConfig(
        config_path=source,
        entry_point=_resolve(base_dir, raw["Entry Point"]),
        file_list=tuple(_resolve(base_dir, p) for p in raw["File List"]),
        gpu_arch=_as_tuple(raw["GPU Arch"]),
        name=_get(raw, "Name"),
        version=None if version is None else str(version),
        types=dict(_get(raw, "Types", {})),
        data_models=dict(_get(raw, "Data Models", {})),
        exclude_functions=_as_tuple(exclude.get("Function")),
        exclude_structs=_as_tuple(exclude.get("Struct")),
        clang_include_paths=tuple(
            _resolve(base_dir, p) for p in _get(raw, "Clang Include Paths", [])
        ),
        additional_imports=tuple(
            normalize_import(entry) for entry in _get(raw, "Additional Import", [])
        ),
        shim_include_override=_get(raw, "Shim Include Override"),
        predefined_macros=_as_tuple(_get(raw, "Predefined Macros")),
        output_name=_get(raw, "Output Name"),
        cooperative_launch_required_functions_regex=_as_tuple(
            _get(raw, "Cooperative Launch Required Functions Regex")
        ),
        function_prefix_removal=_as_tuple(prefixes.get("Function")),
        struct_prefix_removal=_as_tuple(prefixes.get("Struct")),
        enum_prefix_removal=_as_tuple(prefixes.get("Enum")),
        # An empty expression means no callback, as in NVIDIA's Numbast.
        module_setup_callback=callbacks.get("setup") or None,
        module_teardown_callback=callbacks.get("teardown") or None,
        skip_prefix=_get(raw, "Skip Prefix"),
        use_separate_registry=bool(_get(raw, "Use Separate Registry", False)),
        function_argument_intents=_normalize_intents(_get(raw, "Function Argument Intents", {})),
    )


def _semantic_problems(raw: Mapping[str, Any], config: StaticConfig) -> list[str]:
    """What the schema cannot express: files on disk, and text that must compile."""
    problems: list[str] = []

    def missing(key: str, given: str, resolved: str, kind: str) -> str:
        where = "" if given == resolved else f" (resolved to {resolved})"
        return (
            f"{key}: {kind} {given!r}{where} does not exist; fix: correct the path (a relative "
            "path is taken from the config file's directory)"
        )

    if not os.path.isfile(config.entry_point):
        problems.append(missing("Entry Point", raw["Entry Point"], config.entry_point, "file"))
    for i, (given, resolved) in enumerate(zip(raw["File List"], config.file_list, strict=True)):
        if not os.path.isfile(resolved):
            problems.append(missing(f"File List[{i}]", given, resolved, "file"))
    given_dirs = _get(raw, "Clang Include Paths", [])
    for i, (given, resolved) in enumerate(zip(given_dirs, config.clang_include_paths, strict=True)):
        if not os.path.isdir(resolved):
            problems.append(missing(f"Clang Include Paths[{i}]", given, resolved, "directory"))

    for i, statement in enumerate(config.additional_imports):
        problem = _import_statement_problem(statement)
        if problem:
            problems.append(f"Additional Import[{i}]: {problem}")
    for i, pattern in enumerate(config.cooperative_launch_required_functions_regex):
        try:
            re.compile(pattern)
        except re.error as exc:
            problems.append(
                f"Cooperative Launch Required Functions Regex[{i}]: {pattern!r} is not a valid "
                f"regular expression (Invalid regex pattern: {exc}); fix: write it in Python re "
                "syntax"
            )
    callback_example = "a lambda such as 'lambda mod: None' or a name from Additional Import"
    expressions = {
        "Shim Include Override": (config.shim_include_override, "a quoted string: \"'x.cuh'\""),
        "Module Callbacks.setup": (config.module_setup_callback, callback_example),
        "Module Callbacks.teardown": (config.module_teardown_callback, callback_example),
    }
    for key, (expression, example) in expressions.items():
        if expression is None:
            continue
        try:
            ast.parse(expression, mode="eval")
        except SyntaxError as exc:
            problems.append(
                f"{key}: {expression!r} is not a Python expression ({exc.msg}); "
                f"fix: write an expression, e.g. {example}"
            )
    problems.extend(_duplicate_positions(raw))
    return problems


def _import_statement_problem(statement: str) -> str | None:
    try:
        body = ast.parse(statement).body
    except SyntaxError as exc:
        return (
            f"{statement!r} is not a valid import statement ({exc.msg}); fix: write e.g. "
            "'from numba import types' or a module name such as 'numpy'"
        )
    if len(body) != 1 or not isinstance(body[0], (ast.Import, ast.ImportFrom)):
        return f"{statement!r} is not a single import statement; fix: give one import per entry"
    return None


def _duplicate_positions(raw: Mapping[str, Any]) -> list[str]:
    problems = []
    for function, params in _get(raw, "Function Argument Intents", {}).items():
        numbers = [int(p) for p in params if str(p).isdigit()]
        for number in sorted({n for n in numbers if numbers.count(n) > 1}):
            path = join_key(join_key("Function Argument Intents", function), number)
            problems.append(
                f"{path}: parameter given twice (as {number} and as '{number}'); "
                "fix: keep one of them"
            )
    return problems


def warn_names_not_declared(config: StaticConfig, decls: Any) -> None:
    """Warn about the functions and structs the config names (Function Argument Intents, Types,
    Data Models) that the parsed header ``decls`` does not declare: a typo there would
    otherwise silently change nothing."""
    function_names = {f.name for f in decls.functions}
    function_names |= {t.function.name for t in getattr(decls, "function_templates", ())}
    struct_names = {s.name for s in decls.structs}
    # Methods' intents are given under their class: a struct or a class template.
    owners = struct_names | {t.name for t in getattr(decls, "class_templates", ())}
    for name in config.function_argument_intents:
        if name not in function_names and name.split(".")[0] not in owners:
            logger.warning(
                "Function Argument Intents names %s, which %s does not declare; fix the name in %s",
                name,
                config.entry_point,
                config.config_path,
            )
    for key, mapping in (("Types", config.types), ("Data Models", config.data_models)):
        for name in mapping:
            if name not in struct_names:
                logger.warning(
                    "%s names struct %s, which %s does not declare; fix the name in %s",
                    key,
                    name,
                    config.entry_point,
                    config.config_path,
                )

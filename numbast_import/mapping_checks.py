"""The checks of a mapped header's table (``numbast_import.mapping``): the keys it may have
and, for each, what its value must be. A problem reads ``<key>: <what is wrong>; <how to write
it>`` with the user's own kebab-case key names; none of these checks runs clang or jsonschema,
so a warm import pays almost nothing for them.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping
from typing import Any

DOCS = "docs/import_system.md"

# Kebab-case table keys -> the static generator's YAML key (a path for nested keys).
KEBAB_TO_STATIC: dict[str, tuple[str, ...]] = {
    "retain": ("File List",),
    "name": ("Name",),
    "version": ("Version",),
    "types": ("Types",),
    "data-models": ("Data Models",),
    "exclude-functions": ("Exclude", "Function"),
    "exclude-structs": ("Exclude", "Struct"),
    "include-dirs": ("Clang Include Paths",),
    "additional-imports": ("Additional Import",),
    "shim-include-override": ("Shim Include Override",),
    "defines": ("Predefined Macros",),
    "cooperative-launch-required-functions-regex": ("Cooperative Launch Required Functions Regex",),
    "function-prefix-removal": ("API Prefix Removal", "Function"),
    "struct-prefix-removal": ("API Prefix Removal", "Struct"),
    "enum-prefix-removal": ("API Prefix Removal", "Enum"),
    "module-setup-callback": ("Module Callbacks", "setup"),
    "module-teardown-callback": ("Module Callbacks", "teardown"),
    "skip-prefix": ("Skip Prefix",),
    "use-separate-registry": ("Use Separate Registry",),
    "function-argument-intents": ("Function Argument Intents",),
}
# Keys of the table form that are not static-config keys.
OWN_KEYS = ("header", "sha256", "bypass-parse-error", "nvrtc-options", "default-device")
HEADER_KEYS = (*OWN_KEYS, *KEBAB_TO_STATIC)

# Patterns, compiled (and kept in re's cache) when a table is checked: every import loads this
# module, and compiling them at import cost it ~0.2 ms.
_IDENTIFIER = r"[A-Za-z_][A-Za-z0-9_]*"
_MACRO = r"(?s)[A-Za-z_][A-Za-z0-9_]*(\([^)]*\))?(=.*)?"
_IMPORT = r"\s*((import|from)\s+\S.*|[A-Za-z_][A-Za-z0-9_.]*(\s+as\s+[A-Za-z_][A-Za-z0-9_]*)?\s*)"
_INTENTS = ("in", "inout_ptr", "out_ptr", "out_return")


def entry_problems(entry: Mapping[str, Any], base_dir: str) -> list[str]:
    """Every problem of a header table, as ``<key>: <what is wrong>; <how to write it>``."""
    problems = []
    unknown = [key for key in entry if key not in HEADER_KEYS]
    if unknown:
        import difflib  # only on this error path

        for key in unknown:
            close = difflib.get_close_matches(str(key).replace("_", "-"), HEADER_KEYS, n=1)
            hint = f"; did you mean {close[0]!r}?" if close else f" (the keys are in {DOCS})"
            problems.append(f"unknown key {key!r}; remove or correct it{hint}")
    if not isinstance(entry.get("header"), str) or not entry.get("header"):
        problems.append('give the header to bind, header = "include/x.cuh"')
    else:
        problems += _path_problems("header", [entry["header"]], base_dir, os.path.isfile, "file")
    for key, value in entry.items():
        check = _CHECKS.get(key)
        if check is not None:
            problems += check(key, value, base_dir)
    return problems


def _type_name(value: Any) -> str:
    names = {str: "a string", bool: "a boolean", int: "a number", float: "a number"}
    names.update({list: "a list", dict: "a table"})
    return names.get(type(value), type(value).__name__)


def _strings(example: str, item: Callable[[str], str | None] | None = None):
    """A list of non-empty strings, each checked by ``item`` (None when it is fine)."""

    def check(key: str, value: Any, base_dir: str) -> list[str]:
        if not isinstance(value, list):
            shown = f" = {value!r}" if isinstance(value, str) else ""
            return [f"{key}{shown} is {_type_name(value)}, not a list; write {key} = {example}"]
        problems = []
        for i, text in enumerate(value):
            if not isinstance(text, str) or not text:
                problems.append(f"{key}[{i}] = {text!r} must be a non-empty string ({example})")
            elif item is not None and (problem := item(text)) is not None:
                problems.append(f"{key}[{i}] = {text!r} {problem}")
        return problems

    return check


def _paths(example: str, exists: Callable[[str], bool], kind: str):
    strings = _strings(example)

    def check(key: str, value: Any, base_dir: str) -> list[str]:
        problems = strings(key, value, base_dir)
        if problems:
            return problems
        return _path_problems(key, value, base_dir, exists, kind, indexed=True)

    return check


def _path_problems(key, paths, base_dir, exists, kind, indexed=False) -> list[str]:
    problems = []
    for i, path in enumerate(paths):
        resolved = absolute_path(base_dir, path)
        if not exists(resolved):
            label = f"{key}[{i}]" if indexed else key
            problems.append(
                f"{label}: {kind} {path!r} does not exist (resolved to {resolved}); fix the path "
                "(relative paths are taken from the pyproject.toml's directory)"
            )
    return problems


def _scalar(kinds: tuple[type, ...], example: str, item: Callable[[Any], str | None] | None = None):
    def check(key: str, value: Any, base_dir: str) -> list[str]:
        if not isinstance(value, kinds) or (isinstance(value, str) and not value):
            return [f"{key} = {value!r} is {_type_name(value)}; write {key} = {example}"]
        if item is not None and (problem := item(value)) is not None:
            return [f"{key} = {value!r} {problem}"]
        return []

    return check


def _identifier_table(example: str):
    def check(key: str, value: Any, base_dir: str) -> list[str]:
        if not isinstance(value, Mapping):
            return [f"{key} is {_type_name(value)}, not a table; write {key} = {example}"]
        return [
            f"{key}.{name} = {cls!r} is not a class name; write {key} = {example}"
            for name, cls in value.items()
            if not (isinstance(cls, str) and re.fullmatch(_IDENTIFIER, cls))
        ]

    return check


def _prefixes(key: str, value: Any, base_dir: str) -> list[str]:
    if isinstance(value, str) and value:
        return []
    return _strings('["prefix_"] or "prefix_"')(key, value, base_dir)


def _intents(key: str, value: Any, base_dir: str, methods: bool = True) -> list[str]:
    example = f'{key} = {{ my_divmod = {{ remainder = "out_return" }} }}'
    if not isinstance(value, Mapping):
        return [f"{key} is {_type_name(value)}, not a table; write {example}"]
    problems = []
    for function, params in value.items():
        if not isinstance(params, Mapping) or not params:
            problems.append(f"{key}.{function} must map parameters to intents; write {example}")
            continue
        for param, intent in params.items():
            if methods and isinstance(intent, Mapping) and set(intent) != {"intent"}:
                # NVIDIA's nested form for methods: class -> method -> parameter -> intent
                problems += _intents(f"{key}.{function}", {param: intent}, base_dir, False)
                continue
            if isinstance(intent, Mapping):
                intent = intent.get("intent")
            if intent not in _INTENTS:
                problems.append(
                    f"{key}.{function}.{param} = {intent!r} is not an intent; use one of "
                    + ", ".join(_INTENTS)
                )
    return problems


def _nvrtc_option_problem(option: str) -> str | None:
    # Imported when a mapping gives NVRTC options (it knows them all); most never do.
    from numbast_import.mapping_nvrtc import nvrtc_option_problem

    return nvrtc_option_problem(option)


def _regex_problem(pattern: str) -> str | None:
    try:
        re.compile(pattern)
    except re.error as exc:
        return f"is not a regular expression ({exc}); write it in Python re syntax"
    return None


def _expression_problem(text: str) -> str | None:
    try:
        compile(text, "<pyproject.toml>", "eval")
    except SyntaxError as exc:
        return f"is not a Python expression ({exc.msg}); write one, e.g. \"'my_lib.cuh'\""
    return None


_CHECKS: dict[str, Callable[[str, Any, str], list[str]]] = {
    "sha256": _scalar(
        (str,),
        '"<64 hex digits>" (the output of sha256sum on the header)',
        lambda v: None if re.fullmatch(r"[0-9a-fA-F]{64}", v) else "is not 64 hex digits",
    ),
    "bypass-parse-error": _scalar((bool,), "true"),
    "nvrtc-options": _strings('["-use_fast_math"]', _nvrtc_option_problem),
    "default-device": _scalar((bool,), "true"),
    "retain": _paths('["include/x_impl.hpp"]', os.path.isfile, "file"),
    "name": _scalar((str,), '"my bindings"'),
    "version": _scalar((str, int, float), '"1.0"'),
    "types": _identifier_table('{ __half = "Number" }'),
    "data-models": _identifier_table('{ __half = "PrimitiveModel" }'),
    "exclude-functions": _strings('["internal_helper"]'),
    "exclude-structs": _strings('["InternalState"]'),
    "include-dirs": _paths('["include"]', os.path.isdir, "directory"),
    "additional-imports": _strings(
        '["numpy as np", "from numba import types"]',
        lambda s: None if re.fullmatch(_IMPORT, s) else "is not an import statement or module name",
    ),
    "shim-include-override": _scalar((str,), "\"'my_lib.cuh'\"", _expression_problem),
    "defines": _strings(
        '["FAST=1", "DEBUG"]',
        lambda s: None if re.fullmatch(_MACRO, s) else "is not a macro; write NAME or NAME=value",
    ),
    "cooperative-launch-required-functions-regex": _strings('["^grid_sync"]', _regex_problem),
    "function-prefix-removal": _prefixes,
    "struct-prefix-removal": _prefixes,
    "enum-prefix-removal": _prefixes,
    "module-setup-callback": _scalar((str,), '"lambda mod: None"', _expression_problem),
    "module-teardown-callback": _scalar((str,), '"lambda mod: None"', _expression_problem),
    "skip-prefix": _scalar((str,), '"__internal_"'),
    "use-separate-registry": _scalar((bool,), "true"),
    "function-argument-intents": _intents,
}


def absolute_path(base_dir: str, path: str) -> str:
    """``path`` as written in a mapping (``~`` allowed), taken from ``base_dir``."""
    return os.path.normpath(os.path.join(base_dir, os.path.expanduser(path)))

"""One mapped header: ``name = "x.cuh"`` or ``name = { header = ..., <options> }``.

The table form takes the static generator's config keys under kebab-case names
(``KEBAB_TO_STATIC``). Every key is checked here, when the table is read, and problems are
reported with the user's own key names (``defines[0]``, not ``Predefined Macros[0]``); these
checks are cheap (no jsonschema, no clang), so a warm import pays almost nothing for them. The
static generator validates the translated mapping again when a module is generated; whatever it
still finds is translated back to kebab-case too (``kebab_problems``).
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from numbast_import.errors import ImportConfigError
from numbast_import.mapping_nvrtc import nvrtc_option_problem

logger = logging.getLogger(__name__)


def _schema_digest(raw: Any) -> str:
    """A digest of a static mapping and the schema it is checked against."""
    import importlib.resources

    from numbast.static.config_schema import SCHEMA_FILE, SCHEMA_PACKAGE

    schema = importlib.resources.files(SCHEMA_PACKAGE).joinpath(SCHEMA_FILE).read_bytes()
    text = json.dumps(raw, sort_keys=True, default=str).encode()
    return hashlib.sha256(hashlib.sha256(schema).digest() + text).hexdigest()


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
STATIC_TO_KEBAB = {".".join(path): key for key, path in KEBAB_TO_STATIC.items()}
STATIC_TO_KEBAB["Entry Point"] = "header"

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_MACRO = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\([^)]*\))?(=.*)?", re.S)
_IMPORT = re.compile(
    r"\s*((import|from)\s+\S.*|[A-Za-z_][A-Za-z0-9_.]*(\s+as\s+[A-Za-z_][A-Za-z0-9_]*)?\s*)"
)
_INTENTS = ("in", "inout_ptr", "out_ptr", "out_return")
_MODULE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@dataclass(frozen=True)
class HeaderMapping:
    """One mapped header: ``module`` is the name under its package (``my_lib`` for
    ``cuda_headers.my_lib``); ``options`` are static-config keys (paths still relative to
    ``base_dir``) with no ``GPU Arch``: the arch is chosen when the module is loaded.
    ``source`` names where the mapping was written, for messages; ``pyproject`` is that file
    (None for ``register()`` and the built-in modules)."""

    module: str
    header: str
    options: dict[str, Any]
    base_dir: str
    source: str
    sha256: str | None = None
    bypass_parse_error: bool = False
    arch: str | None = None
    cache_dir: str | None = None
    pyproject: str | None = None
    registered: dict[str, Any] | None = field(default=None, compare=False)
    # Modules whose bound types this header's declarations use (numbast.headers.cufp8 uses
    # numbast.headers.cufp16's __half): imported first, in this order. Built-in modules only.
    uses: tuple[str, ...] = ()
    # NVRTC options as written (nvcc's spelling), and -default-device (None: detected).
    nvrtc_options: tuple[str, ...] = ()
    default_device: bool | None = None

    def static_mapping(self, arch: str) -> dict[str, Any]:
        """The static-binding config mapping for ``arch``, with absolute paths."""
        raw = dict(self.options)
        raw["GPU Arch"] = [arch]
        raw["Entry Point"] = _absolute(self.base_dir, raw["Entry Point"])
        raw["File List"] = [_absolute(self.base_dir, p) for p in raw["File List"]]
        if raw.get("Clang Include Paths"):
            raw["Clang Include Paths"] = [
                _absolute(self.base_dir, p) for p in raw["Clang Include Paths"]
            ]
        return raw

    def static_config(
        self, arch: str, regenerate_command: str | None = None, checked_in: Path | None = None
    ):
        """The validated :class:`numbast.static.config.StaticConfig` for ``arch``; problems the
        static generator finds are reported under the table's kebab-case keys. ``checked_in``:
        a directory remembering the mappings that satisfied the schema (a cache root's
        ``keys/``), so an unchanged mapping is not checked against it again."""
        from numbast.static.config import ConfigError, config_from_mapping

        raw = self.static_mapping(arch)
        memo = None if checked_in is None else checked_in / f"schema-ok-{_schema_digest(raw)}"
        try:
            config = config_from_mapping(
                raw,
                base_dir=self.base_dir,
                source=self.source,
                schema_checked=memo is not None and memo.is_file(),
            )
        except ConfigError as exc:
            problems = kebab_problems(exc.problems)
            raise ImportConfigError(problems_message(self.source, problems)) from None
        if memo is not None and not memo.is_file():
            try:
                memo.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
                memo.touch()
            except OSError as exc:  # a read-only root: checked again next time
                logger.debug("cannot remember the checked mapping in %s: %s", memo, exc)
        from numbast_import.mapping_nvrtc import translated_nvrtc_options

        return replace(
            config,
            bypass_parse_error=self.bypass_parse_error,
            regenerate_command=regenerate_command,
            nvrtc_options=translated_nvrtc_options(self.nvrtc_options, self.source),
            default_device=bool(self.default_device),
        )

    def check_pin(self) -> None:
        """Raise when the header's contents do not match its ``sha256`` pin."""
        if self.sha256 is None:
            return
        try:
            actual = hashlib.sha256(Path(self.header).read_bytes()).hexdigest()
        except OSError as exc:
            raise ImportConfigError(
                f"{self.source}: header {self.header} cannot be read ({exc.strerror}); fix the "
                "path or create the file"
            ) from None
        if actual != self.sha256.lower():
            raise ImportConfigError(
                f"{self.source}: header {self.header} does not match its sha256 pin (pinned "
                f"{self.sha256}, file has {actual}); if the change is intended, set sha256 = "
                f'"{actual}", else restore the header'
            )


def header_mapping(
    module: str,
    entry: Any,
    base_dir: str,
    where: str,
    include_dirs: list[str] | tuple[str, ...] = (),
    pyproject: str | None = None,
    source: str | None = None,
) -> HeaderMapping:
    """One ``module = "header"`` or ``module = { header = ..., ... }`` entry; ``where`` names
    the table it is in (``source``, when given, names the entry itself in messages). Raises
    ImportConfigError listing every problem of the entry."""
    if not _MODULE_NAME.fullmatch(module):
        raise ImportConfigError(
            f"{source or where}: {module!r} is not a Python module name; rename it to an "
            "identifier (letters, digits and _, not starting with a digit)"
        )
    if isinstance(entry, str):
        entry = {"header": entry}
    key_where = source or f"{where} {module}"
    if not isinstance(entry, Mapping):
        raise ImportConfigError(
            f'{key_where}: write a header path, {module} = "include/{module}.cuh", or a table '
            f'with a header key, {module} = {{ header = "include/{module}.cuh" }}'
        )
    problems = entry_problems(entry, base_dir)
    if problems:
        raise ImportConfigError(problems_message(key_where, problems))
    header = entry["header"]
    options: dict[str, Any] = {"Entry Point": header}
    for key, value in entry.items():
        if key in OWN_KEYS:
            continue
        path = KEBAB_TO_STATIC[key]
        target = options
        for part in path[:-1]:
            target = target.setdefault(part, {})
        target[path[-1]] = value
    retained = options.get("File List") or []
    options["File List"] = [header, *[p for p in retained if p != header]]
    if include_dirs:
        own = options.get("Clang Include Paths") or []
        options["Clang Include Paths"] = [*own, *[d for d in include_dirs if d not in own]]
    return HeaderMapping(
        module=module,
        header=_absolute(base_dir, header),
        options=options,
        base_dir=base_dir,
        source=key_where,
        sha256=entry.get("sha256"),
        bypass_parse_error=bool(entry.get("bypass-parse-error", False)),
        pyproject=pyproject,
        nvrtc_options=tuple(entry.get("nvrtc-options", ())),
        default_device=entry.get("default-device"),
    )


def problems_message(where: str, problems: list[str]) -> str:
    if len(problems) == 1:
        return f"{where}: {problems[0]}"
    listed = "\n".join(f"  {problem}" for problem in problems)
    return f"{where} has {len(problems)} problems:\n{listed}\n(the keys are described in {DOCS})"


def kebab_problems(problems: tuple[str, ...] | list[str]) -> list[str]:
    """The static generator's ``<key path>: <message>`` lines with kebab-case key paths."""
    translated = []
    for line in problems:
        path, sep, message = line.partition(": ")
        head = re.match(r"[^\[]*", path).group(0)
        for static, kebab in sorted(STATIC_TO_KEBAB.items(), key=lambda kv: -len(kv[0])):
            if head == static or head.startswith(static + "."):
                path = kebab + path[len(static) :]
                break
        translated.append(f"{path}{sep}{message}")
    return translated


# -- checks of one table entry -----------------------------------------------------------------


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
        resolved = _absolute(base_dir, path)
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
            if not (isinstance(cls, str) and _IDENTIFIER.fullmatch(cls))
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
    "nvrtc-options": _strings('["-use_fast_math"]', nvrtc_option_problem),
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
        lambda s: None if _IMPORT.fullmatch(s) else "is not an import statement or module name",
    ),
    "shim-include-override": _scalar((str,), "\"'my_lib.cuh'\"", _expression_problem),
    "defines": _strings(
        '["FAST=1", "DEBUG"]',
        lambda s: None if _MACRO.fullmatch(s) else "is not a macro; write NAME or NAME=value",
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


def _absolute(base_dir: str, path: str) -> str:
    return os.path.normpath(os.path.join(base_dir, os.path.expanduser(path)))

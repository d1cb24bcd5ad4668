"""The static-binding config schema: load it from the package, check a config against it, and
phrase every violation as ``<key path>: <message>`` that a user can act on."""

from __future__ import annotations

import functools
import importlib.resources
from collections.abc import Iterable
from typing import Any

SCHEMA_PACKAGE = "numbast.tools"
SCHEMA_FILE = "static_binding_generator.schema.yaml"
# Where users are sent to read about the keys (relative to the repository / the installed package).
SCHEMA_LOCATION = f"numbast/tools/{SCHEMA_FILE}"
TOP_LEVEL = "(top level)"


@functools.cache
def load_schema() -> dict[str, Any]:
    """The schema as a dict, read once per process from the installed package data."""
    import yaml  # deferred: importing numbast.static.config must stay cheap

    text = importlib.resources.files(SCHEMA_PACKAGE).joinpath(SCHEMA_FILE).read_text("utf-8")
    return yaml.safe_load(text)


@functools.cache
def _validator() -> Any:
    # jsonschema costs ~100 ms to import; only configs being checked should pay for it.
    from jsonschema import Draft202012Validator

    return Draft202012Validator(load_schema())


def schema_violations(instance: object) -> list[str]:
    """Every way ``instance`` breaks the schema, one ``<key path>: <message>`` line each, in a
    stable order (by key path). Empty when the instance is valid."""
    found: list[tuple[str, str]] = []
    for error in _validator().iter_errors(instance):
        found.extend(_describe(error, instance))
    # Sorting also removes the order dependence of jsonschema's error iteration; the dict drops
    # repeats (one missing key can be reported by more than one subschema).
    ordered = dict.fromkeys(sorted(found, key=lambda item: item[0]))
    return [f"{path or TOP_LEVEL}: {message}" for path, message in ordered]


def _describe(error: Any, root: object) -> Iterable[tuple[str, str]]:
    path = key_path(root, list(error.absolute_path))
    schema = error.schema if isinstance(error.schema, dict) else {}
    fix = schema.get("x-fix")

    if error.validator == "additionalProperties" and error.validator_value is False:
        known = list(schema.get("properties", {}))
        for key in error.instance:
            if key in known:
                continue
            yield join_key(path, key), "unknown key" + _did_you_mean(key, known, fix)
        return
    if error.validator == "required":
        for key in error.validator_value:
            if isinstance(error.instance, dict) and key not in error.instance:
                yield join_key(path, key), "required key is missing"
        return

    message = error.message
    if "propertyNames" in error.absolute_schema_path:
        # jsonschema checks a mapping's keys at the mapping's own path; say it is about a key.
        message = f"key {message}"
    if fix:
        message = f"{message}; fix: {fix}"
    yield path, message


def _did_you_mean(key: object, known: list[str], fix: str | None) -> str:
    import difflib  # only on this error path: a build does not pay for it (~0.6 ms)

    close = difflib.get_close_matches(str(key), known, n=1, cutoff=0.6)
    if close:
        return f"; did you mean {close[0]!r}?"
    return f"; fix: {fix}" if fix else ""


def key_path(root: object, parts: list[Any]) -> str:
    """Spell a path into the YAML document the way users write it: mapping keys joined by
    ``.``, list positions as ``[i]`` (``Exclude.Function[2]``, ``GPU Arch[0]``)."""
    path = ""
    node = root
    for part in parts:
        if isinstance(node, list):
            path += f"[{part}]"
        else:
            path = join_key(path, part)
        try:
            node = node[part]  # type: ignore[index]
        except (KeyError, IndexError, TypeError):
            node = None
    return path


def join_key(path: str, key: object) -> str:
    return f"{path}.{key}" if path else str(key)

"""Parse config YAML safely: ``yaml.safe_load`` semantics, plus two things it lacks.

- A key written twice in one mapping is an error: plain YAML keeps the last value silently,
  which hides exactly the kind of mistake a schema is meant to catch.
- ``!numbast_join [a, b]`` joins strings, so configs written for NVIDIA's Numbast (which
  registers that tag) load unchanged. It builds a string only; no Python object is ever built.
"""

from __future__ import annotations

import yaml


class YAMLProblem(Exception):
    """The text is not a YAML document we accept; ``str()`` says where and why, ``fix`` how."""

    def __init__(self, message: str, fix: str) -> None:
        super().__init__(message)
        self.fix = fix


class _ConfigLoader(yaml.SafeLoader):
    """SafeLoader that refuses duplicate keys and knows ``!numbast_join``."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict:
        seen: dict[object, yaml.Node] = {}
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=True)
            if isinstance(key, (str, int, float, bool)) and key in seen:
                raise yaml.constructor.ConstructorError(
                    "while constructing a mapping",
                    node.start_mark,
                    f"found the key {key!r} a second time (first at line "
                    f"{seen[key].start_mark.line + 1})",
                    key_node.start_mark,
                )
            if isinstance(key, (str, int, float, bool)):
                seen[key] = key_node
        return super().construct_mapping(node, deep=deep)


def _join(loader: yaml.SafeLoader, node: yaml.Node) -> str:
    if not isinstance(node, yaml.SequenceNode):
        raise yaml.constructor.ConstructorError(
            None, None, "!numbast_join takes a list of strings", node.start_mark
        )
    return "".join(str(part) for part in loader.construct_sequence(node))


_ConfigLoader.add_constructor("!numbast_join", _join)


def parse_config_text(text: str) -> object:
    """The YAML document in ``text`` as plain data (dicts, lists, strings, numbers, None)."""
    try:
        # Safe: _ConfigLoader derives from SafeLoader and adds a string-only constructor.
        return yaml.load(text, Loader=_ConfigLoader)
    except yaml.MarkedYAMLError as exc:
        raise YAMLProblem(_describe(exc), _fix_for(exc)) from None
    except yaml.YAMLError as exc:
        raise YAMLProblem(str(exc), "correct the YAML syntax") from None


def _describe(exc: yaml.MarkedYAMLError) -> str:
    mark = exc.problem_mark or exc.context_mark
    where = f"line {mark.line + 1}, column {mark.column + 1}: " if mark else ""
    context = f" ({exc.context})" if exc.context else ""
    return f"{where}{exc.problem}{context}"


def _fix_for(exc: yaml.MarkedYAMLError) -> str:
    problem = exc.problem or ""
    if "python/" in problem:
        return (
            "remove the !!python/... tag and write a plain string, list or mapping; configs are "
            "read with yaml.safe_load, which never builds Python objects"
        )
    if "a second time" in problem:
        return "keep one of the two entries"
    return "correct the YAML syntax at that place"

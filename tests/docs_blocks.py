"""The fenced blocks of README.md and docs/*.md, with what tests/test_docs_commands.py does with
each (so the docs and the test cannot drift: the test runs what the Markdown says).

A block's treatment follows its language, or an HTML comment on the line before its fence
(``<!-- docs-test: python; link: kernel(float32[:]) -->``). docs/testing.md ("The docs'
commands and examples") lists the kinds and their options.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MARKER = re.compile(r"^\s*<!--\s*docs-test:\s*(.*?)\s*-->\s*$", re.S)
FENCE = re.compile(r"^(\s*)```(\S*)\s*$")
KINDS = {
    "run",
    "python",
    "gpu",
    "output",
    "file",
    "toml",
    "yaml-fragment",
    "yaml-alternatives",
    "illustration",
    "skip",
}


@dataclass
class Block:
    doc: str  # README.md, docs/import_system.md
    line: int  # of the opening fence
    language: str
    text: str
    kind: str
    reason: str = ""  # illustration / skip
    options: dict[str, str] = field(default_factory=dict)

    @property
    def where(self) -> str:
        return f"{self.doc}:{self.line}"


def documents() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def blocks(path: Path) -> list[Block]:
    """The fenced blocks of one Markdown file, each with its kind; raises ValueError for a
    marker the test does not know, or a block it cannot classify."""
    lines = path.read_text().splitlines()
    doc = path.relative_to(ROOT).as_posix()
    found = []
    index = 0
    while index < len(lines):
        fence = FENCE.match(lines[index])
        if fence is None:
            index += 1
            continue
        indent, language = fence.groups()
        end = index + 1
        while not re.match(rf"^{re.escape(indent)}```\s*$", lines[end]):
            end += 1
        body = [line[len(indent) :] for line in lines[index + 1 : end]]
        marker = None
        if index and lines[index - 1].rstrip().endswith("-->"):
            start = index - 1
            while start > 0 and "<!--" not in lines[start]:
                start -= 1
            marker = MARKER.match("\n".join(lines[start:index]))
        found.append(_classify(doc, index + 1, language, "\n".join(body) + "\n", marker))
        index = end + 1
    return found


def _classify(doc: str, line: int, language: str, text: str, marker) -> Block:
    block = Block(doc, line, language, text, kind="")
    if marker is not None:
        # One option per line (a line that names no option continues the one before), or on
        # one line separated by ";".
        content = marker.group(1)
        separator = "\n" if "\n" in content else ";"
        head, *parts = [part.strip() for part in content.split(separator) if part.strip()]
        options: list[str] = []
        for part in parts:
            if options and not re.match(r"[\w-]+:", part):
                options[-1] += " " + part
            else:
                options.append(part)
        kind, _, reason = head.partition(":")
        block.kind, block.reason = kind.strip(), reason.strip()
        for option in options:
            key, _, value = option.partition(":")
            block.options[key.strip()] = value.strip()
        if block.kind not in KINDS:
            raise ValueError(f"{block.where}: unknown docs-test kind {block.kind!r}")
        if block.kind in ("illustration", "skip") and not block.reason:
            raise ValueError(f"{block.where}: say why it is not executed ({block.kind}: why)")
        return block
    first = text.splitlines()[0] if text.strip() else ""
    if re.fullmatch(r"#\s*[\w.-]+\.(ya?ml|toml|cuh?|h|py)\b.*", first):
        block.kind = "file"
    elif language in ("bash", "sh", "console"):
        block.kind = "run"
    elif language in ("python", "toml"):
        block.kind = language
    else:
        raise ValueError(
            f"{block.where}: a ```{language} block the docs test cannot classify: put "
            "<!-- docs-test: KIND --> on the line before it (tests/docs_blocks.py lists kinds)"
        )
    return block


def file_name(block: Block) -> str:
    """The sandbox file a ``file`` block is written to (its first line: ``# config.yml``)."""
    first = block.text.splitlines()[0]
    return re.match(r"#\s*([\w.-]+)", first).group(1)


def link_specs(block: Block) -> list[tuple[str, str]]:
    """(kernel name, Numba signature text) of the block's ``link`` option."""
    specs = []
    for part in filter(None, (p.strip() for p in block.options.get("link", "").split("&"))):
        name, signature = re.fullmatch(r"(\w+)\((.*)\)", part).groups()
        specs.append((name, signature))
    return specs

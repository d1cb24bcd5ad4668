"""The README and docs/, run as a new user would on a machine without a GPU: the README's
commands first (the quick start builds ``cuda_headers.demo``), then every ``numbast-cache``
command of docs/import_system.md's table with it, then every page's blocks: its commands, its
Python examples in one session per page (kernels linked to sm_90 cubins), its config files and
snippets. What each block is, and which blocks need a GPU (run only where there is one), is
written in the Markdown itself (tests/docs_blocks.py), so the docs and this test cannot drift.

Substitutions, the only ones (each is what the documented command does here):
- ``pip install -e SPEC``: not run (it would re-point the editable install of whoever runs the
  suite); instead the installed numbast-import must satisfy SPEC's requirements;
- ``python -m pytest``: the suite this test runs in; only ``python -m pytest --version`` runs;
- ``numbast-cache`` / ``numbast``: run as ``python -m numbast_import.cli`` / ``python -m
  numbast`` (the same programs; the GPU machine installs packages without console scripts);
- ``/usr/local/cuda/include`` in a config: the CUDA headers cuda.pathfinder finds.
"""

from __future__ import annotations

import json
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import cuda_device_available

try:
    import tomllib
except ImportError:  # Python 3.10
    import tomli as tomllib
from docs_blocks import ROOT, Block, blocks, documents, file_name, link_specs
from import_support import clean_env

TESTS = Path(__file__).resolve().parent
SANDBOX_DATA = TESTS / "data" / "docs"
PAGES = [p for p in documents() if p.name != "README.md"]


def test_every_block_of_every_page_is_classified():
    for path in documents():
        for block in blocks(path):  # raises for a block or marker the test cannot read
            assert block.kind


@pytest.fixture(scope="module")
def sandbox(tmp_path_factory):
    """The project the pages' examples run in (their headers: tests/data/docs, examples/demo.cuh,
    tests/data/templates/geo.cuh; the mappings their ```toml blocks show) and one cache for
    every page, so each module is built once."""
    root = tmp_path_factory.mktemp("docs")
    project = root / "proj"
    shutil.copytree(SANDBOX_DATA, project)
    shutil.copy(ROOT / "examples" / "demo.cuh", project / "demo.cuh")
    for target in (project / "geo.cuh", project / "include" / "geo.cuh"):
        shutil.copy(TESTS / "data" / "templates" / "geo.cuh", target)
    shutil.copy(project / "include" / "my_lib.cuh", project / "my_lib.cuh")
    shutil.copy(project / "include" / "my_lib_ops.hpp", project / "my_lib_ops.hpp")
    tables = [b for p in documents() for b in blocks(p) if b.kind == "toml"]
    write_pyproject(project / "pyproject.toml", [b.text for b in tables if not b.options])
    return project, root / "cache"


def write_pyproject(path: Path, snippets: list[str]) -> None:
    """``path`` with the snippets' tables merged in."""
    merged = tomllib.loads(path.read_text())
    for snippet in snippets:
        _merge(merged, tomllib.loads(snippet))
    path.write_text(_toml(merged))


def _merge(into: dict, more: dict) -> None:
    for key, value in more.items():
        if isinstance(value, dict) and isinstance(into.get(key), dict):
            _merge(into[key], value)
        else:
            into[key] = value


def _toml(tables: dict, prefix: str = "") -> str:
    """TOML for what the docs' snippets hold: tables of strings, numbers, lists and inline
    tables."""
    scalars = {k: v for k, v in tables.items() if not _is_table(v)}
    lines = [f"[{prefix}]"] if prefix and scalars else []
    lines += [f"{_key(k)} = {_value(v)}" for k, v in scalars.items()]
    text = "\n".join(lines) + ("\n\n" if lines else "")
    for key, value in tables.items():
        if _is_table(value):
            text += _toml(value, f"{prefix}.{_key(key)}" if prefix else _key(key))
    return text


def _is_table(value) -> bool:
    """A table written as a section: one holding tables (the others are written inline)."""
    return isinstance(value, dict) and any(isinstance(v, dict) for v in value.values())


def _key(key: str) -> str:
    return key if re.fullmatch(r"[A-Za-z0-9_-]+", key) else json.dumps(key)


def _value(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, list):
        return "[" + ", ".join(_value(v) for v in value) + "]"
    return "{ " + ", ".join(f"{_key(k)} = {_value(v)}" for k, v in value.items()) + " }"


# -- commands ------------------------------------------------------------------------------


HAS_GPU = cuda_device_available()
NO_GPU = {} if HAS_GPU else {"CUDA_VISIBLE_DEVICES": ""}  # as a machine without one


def command_lines(block: Block) -> list[str]:
    """The commands of a ``run`` block, one per line (``\\`` continues a line)."""
    return [line for line in block.text.replace("\\\n", " ").splitlines() if line.strip()]


def run_command(line: str, cwd: Path, cache: Path) -> subprocess.CompletedProcess:
    """One documented command line (``&&`` chains allowed), with the substitutions above."""
    output, status = [], 0
    for command in (c.strip() for c in line.split("&&")):
        argv = shlex.split(command, comments=True)
        if argv[:2] == ["pip", "install"]:
            check_installed(argv[2:])
            continue
        if argv[0] == "python":
            argv[0] = sys.executable
            if argv[1:3] == ["-m", "pytest"]:
                # The suite itself is what runs this test: its options are checked instead (a
                # missing pytest-xdist or a wrong --dist fails) on one small file, whose tests
                # are collected through the workers the options ask for, not run.
                argv += ["--collect-only", "-q", "tests/test_packaging.py"]
        elif argv[0] == "numbast-cache":
            argv[:1] = [sys.executable, "-m", "numbast_import.cli"]
        elif argv[0] == "numbast":
            argv[:1] = [sys.executable, "-m", "numbast"]
        done = subprocess.run(
            argv, cwd=cwd, env=clean_env(cache, **NO_GPU), capture_output=True, text=True
        )
        output.append(done.stdout + done.stderr)
        status = done.returncode
        if status != 0:
            break
    return subprocess.CompletedProcess(line, status, "".join(output))


def check_installed(arguments: list[str]) -> None:
    """What ``pip install -e .`` or ``-e ".[test]"`` would leave: numbast-import installed, and
    each requirement of its extras installed in the version asked. (Where the packages come
    from PYTHONPATH instead, as on the GPU machine, no pip made this environment: nothing to
    check.)"""
    import importlib.metadata

    (spec,) = [a for a in arguments if a != "-e"]
    extras = re.fullmatch(r"\.(?:\[(.*)\])?", spec).group(1)
    wanted = set((extras or "").split(",")) - {""}
    try:
        distribution = importlib.metadata.distribution("numbast-import")
    except importlib.metadata.PackageNotFoundError:
        return
    from packaging.requirements import Requirement

    for text in distribution.requires or ():
        requirement = Requirement(text)
        marker = requirement.marker
        if marker is not None and not any(marker.evaluate({"extra": e}) for e in wanted | {""}):
            continue
        installed = importlib.metadata.version(requirement.name)
        assert requirement.specifier.contains(installed, prereleases=True), (spec, text)


def test_readme_commands_then_the_cli_commands_the_docs_show(sandbox, tmp_path):
    """The README's quick start (it builds cuda_headers.demo for sm_90 in its own process),
    then the numbast-cache commands of docs/import_system.md, as the README suggests next:
    with no GPU and no arch given, each exits 0."""
    _project, cache = sandbox
    for block in blocks(ROOT / "README.md"):
        if block.kind == "run":
            for line in command_lines(block):
                done = run_command(line, ROOT, cache)
                assert done.returncode == 0, (block.where, line, done.stdout)
    for command in cli_table_commands(tmp_path):
        for json_flag in ([], ["--json"]):
            done = run_command(command + " " + " ".join(json_flag), ROOT, cache)
            if command.startswith("numbast-cache warm") and "--arch" not in command:
                # Building needs an arch: the GPU's, or else the command asks for one.
                assert done.returncode == (0 if HAS_GPU else 1), (command, done.stdout)
                assert HAS_GPU or json_flag or "give --arch sm_90" in done.stdout
                continue
            assert done.returncode == 0, (command, json_flag, done.stdout)
            if json_flag:
                json.loads(done.stdout)
            elif command.startswith("numbast-cache coverage"):
                assert done.stdout.startswith("cuda_headers.demo ("), done.stdout
                assert "device-callable declarations" in done.stdout
            elif command.startswith("numbast-cache show"):
                assert "an import for sm_90 would hit this entry" in done.stdout


PLACEHOLDERS = {"NAME...": "demo", "NAME": "demo", "DAYS": "3650", "SIZE": "10G"}


def cli_table_commands(tmp_path: Path) -> list[str]:
    """The commands of import_system.md's numbast-cache table, placeholders filled in, each
    once as written without its optional parts and once with them; commands that remove
    entries come last (``clear`` of everything, last of all)."""
    text = (ROOT / "docs" / "import_system.md").read_text()
    section = text[text.index("## `numbast-cache`") :]
    commands = re.findall(r"^\| `(numbast-cache [^`]*)` \|", section, re.M)
    assert len(commands) >= 9, commands
    expanded = []
    for command in commands:
        command = command.replace("DIR", str(tmp_path / "image-cache"))
        for name, value in PLACEHOLDERS.items():
            command = re.sub(rf"\b{re.escape(name)}(?=\s|\]|$)", value, command)
        expanded.append(re.sub(r"\s*\[[^\]]*\]", "", command))
        if "[" in command:
            expanded.append(re.sub(r"\[([^\]]*)\]", r"\1", command))
    order = {"clear --all": 3, "clear": 2, "prune": 1}
    return sorted(
        dict.fromkeys(expanded),
        key=lambda c: next((v for k, v in order.items() if c[14:].startswith(k)), 0),
    )


# -- pages ---------------------------------------------------------------------------------


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_page(page, sandbox, tmp_path):
    project, cache = sandbox
    page_blocks = blocks(page)
    for block in page_blocks:
        if block.kind == "file":
            text = block.text.replace("/usr/local/cuda/include", _cuda_include_dir())
            (project / file_name(block)).write_text(text)
    outputs: dict[str, str] = {}
    for block in page_blocks:
        if block.kind == "run":
            for line in command_lines(block):
                done = run_command(line, project, cache)
                assert done.returncode == 0, (block.where, line, done.stdout)
                outputs[block.where] = done.stdout
        elif block.kind == "toml" and block.options.get("fragment") is not None:
            check_mapping_fragment(block, project)
        elif block.kind in ("yaml-fragment", "yaml-alternatives"):
            check_yaml_fragment(block)
    session = [b for b in page_blocks if b.kind in ("python", "gpu")]
    if session:
        outputs.update(run_session(session, project, cache, tmp_path))
    executed = [b.where for b in page_blocks if b.where in outputs]
    for block in page_blocks:
        if block.kind == "output":
            before = [w for w in executed if int(w.rsplit(":", 1)[1]) < block.line]
            assert before, f"{block.where}: an output block with no executed block before it"
            check_output(block, outputs[before[-1]])


def _cuda_include_dir() -> str:
    from ast_canopy.toolkit import cudart_include_dir

    return str(cudart_include_dir())


def run_session(session: list[Block], project: Path, cache: Path, tmp_path: Path) -> dict:
    """The page's Python blocks in one interpreter (tests/scripts/doc_session.py); returns
    each executed block's output."""
    plan = {
        "has_gpu": HAS_GPU,
        "blocks": [
            {
                "where": b.where,
                "code": b.text,
                "before": b.options.get("before", ""),
                "after": b.options.get("after", ""),
                "link": link_specs(b),
                "path": str(project / b.options["path"]) if "path" in b.options else "",
                "cpu_until": b.options.get("cpu-until", ""),
                "gpu": b.kind == "gpu",
                "requires": b.options.get("requires", ""),
            }
            for b in session
        ],
    }
    plan_file, results_file = tmp_path / "plan.json", tmp_path / "results.json"
    plan_file.write_text(json.dumps(plan))
    env = dict(b.options["env"].split("=", 1) for b in session if "env" in b.options)
    env.update(NO_GPU)
    done = subprocess.run(
        [sys.executable, str(TESTS / "scripts" / "doc_session.py"), plan_file, results_file],
        cwd=project,
        env=clean_env(cache, **env),
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    results = json.loads(results_file.read_text())
    for result in results:
        assert result["status"] != "failed", f"{result['where']}:\n{result['error']}"
    for result, block in zip(results, session, strict=False):
        assert len(result["linked"]) == len(link_specs(block)) or result["status"] == "skipped"
    return {r["where"]: r["output"] for r in results if r["status"] == "ok"}


def check_output(block: Block, actual: str) -> None:
    """Every line of ``block`` appears in ``actual``; ``/path/...`` and ``/home/me/...`` in
    the block stand for any path."""
    for line in filter(None, block.text.splitlines()):
        pattern = re.escape(line)
        pattern = re.sub(r"(?:/path|/home/me)(?:\\?/[^\s\\]*)*", r"\\S+", pattern)
        assert re.search(pattern, actual), f"{block.where}: {line!r} not in:\n{actual}"


def check_mapping_fragment(block: Block, project: Path) -> None:
    """A table of mappings: every problem the loader finds is with a value the page leaves as
    ``...`` for the reader to fill in."""
    from numbast_import.mapping import entry_problems

    table = tomllib.loads(block.text)["tool"]["numbast-import"]["headers"]
    for name, entry in table.items():
        entry = {"header": entry} if isinstance(entry, str) else entry
        placeholders = {k for k, v in entry.items() if v == "..."}
        for problem in entry_problems(entry, str(project)):
            assert any(k in problem for k in placeholders), f"{block.where}: {name}: {problem}"


STATIC_BASE = {"Entry Point": "x.cuh", "File List": ["x.cuh"], "GPU Arch": ["sm_90"]}


def check_yaml_fragment(block: Block) -> None:
    """Static-config keys, added to a minimal config, pass the schema."""
    from numbast.static.config_schema import schema_violations
    from numbast.static.config_yaml import parse_config_text

    parts = block.text.splitlines() if block.kind == "yaml-alternatives" else [block.text]
    for part in parts:
        fragment = parse_config_text(part)
        if fragment is None:
            continue  # a comment line between alternatives
        assert isinstance(fragment, dict), (block.where, part)
        violations = schema_violations({**STATIC_BASE, **fragment})
        assert violations == [], (block.where, part, violations)

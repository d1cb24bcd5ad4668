"""``numbast-cache``: inspect and manage the cache root (header entries, compiled SourceModules,
the parser's preludes) and the read-only layers of ``NUMBAST_CACHE_PATH``.

The library logs; this is the one place that prints. Every command takes ``--json``. Exit
status: 0 ok, 1 a problem was found or a request could not be served, 2 a usage error.
"""

from __future__ import annotations

import argparse
import logging
import os
import re
import sys
from pathlib import Path
from typing import Any

from numbast_import.cache.root import cache_layers, cache_root
from numbast_import.cli_context import PROBLEM, USAGE, Context, Failure, UsageError
from numbast_import.config import CONFIG_ENV, load_project_config
from numbast_import.errors import HeaderImportError


def build_argument_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="numbast-cache",
        description=(
            "Inspect and manage the numbast-import cache: generated bindings and compiled "
            "shims of mapped headers, compiled SourceModules, and the parser's preludes."
        ),
    )
    parser.add_argument(
        "--config",
        metavar="PYPROJECT",
        help=f"the pyproject.toml to read (default: ${CONFIG_ENV}, else found from here)",
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    def command(name: str, help: str, **kwargs: Any) -> argparse.ArgumentParser:
        sub = commands.add_parser(name, help=help, description=help, **kwargs)
        sub.add_argument("--json", action="store_true", help="print JSON")
        return sub

    command("dir", "print the cache root and the read-only layers", aliases=["path"])
    command("list", "list everything cached: name, project, header, arch, CUDA, size, age")
    show = command("show", "every key component of a module's entries, and why they would miss")
    show.add_argument("name", help="a module (my_lib, cuda_headers.my_lib) or a digest prefix")
    clear = command("clear", "remove the current project's entries of modules, or more")
    clear.add_argument("names", nargs="*", metavar="NAME", help="module names or digest prefixes")
    clear.add_argument("--all", action="store_true", help="remove everything in the cache root")
    clear.add_argument(
        "--stale", action="store_true", help="remove entries that can no longer be used"
    )
    prune = command("prune", "remove leftovers of dead builders and damaged entries, and more")
    prune.add_argument(
        "--older-than", type=float, metavar="DAYS", help="remove what was not used for DAYS"
    )
    prune.add_argument(
        "--max-size",
        type=parse_size,
        metavar="SIZE",
        help="remove the least recently used until the cache holds at most SIZE (500M, 2G)",
    )
    warm = command("warm", "build entries ahead of time (no GPU needed with --arch)")
    warm.add_argument("names", nargs="+", metavar="NAME", help="modules to build")
    warm.add_argument("--arch", type=parse_archs, help="comma-separated, e.g. sm_80,sm_90")
    warm.add_argument("--into", metavar="DIR", help="the cache root to build into")
    command("verify", "check every entry's files against its manifest (exit 1 on damage)")
    coverage = command(
        "coverage", "per declaration kind, what a module binds and why the rest is not bound"
    )
    coverage.add_argument("name", help="a module (my_lib, numbast.headers.curand)")
    coverage.add_argument("--arch", type=parse_arch, help="the arch (default: as imports choose)")
    return parser


def parse_size(text: str) -> int:
    match = re.fullmatch(r"\s*([0-9.]+)\s*([kKmMgGtT]?)i?[bB]?\s*", text)
    if match is None:
        raise argparse.ArgumentTypeError(f"{text!r} is not a size; write e.g. 500M or 2G")
    scale = {"": 1, "k": 2**10, "m": 2**20, "g": 2**30, "t": 2**40}[match.group(2).lower()]
    return int(float(match.group(1)) * scale)


def parse_archs(text: str) -> list[str]:
    archs = [part.strip() for part in text.split(",") if part.strip()]
    bad = [a for a in archs if not re.fullmatch(r"sm_[0-9]+[a-z]?", a)]
    if bad or not archs:
        raise argparse.ArgumentTypeError(f"{text!r}: write archs as sm_80,sm_90")
    return archs


def parse_arch(text: str) -> str:
    (arch,) = parse_archs(text) if "," not in text else [""]
    if not arch:
        raise argparse.ArgumentTypeError(f"{text!r}: give one arch, e.g. sm_90")
    return arch


def main(argv: list[str] | None = None) -> int:
    parser = build_argument_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return USAGE
    logging.basicConfig(level=logging.WARNING, format="%(message)s")
    from numbast_import.cli_commands import COMMANDS

    try:
        if args.config:
            os.environ[CONFIG_ENV] = args.config
        project = load_project_config()
        into = getattr(args, "into", None)
        root = Path(into).resolve() if into else cache_root(project.cache_dir)
        context = Context(root, cache_layers(root), project, args.json)
        return COMMANDS[args.command](context, args)
    except (HeaderImportError, Failure) as exc:
        print(f"numbast-cache: {exc}", file=sys.stderr)
        return USAGE if isinstance(exc, UsageError) else PROBLEM


if __name__ == "__main__":
    # Through the package's module, not this __main__ copy: the commands raise its Failure.
    from numbast_import.cli import main as package_main

    sys.exit(package_main())

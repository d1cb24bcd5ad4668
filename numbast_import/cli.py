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

EXAMPLES = """\
examples:
  numbast-cache list                      what is cached (--wide: full paths)
  numbast-cache coverage demo             what the module binds, and why the rest is not
  numbast-cache show demo --arch sm_90    an entry's key, and whether imports would hit it
  numbast-cache warm demo --arch sm_90    build the entry ahead of time (no GPU needed)
  numbast-cache --json list               any command prints JSON with --json

Without --arch, and with no GPU to ask, show and coverage use the entries that exist (and say
which arch they show); only building (warm, and coverage where no current entry exists) needs
an arch: --arch, NUMBAST_IMPORT_ARCH, the GPU, or arch = "sm_90" in pyproject.toml.
Exit status: 0 ok, 1 a problem found or a request not served, 2 a usage error."""


def build_argument_parser() -> argparse.ArgumentParser:
    # --config and --json go before or after the command: both parsers know them, and their
    # defaults are suppressed so that the subcommand's parser does not overwrite a value given
    # before the command (main() reads them with defaults).
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "--config",
        metavar="PYPROJECT",
        default=argparse.SUPPRESS,
        help=f"the pyproject.toml to read (default: ${CONFIG_ENV}, else found from here)",
    )
    common.add_argument(
        "--json", action="store_true", default=argparse.SUPPRESS, help="print one JSON document"
    )
    parser = argparse.ArgumentParser(
        prog="numbast-cache",
        description=(
            "Inspect and manage the numbast-import cache: generated bindings and compiled\n"
            "shims of mapped headers, compiled SourceModules, and the parser's preludes."
        ),
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        parents=[common],
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    def command(name: str, help: str, examples: str, **kwargs: Any) -> argparse.ArgumentParser:
        return commands.add_parser(
            name,
            help=help,
            description=help,
            epilog="examples:\n" + "\n".join(f"  numbast-cache {e}" for e in examples.split("|")),
            formatter_class=argparse.RawDescriptionHelpFormatter,
            parents=[common],
            **kwargs,
        )

    command("dir", "print the cache root and the read-only layers", "dir", aliases=["path"])
    listing = command(
        "list",
        "list everything cached: name, project, header, arch, CUDA, size, age",
        "list|list --wide|list --json",
    )
    listing.add_argument(
        "--wide", action="store_true", help="full paths (default: fit the terminal's width)"
    )
    show = command(
        "show",
        "every key component of a module's entries, and why they would miss",
        "show demo|show cuda_headers.demo --arch sm_90|show 7cd8a1e6",
    )
    show.add_argument("name", help="a module (my_lib, cuda_headers.my_lib) or a digest prefix")
    show.add_argument(
        "--arch", type=parse_arch, help="only this arch's entries (default: every arch cached)"
    )
    clear = command(
        "clear",
        "remove the current project's entries of modules, or more",
        "clear demo|clear --stale|clear --all",
    )
    clear.add_argument("names", nargs="*", metavar="NAME", help="module names or digest prefixes")
    clear.add_argument("--all", action="store_true", help="remove everything in the cache root")
    clear.add_argument(
        "--stale", action="store_true", help="remove entries that can no longer be used"
    )
    prune = command(
        "prune",
        "remove leftovers of dead builders and damaged entries, and more",
        "prune|prune --older-than 30|prune --max-size 2G",
    )
    prune.add_argument(
        "--older-than", type=float, metavar="DAYS", help="remove what was not used for DAYS"
    )
    prune.add_argument(
        "--max-size",
        type=parse_size,
        metavar="SIZE",
        help="remove the least recently used until the cache holds at most SIZE (500M, 2G)",
    )
    warm = command(
        "warm",
        "build entries ahead of time (no GPU needed with --arch)",
        "warm demo --arch sm_90|warm demo numbast.headers.cufp16 --arch sm_80,sm_90 --into DIR",
    )
    warm.add_argument("names", nargs="+", metavar="NAME", help="modules to build")
    warm.add_argument("--arch", type=parse_archs, help="comma-separated, e.g. sm_80,sm_90")
    warm.add_argument("--into", metavar="DIR", help="the cache root to build into")
    warm.add_argument("--jobs", type=parse_jobs, default=1, metavar="N", help="builds at once")
    command("verify", "check every entry's files against its manifest (exit 1 on damage)", "verify")
    coverage = command(
        "coverage",
        "per declaration kind, what a module binds and why the rest is not bound",
        "coverage demo|coverage numbast.headers.cufp16 --arch sm_90 --json",
    )
    coverage.add_argument("name", help="a module (my_lib, numbast.headers.curand)")
    coverage.add_argument(
        "--arch",
        type=parse_arch,
        help="the arch (default: as imports choose; without a GPU, the cached entry's)",
    )
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


def parse_jobs(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"{text!r}: give a number of builds, 1 or more")
    return int(text)


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

    config = getattr(args, "config", None)
    before = os.environ.get(CONFIG_ENV)
    try:
        if config:  # read as NUMBAST_IMPORT_CONFIG is (a file or a directory holding one)
            os.environ[CONFIG_ENV] = config
        project = load_project_config()
        into = getattr(args, "into", None)
        root = Path(into).resolve() if into else cache_root(project.cache_dir)
        context = Context(root, cache_layers(root), project, getattr(args, "json", False))
        return COMMANDS[args.command](context, args)
    except (HeaderImportError, Failure) as exc:
        print(f"numbast-cache: {exc}", file=sys.stderr)
        return USAGE if isinstance(exc, UsageError) else PROBLEM
    finally:  # main() called in-process (tests, scripts) leaves the environment as it was
        if config and before is None:
            os.environ.pop(CONFIG_ENV, None)
        elif config:
            os.environ[CONFIG_ENV] = before


if __name__ == "__main__":
    # Through the package's module, not this __main__ copy: the commands raise its Failure.
    from numbast_import.cli import main as package_main

    sys.exit(package_main())

"""``numbast-cache``: inspect and manage the on-disk cache of generated header bindings."""

from __future__ import annotations

import argparse
import sys


def build_argument_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="numbast-cache",
        description=(
            "Inspect and manage the numbast-import cache of generated bindings and compiled "
            "shims (keyed on header contents, options, arch and toolkit version)."
        ),
    )
    parser.add_subparsers(dest="command", metavar="COMMAND")
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_argument_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 0
    return 0


if __name__ == "__main__":
    sys.exit(main())

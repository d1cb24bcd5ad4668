"""``python -m numbast`` / ``numbast``: the static binding generator's command line."""

from __future__ import annotations

import argparse
import sys


def build_argument_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="numbast",
        description=(
            "Generate a standalone Numba-CUDA bindings module from a CUDA C++ header, "
            "as configured in a YAML file (the Numbast static-binding schema)."
        ),
    )
    parser.add_argument("--cfg-path", required=True, help="path to the YAML config file")
    parser.add_argument("--output-dir", required=True, help="directory to write the module to")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_argument_parser().parse_args(argv)
    try:
        from numbast.static.cli import run_static_generator
    except ImportError:
        print(
            "numbast: the static generator is not available in this version yet.",
            file=sys.stderr,
        )
        return 2
    return run_static_generator(args.cfg_path, args.output_dir)


if __name__ == "__main__":
    sys.exit(main())

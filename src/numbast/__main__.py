"""``python -m numbast`` / ``numbast``: the static binding generator's command line."""

from __future__ import annotations

import argparse
import sys


def build_argument_parser(prog: str = "numbast") -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=prog,
        description=(
            "Generate a standalone Numba-CUDA bindings module from a CUDA C++ header, "
            "as configured in a YAML file (the Numbast static-binding schema)."
        ),
    )
    parser.add_argument("--cfg-path", required=True, help="path to the YAML config file")
    parser.add_argument("--output-dir", required=True, help="directory to write the module to")
    parser.add_argument(
        "-fmt",
        "--run-ruff-format",
        type=parse_bool,
        default=True,
        metavar="BOOL",
        help="format the module with ruff when it is installed (default: true)",
    )
    parser.add_argument(
        "-noraise",
        "--bypass-parse-error",
        type=parse_bool,
        default=False,
        metavar="BOOL",
        help="bind what clang could parse when the header has errors (default: false)",
    )
    return parser


_TRUE = {"true", "1", "yes", "y", "on", "t"}
_FALSE = {"false", "0", "no", "n", "off", "f"}


def parse_bool(text: str) -> bool:
    """``true`` / ``false`` (and 1/0, yes/no, on/off), as NVIDIA's command line takes them."""
    word = text.strip().lower()
    if word in _TRUE:
        return True
    if word in _FALSE:
        return False
    raise argparse.ArgumentTypeError(f"{text!r} is not a boolean; write true or false")


def main(argv: list[str] | None = None) -> int:
    args = build_argument_parser().parse_args(argv)
    # Imported here so that --help answers at once; any ImportError in it is a real failure.
    from numbast.static.cli import run_static_generator

    return run_static_generator(
        args.cfg_path,
        args.output_dir,
        run_ruff_format=args.run_ruff_format,
        bypass_parse_error=args.bypass_parse_error,
    )


if __name__ == "__main__":
    sys.exit(main())

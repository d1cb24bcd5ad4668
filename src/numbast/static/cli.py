"""The work behind ``python -m numbast --cfg-path CONFIG --output-dir DIR``.

Every failure ends in a non-zero exit code and one paragraph on stderr that names the file,
the key or declaration, and the fix; tracebacks are for bugs in numbast, shown only with
``NUMBAST_DEBUG=1``.
"""

from __future__ import annotations

import dataclasses
import logging
import os
import shutil
import subprocess
import sys
import warnings
from pathlib import Path

from ast_canopy.cache_files import write_atomically
from numbast.static.config import ConfigError, StaticConfig, load_config

logger = logging.getLogger(__name__)

EXIT_OK = 0
EXIT_FAILED = 1
RUFF_TIMEOUT_S = 120


def run_static_generator(
    cfg_path: str,
    output_dir: str,
    *,
    run_ruff_format: bool = True,
    bypass_parse_error: bool = False,
) -> int:
    """Generate the bindings module that the config at ``cfg_path`` describes into
    ``output_dir``; return the process exit code. ``bypass_parse_error``: bind what clang could
    parse despite errors in the header (NVIDIA's ``-noraise``)."""
    _show_library_logs()
    try:
        config = load_config(cfg_path)
    except ConfigError as exc:
        return _fail(str(exc))
    if bypass_parse_error:
        config = dataclasses.replace(config, bypass_parse_error=True)
    try:
        import numbast.static.renderer  # noqa: F401  (checked here for a clear message)
    except ImportError as exc:
        if exc.name == "numbast.static.renderer":
            return _fail(
                f"the config {config.config_path} is valid, but rendering bindings is not "
                "available in this version of numbast yet (numbast.static.renderer is missing); "
                "upgrade numbast, or use the dynamic bindings (numbast.bind_cxx_*) meanwhile."
            )
        return _fail(
            f"the bindings renderer cannot be imported because module {exc.name!r} is missing "
            f"({exc}); install the package that provides it (pip install numbast-import "
            "brings every run-time dependency) and run again."
        )

    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            written = generate(config, output_dir, run_ruff_format=run_ruff_format)
    except ConfigError as exc:
        return _fail(str(exc))
    except OSError as exc:
        return _fail(
            f"cannot write the bindings module into {output_dir!r}: {exc.strerror or exc} "
            f"({exc.filename or output_dir}); choose a writable --output-dir."
        )
    except Exception as exc:  # the renderer may fail in any way; the CLI owes one paragraph
        logger.debug("rendering failed", exc_info=True)
        from ast_canopy.errors import ParseError
        from numbast.static.arch_merge import ArchMismatchError

        if isinstance(exc, ParseError):
            listing = "\n".join(f"  {d}" for d in exc.diagnostics)
            return _fail(
                f"clang could not parse {exc.header} (config {config.config_path}):\n{listing}\n"
                "Fix the header, or give the include directories (Clang Include Paths) and "
                "macros (Predefined Macros) it needs, or bind what clang could read with "
                "-noraise true."
            )
        if isinstance(exc, ArchMismatchError):
            return _fail(f"{exc} (config {config.config_path})")
        if os.environ.get("NUMBAST_DEBUG") == "1":
            raise
        return _fail(
            f"generating bindings for {config.entry_point} (config {config.config_path}) failed: "
            f"{type(exc).__name__}: {str(exc).rstrip('.')}. Set NUMBAST_DEBUG=1 to see the "
            "traceback."
        )
    # The library warns (skipped declarations...); on the command line that is one log line
    # each, without the Python source location warnings.showwarning would add.
    for warning in caught:
        logger.warning("%s", str(warning.message).removeprefix("numbast: "))
    print(f"numbast: wrote {written}")
    return EXIT_OK


def generate(config: StaticConfig, output_dir: str, *, run_ruff_format: bool = True) -> Path:
    """Render the module ``config`` describes and write it into ``output_dir`` (formatted
    with ruff when asked and installed); returns its path. Errors propagate: ConfigError,
    ast_canopy.ParseError, ArchMismatchError, OSError."""
    from numbast.static.renderer import render_bindings
    from numbast.static.unit_files import write_unit_files

    config = dataclasses.replace(config, output_dir=os.path.abspath(output_dir))
    rendered = render_bindings(config)
    written = write_module(rendered.source, output_dir, config)
    # Beside the module: its shims compiled in units, which its kernels link by name.
    write_unit_files(written, rendered.preamble, rendered.shims, config.gpu_arch,
                     config.clang_include_paths, config.shim_nvrtc_options)  # fmt: skip
    if run_ruff_format:
        format_with_ruff(written)
    return written


def write_module(source: str, output_dir: str, config: StaticConfig) -> Path:
    """Write ``source`` to ``output_dir/<output file name>``, creating the directory; the file
    is replaced atomically so that an importer never sees half a module."""
    directory = Path(output_dir)
    directory.mkdir(parents=True, exist_ok=True)
    target = directory / config.output_filename
    write_atomically(target, source.encode("utf-8"))
    return target.resolve()


def find_ruff() -> str | None:
    """The ruff executable: next to this Python first (an unactivated virtualenv), else PATH."""
    beside_python = Path(sys.executable).with_name("ruff")
    if beside_python.is_file() and os.access(beside_python, os.X_OK):
        return str(beside_python)
    return shutil.which("ruff")


def format_with_ruff(path: Path) -> bool:
    """Run ``ruff format`` on ``path`` when ruff is installed. Formatting is a nicety: a failure
    is logged as a warning and the unformatted module is kept."""
    ruff = find_ruff()
    if ruff is None:
        logger.info("ruff is not installed; %s is left unformatted", path)
        return False
    command = [ruff, "format", "--no-cache", "--quiet", str(path)]
    try:
        result = subprocess.run(command, capture_output=True, text=True, timeout=RUFF_TIMEOUT_S)
    except (OSError, subprocess.TimeoutExpired) as exc:
        logger.warning("could not run %s on %s (%s); it is left unformatted", ruff, path, exc)
        return False
    if result.returncode != 0:
        detail = (result.stderr or result.stdout).strip()
        logger.warning("ruff format failed on %s; the module is left unformatted: %s", path, detail)
        return False
    return True


def _fail(message: str) -> int:
    print(f"numbast: error: {message}", file=sys.stderr)
    return EXIT_FAILED


def _show_library_logs() -> None:
    # The library only logs; a command line run should show its warnings (skipped declarations,
    # formatting problems) on stderr. basicConfig does nothing if the caller set up logging.
    logging.basicConfig(level=logging.WARNING, format="numbast: %(levelname)s: %(message)s")

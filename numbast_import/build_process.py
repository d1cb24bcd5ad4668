"""A big header is parsed, planned and rendered in a process of its own (issue 23 point 12).

NVRTC's compile of a header costs about 110-120 MB per MB of header, and in one process it
stacks on what parsing and planning leave held: libclang, the declarations' and rows'
leftovers in partly used arenas, the rendered module (about 650 MB at 5 MB). So for a header
whose bound files (the header and its ``retain`` files) are at least
``NUMBAST_IMPORT_PARSE_PROCESS_MB`` (default 1 MB) together, ``generate`` runs that front half
(``numbast_import.build_front``: parse, plan, render, the module's code, the shims' keys) in a
child: this interpreter with this process's ``sys.path`` and environment, started with ``-c``.
It sends its answer back (what NVRTC's compiles do not need packed: ``build_front.Later``) and
exits; the importer, which then never loads libclang nor tokenizes the header, compiles the
shims with NVRTC holding little more than the shims. Below the threshold the front half runs in
the importer as before (a child costs a Python start-up and the imports, 0.3-1.5 s on two
busy cores: nothing next to the minute of a 1 MB header's first import, too much for an
everyday header's).

The child is as trusted as the importer: it runs the same modules (it checks that it imported
``numbast_import`` from the same place) and its answer comes over a pipe only the two hold,
nothing through the file system; the entry is stored by the importer, through the same store,
locks and checks as ever. What the child says reaches the user as if the importer had said it:
its log records are handled by the importer's loggers (with the importer's levels), its
warnings are warned again in the importer, its progress stages go to the importer's progress
line, and a HeaderImportError it raises (a parse error naming the header, its diagnostics and
the fix) is raised by the importer. A child that dies (killed for memory, a crash) closes the
pipe: the import fails with an ImportError that says how it ended, never waits.
"""

from __future__ import annotations

import json
import logging
import os
import pickle
import signal
import subprocess
import sys
import traceback
import warnings
from pathlib import Path

from numbast_import.environment import non_negative_number
from numbast_import.errors import HeaderImportError

logger = logging.getLogger(__name__)

PARSE_PROCESS_ENV = "NUMBAST_IMPORT_PARSE_PROCESS_MB"
DEFAULT_PARSE_PROCESS_MB = 1.0
# The loggers whose records the child sends (their levels in the importer decide).
_LOGGERS = ("ast_canopy", "numbast", "numbast_import")
_BOOT = (
    "import sys, json; sys.path[:] = json.loads(sys.stdin.buffer.readline()); "
    "from numbast_import.build_process import serve; serve()"
)


class BuildProcessError(HeaderImportError):
    """The process parsing and planning a big header ended without an answer."""


def threshold_bytes() -> float:
    """``NUMBAST_IMPORT_PARSE_PROCESS_MB`` in bytes (default 1 MB; 0: every header in a
    process of its own, a large number none)."""
    return non_negative_number(PARSE_PROCESS_ENV, DEFAULT_PARSE_PROCESS_MB, "MB", "1") * 1e6


def bound_bytes(file_list) -> int:
    """The size of the files whose declarations are bound (what parsing and planning grow
    with); files that cannot be read count 0 (the parse reports them)."""
    total = 0
    for path in file_list:
        try:
            total += os.path.getsize(path)
        except OSError:
            pass
    return total


def wants_child(config) -> bool:
    """Whether the front half of ``config``'s build runs in a child (see the module
    docstring)."""
    return bool(sys.executable) and bound_bytes(config.file_list) >= threshold_bytes()


def render_in_child(
    config, mapping, module_name: str, arch: str, filename: str, memo_dir, progress
):
    """``numbast_import.build_front.render_front`` of these arguments, in a child process."""
    from ast_canopy import cache as parser_cache

    request = {
        "code": __file__,  # the child checks that it runs this same code
        "parser_dir": parser_cache.chosen_directory(),
        "log_level": min(logging.getLogger(name).getEffectiveLevel() for name in _LOGGERS),
        "arguments": (config, mapping, module_name, arch, filename, memo_dir),
    }
    logger.info("%s: parsing and planning %s in a child process", module_name, mapping.header)
    child = subprocess.Popen(
        [sys.executable, "-c", _BOOT], stdin=subprocess.PIPE, stdout=subprocess.PIPE
    )
    try:
        try:
            child.stdin.write(json.dumps(sys.path).encode() + b"\n")
            pickle.dump(request, child.stdin, protocol=pickle.HIGHEST_PROTOCOL)
            child.stdin.close()
        except BrokenPipeError:
            pass  # it ended already: what it said, and how it ended, follow
        answer = _receive(child.stdout, progress)
    finally:
        if child.poll() is None:  # the importer was interrupted (or the child lied)
            child.kill()
        child.stdout.close()
        returncode = child.wait()
    if answer is None:
        raise BuildProcessError(_died(module_name, mapping, child.pid, returncode))
    from numbast_import.free_memory import release_free_memory

    release_free_memory()  # what reading the answer took: NVRTC's peak comes next
    return answer


def _receive(stream, progress):
    """The child's messages until its answer (the Front) or its error; None when it ended
    without one."""
    while True:
        try:
            kind, payload = pickle.load(stream)
        except (EOFError, pickle.UnpicklingError):
            return None
        if kind == "stage":
            progress.stage(payload)
        elif kind == "log":
            target = logging.getLogger(payload.name)
            if target.isEnabledFor(payload.levelno):
                target.handle(payload)
        elif kind == "warning":
            message, category, filename, lineno = payload
            warnings.warn_explicit(message, category, filename, lineno)
        elif kind == "error":
            raise payload
        elif kind == "done":
            return payload


def _died(module_name: str, mapping, pid: int, returncode: int) -> str:
    if returncode < 0:
        try:
            how = f"was killed by {signal.Signals(-returncode).name}"
        except ValueError:
            how = f"was killed by signal {-returncode}"
        if returncode == -signal.SIGKILL:
            how += " (the system's out-of-memory killer does that when memory runs out)"
    else:
        how = f"exited with status {returncode} (its messages are above, on stderr)"
    return (
        f"cannot import {module_name}: the process parsing and planning {mapping.header} "
        f"(pid {pid}) {how} before it answered; free memory and import again, or set "
        f"{PARSE_PROCESS_ENV} above the header's size to parse it in this process "
        f"(mapped in {mapping.source})"
    )


# -- the child -------------------------------------------------------------------------------


class _Channel:
    """The child's end: pickled (kind, payload) messages on the stdout it was started with."""

    def __init__(self, stream) -> None:
        self.stream = stream

    def send(self, kind: str, payload: object) -> None:
        pickle.dump((kind, payload), self.stream, protocol=pickle.HIGHEST_PROTOCOL)
        self.stream.flush()

    def stage(self, text: str) -> None:  # stands for the importer's progress
        self.send("stage", text)


class _Forward(logging.Handler):
    def __init__(self, channel: _Channel) -> None:
        super().__init__()
        self.channel = channel

    def emit(self, record: logging.LogRecord) -> None:
        # Formatted here, as QueueHandler does: the arguments may not pickle.
        record.msg, record.args = record.getMessage(), None
        if record.exc_info:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
            record.exc_info = None
        self.channel.send("log", record)


def serve() -> None:
    """The child's work: read the request on stdin, answer on stdout (see render_in_child)."""
    channel = _Channel(os.fdopen(os.dup(1), "wb"))
    os.dup2(2, 1)  # whatever else writes to stdout (libclang) goes to stderr, not the channel
    request = pickle.load(sys.stdin.buffer)
    if os.path.realpath(__file__) != os.path.realpath(request["code"]):
        raise SystemExit(  # never answer with other code's bindings
            f"numbast_import imported from {os.path.dirname(__file__)}, not from "
            f"{os.path.dirname(request['code'])} as in the importer"
        )
    root = logging.getLogger()
    root.handlers[:] = [_Forward(channel)]
    root.setLevel(request["log_level"])
    _use_parser_dir(request["parser_dir"])
    from numbast_import.build_front import render_front

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            front = render_front(*request["arguments"], channel)
        except HeaderImportError as error:
            error.__traceback__ = None
            channel.send("error", error)
            front = None
        except Exception:  # a bug: the importer reports it with this traceback
            message = f"cannot import {request['arguments'][2]}: {traceback.format_exc()}"
            channel.send("error", BuildProcessError(message))
            front = None
    for warning in caught:
        payload = (str(warning.message), warning.category, warning.filename, warning.lineno)
        try:
            channel.send("warning", payload)
        except (pickle.PicklingError, AttributeError, TypeError):
            channel.send("warning", (payload[0], UserWarning, *payload[2:]))
    if front is not None:
        channel.send("done", front)


def _use_parser_dir(directory: Path | None) -> None:
    """The parser's and NVRTC's toolkit lookups as the importer set them (loader)."""
    from ast_canopy import cache as parser_cache
    from ast_canopy import toolkit
    from numbast.core import nvrtc

    nvrtc.use_header_finder(toolkit.header_dir)
    parser_cache.use_directory(directory)

"""Progress of a first-time build, for the builds of real libraries that take seconds to a
minute (parse, plan, compile hundreds of shims, check templates).

Every stage is logged at INFO (``numbast_import.progress``), always. On a terminal the stages
are also shown on one stderr line, rewritten in place, once the build has run longer than
``SHOW_AFTER_S`` (a build that ends sooner shows nothing more than the loader's one line); a
thread redraws it with the time spent, so a long single stage (clang, one NVRTC compile) still
moves. ``NUMBAST_IMPORT_QUIET=1`` silences it, like the loader's line. Output that is not a
terminal (a log file, ``numbast-cache warm``'s child processes) gets no progress line.
"""

from __future__ import annotations

import logging
import os
import shutil
import sys
import threading
import time
from typing import TextIO

logger = logging.getLogger(__name__)

QUIET_ENV = "NUMBAST_IMPORT_QUIET"
SHOW_AFTER_S = 2.0  # a build shorter than this shows no progress line
REDRAW_S = 0.25
_CLEAR_LINE = "\r\x1b[K"


def quiet() -> bool:
    """Whether ``NUMBAST_IMPORT_QUIET`` silences what the import prints."""
    return os.environ.get(QUIET_ENV, "") not in ("", "0")


class BuildProgress:
    """The stages of one build: ``with BuildProgress(name) as progress: progress.stage(...)``."""

    def __init__(
        self,
        module_name: str,
        stream: TextIO | None = None,
        show_after_s: float | None = None,
        redraw_s: float = REDRAW_S,
    ) -> None:
        self.module_name = module_name
        self.stream = sys.stderr if stream is None else stream
        self.show_after_s = SHOW_AFTER_S if show_after_s is None else show_after_s
        self.redraw_s = redraw_s
        self.current = "starting"
        self._started = time.monotonic()
        self._shown = False  # the line has been drawn at least once
        self._lock = threading.Lock()
        self._done = threading.Event()
        self._thread: threading.Thread | None = None

    def __enter__(self) -> BuildProgress:
        self._started = time.monotonic()
        if self._displays():
            self._thread = threading.Thread(
                target=self._redraw_until_done, name="numbast-import progress", daemon=True
            )
            self._thread.start()
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        self._done.set()
        if self._thread is not None:
            self._thread.join()
        elapsed = time.monotonic() - self._started
        if exc_type is None:
            logger.info("%s: built in %.1f s", self.module_name, elapsed)
        with self._lock:
            if self._shown:
                if exc_type is None:
                    self._write(f"built in {elapsed:.1f} s", end="\n")
                else:  # the error follows on a clean line
                    self.stream.write(_CLEAR_LINE)
                    self.stream.flush()

    def stage(self, text: str) -> None:
        """Enter the stage ``text`` ("compiling 412 shims with NVRTC"): logged, and shown."""
        logger.info("%s: %s", self.module_name, text)
        with self._lock:
            self.current = text
            if self._shown:
                self._draw()

    # -- the line -------------------------------------------------------------------------
    def _displays(self) -> bool:
        if quiet():
            return False
        isatty = getattr(self.stream, "isatty", None)
        try:
            return bool(isatty and isatty())
        except ValueError:  # a closed stream
            return False

    def _redraw_until_done(self) -> None:
        if self._done.wait(self.show_after_s):
            return
        while True:
            with self._lock:
                self._draw()
            if self._done.wait(self.redraw_s):
                return

    def _draw(self) -> None:
        elapsed = time.monotonic() - self._started
        self._write(f"{self.current} ({elapsed:.0f} s)")
        self._shown = True

    def _write(self, text: str, end: str = "") -> None:
        line = f"numbast-import: {self.module_name}: {text}"
        width = shutil.get_terminal_size().columns - 1
        if len(line) > width > 3:  # a wrapped line could not be rewritten in place
            line = line[: width - 3] + "..."
        try:
            self.stream.write(f"{_CLEAR_LINE}{line}{end}")
            self.stream.flush()
        except (OSError, ValueError):  # the terminal went away: the build goes on
            self._done.set()


class NoProgress:
    """Stands for a BuildProgress where nobody watches (a build called without one)."""

    def stage(self, text: str) -> None:
        logger.info("%s", text)

"""What ``import cuda_headers.x`` / ``import numbast.headers.x`` raises when it cannot give a
module: always an ``ImportError`` subclass whose message names the pyproject.toml (or the
``register()`` call), the key and the fix.

The loader hands these to the user without traceback frames from the import system (see
``numbast_import.loader``); anything else that escapes an import is a bug and keeps its frames.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Sequence


class HeaderImportError(ImportError):
    """A header module that cannot be imported; the message says why and what to change."""


class ImportConfigError(HeaderImportError, ValueError):
    """A ``[tool.numbast-import]`` setting (or ``register()`` option) that cannot be used."""


class HeaderNotMappedError(ModuleNotFoundError, HeaderImportError):
    """A name under ``cuda_headers`` (or ``numbast.headers``) that nothing maps to a header."""


class ArchUnknownError(HeaderImportError):
    """No GPU arch: none in ``NUMBAST_IMPORT_ARCH``, no device to ask, no pin."""


class HeaderParseError(HeaderImportError):
    """clang could not parse a mapped header; ``diagnostics`` holds its errors, one
    ``file:line:col: severity: message`` each."""

    # ``diagnostics`` has a default so that the error pickles (ImportError's pickle calls the
    # class with the message alone, then restores the attributes): a child process that
    # parsed a big header sends it (numbast_import.build_process).
    def __init__(self, message: str, diagnostics: Sequence[str] = (), **kwargs: str | None) -> None:
        super().__init__(message, **kwargs)
        self.diagnostics = list(diagnostics)


class ShimCompileImportError(HeaderImportError):
    """NVRTC could not compile the shims of a header's bindings (the header itself fails)."""


class ToolkitMissingError(HeaderImportError):
    """The CUDA toolkit's headers could not be found."""


class BindingsExecutionError(HeaderImportError):
    """The generated bindings module raised while it ran (its exception is the cause)."""


class CacheSafetyError(HeaderImportError):
    """A cache directory or file that another user owns or could write to."""


class CacheLockTimeout(HeaderImportError):
    """Another process held a build lock for longer than the timeout."""


class PickledHeaderMismatchError(HeaderImportError):
    """A pickled header module that this process cannot import with the same bindings: its
    header (or a file the header includes) differs here from where it was pickled."""

"""Compile a bindings module's shims to LTO-IR, once, for the cache.

numba-cuda would otherwise compile the shims with NVRTC again in every process and for every
kernel. NVRTC needs no GPU to make LTO-IR, so this also works on a build machine.

Numba compiles only the shims a kernel uses, so a module may carry shims that NVRTC rejects
(a declaration clang accepted that NVRTC's view of the header lacks) and still work for every
other binding. Compiling all of them at once must keep that property: shims NVRTC reports
errors in are left out and compiling is retried; a kernel that calls one of them then fails to
link, naming the shim's symbol, much as it would have failed to compile without the cache.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

logger = logging.getLogger(__name__)

MAX_ATTEMPTS = 4


class ShimCompileError(RuntimeError):
    """NVRTC rejected the shims of a header's bindings."""


@dataclass(frozen=True)
class CompiledShims:
    source: str  # the translation unit that was compiled
    ltoir: bytes
    left_out: tuple[str, ...]  # shims NVRTC rejected
    errors: dict[str, str] = field(default_factory=dict)  # left-out shim -> NVRTC's first error


def shim_unit(preamble: str, shims: Sequence[tuple[str, str]]) -> str:
    """The translation unit as ``ShimLibrary.full_source`` writes it."""
    body = "\n".join(text for _name, text in shims)
    return f"{preamble}\n\n{body}\n"


def compile_shims_to_ltoir(
    preamble: str,
    shims: Sequence[tuple[str, str]],
    name: str,
    arch: str,
    include_dirs: Sequence[str] = (),
) -> CompiledShims:
    """LTO-IR of the preamble and ``shims`` for ``arch``; ``include_dirs`` come after the
    toolkit's. Raises ShimCompileError when the preamble itself (the header) does not compile."""
    kept = list(shims)
    left_out: list[str] = []
    errors: dict[str, str] = {}
    for _attempt in range(MAX_ATTEMPTS):
        source = shim_unit(preamble, kept)
        log = _compile(source, name, arch, include_dirs)
        if isinstance(log, bytes):
            if left_out:
                # Logged, not warned: toolkit headers have a few such shims that users cannot
                # fix; the manifest lists them too (numbast-cache show).
                logger.info(
                    "%s: NVRTC rejected %d shims, left out of the cached LTO-IR (kernels calling "
                    "them fail to link): %s",
                    name,
                    len(left_out),
                    ", ".join(left_out),
                )
            return CompiledShims(source, log, tuple(left_out), errors)
        bad = _shims_with_errors(log, name, preamble, kept)
        if not bad:
            raise ShimCompileError(
                f"NVRTC could not compile the shims {name} for {arch} (the errors are in the "
                f"header's include, not in a shim):\n{log}\nCheck that the header compiles "
                "with NVRTC (defines and include-dirs in [tool.numbast-import])"
            )
        left_out += list(bad)
        errors.update({shim_name: message for shim_name, (_text, message) in bad.items()})
        kept = [shim for shim in kept if shim[0] not in bad]
    raise ShimCompileError(
        f"NVRTC kept rejecting the shims {name} for {arch} after leaving out {len(left_out)}"
    )


def _compile(source: str, name: str, arch: str, include_dirs: Sequence[str]) -> bytes | str:
    """The LTO-IR, or NVRTC's error log."""
    from cuda.core import Program, ProgramOptions
    from cuda.core._utils.cuda_utils import NVRTCError

    from ast_canopy.toolkit import cuda_include_dirs

    options = ProgramOptions(
        name=name,
        arch=arch,
        link_time_optimization=True,
        relocatable_device_code=True,
        std="c++17",
        include_path=[*cuda_include_dirs(), *include_dirs],
    )
    logger.info("compiling %s for %s with NVRTC", name, arch)
    try:
        return bytes(Program(source, "c++", options=options).compile("ltoir").code)
    except NVRTCError as exc:
        return str(exc)


def _shims_with_errors(
    log: str, name: str, preamble: str, shims: Sequence[tuple[str, str]]
) -> dict[str, tuple[str, str]]:
    """Shim name -> (text, NVRTC's first error in it) for the shims holding the lines NVRTC
    reports errors on (none if an error is elsewhere)."""
    errors: dict[int, str] = {}
    for match in re.finditer(rf"^{re.escape(name)}\((\d+)\): error: (.*)$", log, re.M):
        errors.setdefault(int(match.group(1)), match.group(2).strip())
    # Line numbers of each shim in shim_unit's layout: preamble, a blank line, then the shims.
    first = preamble.count("\n") + 3
    spans = []
    for shim in shims:
        last = first + shim[1].count("\n")
        spans.append((first, last, shim))
        first = last + 1
    if any(not any(lo <= line <= hi for lo, hi, _ in spans) for line in errors):
        return {}
    bad = {}
    for lo, hi, (shim_name, text) in spans:
        inside = [errors[line] for line in sorted(errors) if lo <= line <= hi]
        if inside:
            bad[shim_name] = (text, inside[0])
    return bad

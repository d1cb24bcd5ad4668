"""Options spelled for nvcc, as PyCUDA programs and build scripts write them, turned into NVRTC's.

One translation serves the runtime compiler (``SourceModule``, ``compile``) and the import
system (a mapping's ``nvrtc-options``). Each option is one of:

- a target: ``-arch`` / ``--gpu-architecture``, ``-code`` / ``--gpu-code``, ``-gencode`` /
  ``--generate-code`` name the GPUs to compile for (several make a fatbin);
- an output kind (``-cubin``, ``-ptx``, ``-fatbin``): what to make;
- an include directory (``-I``), kept apart so that it joins the one include path;
- a link request (``-l``, ``-L``), kept apart for the linker (PyCUDA's DynamicModule);
- an option NVRTC has (its documented options by name; any other is asked of NVRTC itself, so
  this follows the installed version): passed through, two-argument spellings (``-Xptxas
  -v``) joined as ``--ptxas-options=-v``;
- an nvcc option NVRTC lacks that only steers the host compiler or nvcc's driver (``-O3``,
  ``-Xcompiler``, ``-ccbin``, ``--expt-relaxed-constexpr``...): dropped, with one warning per
  option and process;
- anything else: UnsupportedOptionError, naming the option.
"""

from __future__ import annotations

import logging
import re
import threading
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field

from numbast.core.nvrtc import accepts_option as nvrtc_accepts

logger = logging.getLogger(__name__)


class UnsupportedOptionError(ValueError):
    """An option neither NVRTC nor this translation knows."""


class DroppedOptionWarning(UserWarning):
    """An nvcc option with no meaning for NVRTC (host compiler, nvcc's driver) was dropped."""


@dataclass(frozen=True)
class Target:
    """One thing to compile for: ``cubin`` for ``sm_XX``, or ``ptx`` for ``compute_XX``."""

    kind: str
    arch: str


@dataclass
class TranslatedOptions:
    nvrtc: list[str] = field(default_factory=list)  # options for NVRTC, in the given order
    include_dirs: list[str] = field(default_factory=list)  # from -I, in order
    targets: list[Target] = field(default_factory=list)  # none: the caller's default arch
    output: str | None = None  # "cubin", "ptx", "fatbin" when an option names one
    link: list[str] = field(default_factory=list)  # -l / -L requests, for a linker
    dropped: list[str] = field(default_factory=list)  # nvcc options NVRTC has no use for

    @property
    def arch(self) -> str | None:
        """The single arch the targets name (``sm_90``), or None when there is none."""
        if not self.targets:
            return None
        numbers = {_number(t.arch) for t in self.targets}
        return f"sm_{numbers.pop()}" if len(numbers) == 1 else None


# Options that take a value, as nvcc and NVRTC spell them; written as two arguments
# (``-Xptxas -v``), they are joined. Long names join with "=", short ones for -I/-D/-U/-l/-L
# directly.
_JOINED = {"-I", "-D", "-U", "-l", "-L"}
_NOT_JOINED = {"-lineinfo", "-lineinfo-host", "-lto", "-link", "-lib"}  # not -l<library>
_WITH_VALUE = {
    *_JOINED,
    *("--include-path", "--define-macro", "--undefine-macro", "--library", "--library-path"),
    *("-arch", "--gpu-architecture", "-code", "--gpu-code", "-gencode", "--generate-code"),
    *("-Xptxas", "--ptxas-options", "-maxrregcount", "--maxrregcount", "-include"),
    *("--pre-include", "-std", "--std", "-rdc", "--relocatable-device-code", "-ftz", "--ftz"),
    *("-prec-div", "--prec-div", "-prec-sqrt", "--prec-sqrt", "-fmad", "--fmad", "-dopt"),
    *("--dopt", "-time", "--time", "-split-compile", "--split-compile", "-diag-suppress"),
    *("--diag-suppress", "-diag-error", "--diag-error", "-diag-warn", "--diag-warn"),
    *("-Xcompiler", "--compiler-options", "-ccbin", "--compiler-bindir", "-Xlinker"),
    *("--linker-options", "-Xnvlink", "--nvlink-options", "-Xarchive", "--archive-options"),
    *("-Xcudafe", "-o", "--output-file", "-odir", "--output-directory", "-x", "--x", "-m"),
    *("--machine", "-t", "--threads", "-MF", "--dependency-output", "--keep-dir"),
    *("-keep-dir", "-ccbin"),
}
_SPELLED_FOR_NVRTC = {
    "-Xptxas": "--ptxas-options",
    "-include": "--pre-include",
    "-maxrregcount": "--maxrregcount",
}
_TARGET_OPTIONS = {
    "-arch": "arch",
    "--gpu-architecture": "arch",
    "-code": "code",
    "--gpu-code": "code",
    "-gencode": "gencode",
    "--generate-code": "gencode",
}
_OUTPUTS = {
    **{spelling: "cubin" for spelling in ("-cubin", "--cubin")},
    **{spelling: "ptx" for spelling in ("-ptx", "--ptx")},
    **{spelling: "fatbin" for spelling in ("-fatbin", "--fatbin")},
}
# nvcc options that steer the host compiler, nvcc's driver or host-side output: meaningless
# for NVRTC, which compiles device code in memory. Dropped (with a warning) unless NVRTC takes
# them. Matched on the option's name (before "=").
_HOST_ONLY = {
    *("-Xcompiler", "--compiler-options", "-ccbin", "--compiler-bindir", "-Xlinker"),
    *("--linker-options", "-Xnvlink", "--nvlink-options", "-Xarchive", "--archive-options"),
    *("-Xcudafe", "-O", "--optimize", "-g", "--debug", "-pg", "--profile", "-keep", "--keep"),
    *("-keep-dir", "--keep-dir", "-o", "--output-file", "-odir", "--output-directory", "-c"),
    *("--compile", "-x", "--x", "-m", "--machine", "-m64", "-m32", "-t", "--threads", "-MF"),
    *("--dependency-output", "-M", "-MD", "-MMD", "-v", "--verbose", "-dryrun", "--dryrun"),
    *("-shared", "--shared", "-res-usage", "--resource-usage", "-src-in-ptx", "--source-in-ptx"),
    *("--expt-relaxed-constexpr", "-expt-relaxed-constexpr", "--extended-lambda"),
    *("-extended-lambda", "--expt-extended-lambda", "-expt-extended-lambda"),
    *("-Wno-deprecated-gpu-targets", "--Wno-deprecated-gpu-targets"),
    *("-Wno-deprecated-declarations", "--Wno-deprecated-declarations", "-lineinfo-host"),
    *("-Werror", "--Werror", "-w64"),
}
# NVRTC's documented options (CUDA 12 and 13), by name: passed through without asking NVRTC
# (some write files when given: -time, -fdevice-time-trace, -create-pch).
_NVRTC_NAMES = {
    *("-G", "--device-debug", "-lineinfo", "--generate-line-info", "-dc", "--device-c", "-dw"),
    *("--device-w", "-ewp", "--extensible-whole-program", "-dlto", "--dlink-time-opt"),
    *("-gen-opt-lto", "--gen-opt-lto", "-optix-ir", "--optix-ir", "-use_fast_math"),
    *("--use_fast_math", "-extra-device-vectorization", "--extra-device-vectorization"),
    *("-default-device", "--device-as-default-execution-space", "-device-int128"),
    *("--device-int128", "-restrict", "--restrict", "-w", "--disable-warnings", "-err-no"),
    *("--display-error-number", "-no-err-no", "--no-display-error-number"),
    *("-fdevice-syntax-only", "-minimal", "-no-source-include", "--no-source-include", "-pch"),
    *("-rdc", "--relocatable-device-code", "-dopt", "--dopt", "--ptxas-options"),
    *("--maxrregcount", "-ftz", "--ftz", "-prec-sqrt", "--prec-sqrt", "-prec-div"),
    *("--prec-div", "-fmad", "--fmad", "-modify-stack-limit", "--modify-stack-limit", "-std"),
    *("--std", "-builtin-move-forward", "--builtin-move-forward", "-builtin-initializer-list"),
    *("--builtin-initializer-list", "-opt-info", "--optimization-info", "-diag-error"),
    *("--diag-error", "-diag-suppress", "--diag-suppress", "-diag-warn", "--diag-warn", "-time"),
    *("--time", "-split-compile", "--split-compile", "-jtd", "--jump-table-density"),
    *("-fdevice-time-trace", "--fdevice-time-trace", "-device-stack-protector"),
    *("--device-stack-protector", "-pch-dir", "--pch-dir", "-create-pch", "--create-pch"),
    *("-use-pch", "--use-pch", "-instantiate-templates-in-pch"),
    *("--instantiate-templates-in-pch", "-pch-verbose", "--pch-verbose", "-pch-messages"),
    *("--pch-messages", "-frandom-seed", "--frandom-seed", "-Ofc", "--Ofast-compile"),
    "--pre-include",
}
_OPTIMIZE = re.compile(r"-O[0-3s]?|--optimize(=.*)?|-Ofast")
_ARCH_NAME = re.compile(r"(sm|compute)_([0-9]+)([af]?)")
_CODE_LIST = re.compile(r"\[?([^\]]*)\]?")

_warned: set[str] = set()
_warned_lock = threading.Lock()


def translate_options(options: Sequence[str], *, where: str = "options") -> TranslatedOptions:
    """Translate nvcc-style ``options`` (see the module docstring); ``where`` names them in
    errors and warnings (``SourceModule options``, ``[tool.numbast-import.headers] x``)."""
    result = TranslatedOptions(targets=targets_named(options, where=where))
    for name, value, written in _split(options):
        if name in _TARGET_OPTIONS:
            continue
        if name in _OUTPUTS and value is None:
            result.output = _OUTPUTS[name]
        elif name in ("-I", "--include-path"):
            result.include_dirs.append(_required(value, written, where))
        elif name in ("-l", "-L", "--library", "--library-path"):
            result.link.append(written)
        elif name in ("-D", "--define-macro", "-U", "--undefine-macro"):
            flag = "-D" if name in ("-D", "--define-macro") else "-U"
            result.nvrtc.append(f"{flag}{_required(value, written, where)}")
        else:
            spelled = _nvrtc_spelling(name, value)
            if _nvrtc_name(spelled) in _NVRTC_NAMES or nvrtc_accepts(spelled):
                result.nvrtc.append(spelled)
            elif name in _HOST_ONLY or _OPTIMIZE.fullmatch(name):
                result.dropped.append(written)
                _warn_dropped(written, where)
            else:
                raise UnsupportedOptionError(
                    f"{where}: {written!r} is neither an NVRTC option nor an nvcc option this "
                    "translation knows to leave out; remove it (NVRTC's options: "
                    "https://docs.nvidia.com/cuda/nvrtc/#supported-compile-options)"
                )
    return result


def targets_named(options: Sequence[str], *, where: str = "options") -> list[Target]:
    """The targets ``options`` name (-arch, -code, -gencode), checked; no NVRTC is asked."""
    architectures: list[str] = []
    codes: list[str] = []
    targets: list[Target] = []
    for name, value, written in _split(options):
        kind = _TARGET_OPTIONS.get(name)
        if kind == "arch":
            architectures.append(_checked_arch(value, written, where))
        elif kind == "code":
            codes += [_checked_arch(code, written, where) for code in _code_list(value)]
        elif kind == "gencode":
            targets += _gencode_targets(value, written, where)
    return [*targets, *_arch_targets(architectures, codes, where)]


def nvrtc_options(options: Sequence[str]) -> tuple[list[str], str | None]:
    """NVRTC options for ``options``, include directories as ``-I``, and the single arch the
    targets name, if any (the translation in one call, for callers that need no more)."""
    translated = translate_options(options)
    return [*translated.nvrtc, *(f"-I{d}" for d in translated.include_dirs)], translated.arch


def option_name(option: str) -> str:
    """The name of one option as written: ``-I`` for ``-Iinc``, ``-arch`` for ``-arch=sm_90``,
    ``-lineinfo`` for ``-lineinfo`` (not ``-l``)."""
    return _split([option])[0][0]


def include_dirs_in(options: Sequence[str]) -> list[str]:
    """The include directories ``options`` name with ``-I`` / ``--include-path``."""
    return [value for name, value, _written in _split(options) if name in ("-I", "--include-path")]


def check_arch(arch: str) -> str:
    """``arch`` if it names a GPU arch (``sm_90``, ``sm_90a``, ``compute_90``), else ValueError."""
    if not _ARCH_NAME.fullmatch(arch):
        raise ValueError(
            f"arch={arch!r} is not a GPU arch; write it as sm_<major><minor> (for example "
            "sm_90), or compute_<major><minor> for PTX"
        )
    return arch


# -- pieces ----------------------------------------------------------------------------------


def _split(options: Sequence[str]) -> list[tuple[str, str | None, str]]:
    """(name, value or None, as written) per option; ``-I dir`` and ``-Idir`` alike."""
    items = list(options)
    found = []
    i = 0
    while i < len(items):
        option = str(items[i])
        name, equals, value = option.partition("=")
        if equals and name in _WITH_VALUE:
            found.append((name, value, option))
        elif option in _WITH_VALUE and i + 1 < len(items):
            found.append((option, str(items[i + 1]), f"{option} {items[i + 1]}"))
            i += 1
        elif option[:2] in _JOINED and len(option) > 2 and option not in _NOT_JOINED:
            found.append((option[:2], option[2:], option))
        else:
            found.append((name, value if equals else None, option))
        i += 1
    return found


def _nvrtc_spelling(name: str, value: str | None) -> str:
    name = _SPELLED_FOR_NVRTC.get(name, name)
    return name if value is None else f"{name}={value}"


def _nvrtc_name(spelled: str) -> str:
    return spelled.partition("=")[0]


def _required(value: str | None, written: str, where: str) -> str:
    if not value:
        raise UnsupportedOptionError(f"{where}: {written!r} needs a value")
    return value


def _checked_arch(value: str | None, written: str, where: str) -> str:
    value = _required(value, written, where)
    if value in ("native", "all", "all-major"):
        if value == "native":
            return value
        raise UnsupportedOptionError(
            f"{where}: {written!r}: NVRTC compiles for the GPUs it is given; name them "
            "(-gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90)"
        )
    if not _ARCH_NAME.fullmatch(value):
        raise UnsupportedOptionError(
            f"{where}: {written!r} does not name a GPU arch (sm_90, compute_90, sm_90a)"
        )
    return value


def _code_list(value: str | None) -> list[str]:
    match = _CODE_LIST.fullmatch(value or "")
    inner = match.group(1) if match else value or ""
    return [code.strip() for code in inner.split(",") if code.strip()]


def _gencode_targets(value: str | None, written: str, where: str) -> list[Target]:
    """``arch=compute_80,code=sm_80`` or ``arch=compute_80,code=[sm_80,compute_80]``."""
    text = _required(value, written, where)
    match = re.fullmatch(r"arch=([^,]+),code=(\[[^\]]*\]|[^,]+)", text.replace(" ", ""))
    if match is None:
        raise UnsupportedOptionError(
            f"{where}: {written!r}: write -gencode arch=compute_XX,code=sm_XX (or "
            "code=[sm_XX,compute_XX])"
        )
    architecture = _checked_arch(match.group(1), written, where)
    codes = [_checked_arch(c, written, where) for c in _code_list(match.group(2))]
    return _arch_targets([architecture], codes, where)


def _arch_targets(architectures: list[str], codes: list[str], where: str) -> list[Target]:
    """nvcc's reading: ``-arch=sm_90`` alone is a cubin for sm_90; ``-arch=compute_90`` alone is
    PTX; with ``-code``, each code is a target (a cubin for sm_XX, PTX for compute_XX)."""
    if len(set(architectures)) > 1:
        raise UnsupportedOptionError(
            f"{where}: -arch is given {len(architectures)} times ({', '.join(architectures)}); "
            "give it once, or one -gencode per GPU"
        )
    if "native" in architectures:
        return []  # the caller's default: the current GPU
    architecture = architectures[0] if architectures else None
    if not codes:
        if architecture is None:
            return []
        kind = "ptx" if architecture.startswith("compute_") else "cubin"
        return [Target(kind, architecture)]
    targets = []
    for code in dict.fromkeys(codes):
        if code == "native":
            raise UnsupportedOptionError(f"{where}: -code=native: name the GPU (sm_90)")
        targets.append(Target("ptx" if code.startswith("compute_") else "cubin", code))
    return targets


def _number(arch: str) -> str:
    match = _ARCH_NAME.fullmatch(arch)
    return match.group(2) + match.group(3) if match else arch


def _warn_dropped(written: str, where: str) -> None:
    with _warned_lock:
        if written in _warned:
            return
        _warned.add(written)
    warnings.warn(
        f"{where}: {written!r} steers nvcc's host compiler or driver and has no meaning for "
        "NVRTC, which compiles device code only; it is left out",
        DroppedOptionWarning,
        stacklevel=3,
    )

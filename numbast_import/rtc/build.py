"""From source text to a binary: the in-process memo, then the disk cache, then a compiler.

The memo is keyed on the request alone (microseconds for a repeated SourceModule; it assumes
included headers do not change while the process runs). The disk key adds the contents of the
user headers the source includes, the compiler's version and this package's version.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import tempfile
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from numbast.core.nvrtc import include_options, stand_in_digest
from numbast_import.arch import ARCH_ENV, DeviceQueryError, current_compute_capability
from numbast_import.cache.entries import Entry, EntryStore, Made
from numbast_import.cache.manifest import RTC
from numbast_import.rtc import nvcc as nvcc_backend
from numbast_import.rtc import nvrtc as nvrtc_backend
from numbast_import.rtc.includes import included_files
from numbast_import.rtc.nvrtc import Compiled
from numbast_import.rtc.options import (
    Target,
    check_arch,
    include_dirs_in,
    targets_named,
    translate_options,
)
from numbast_import.rtc.source import SOURCE_NAME, translation_unit
from numbast_import.rtc.textures_rewrite import TextureDeclaration, rewrite_texture_references

logger = logging.getLogger(__name__)

_SOURCE = "source.cu"  # the translation unit, kept beside the binary in its entry

TARGETS = ("cubin", "ptx", "fatbin", "ltoir")
MEMO_SIZE = 512
_memo: OrderedDict[tuple, Built] = OrderedDict()


@dataclass
class Built:
    """A compiled SourceModule: the binary, its lowered names and texture declarations, and
    the loaded Module that every SourceModule of this memo entry shares."""

    compiled: Compiled
    unit: str
    arch: str
    textures: tuple[TextureDeclaration, ...]
    module: Any = field(default=None, compare=False, repr=False)


def build(
    source: str,
    *,
    nvcc: str | None = None,
    options: Sequence[str] | None = None,
    keep: bool = False,
    no_extern_c: bool = False,
    arch: str | None = None,
    code: str | None = None,
    cache_dir: str | os.PathLike[str] | bool | None = None,
    include_dirs: Sequence[str] | None = None,
    name_expressions: Sequence[str] = (),
    target: str = "cubin",
) -> Built:
    """Compile ``source`` (PyCUDA's SourceModule parameters) to ``target``, cached."""
    if target not in TARGETS:
        raise ValueError(f"target={target!r}: choose one of {', '.join(TARGETS)}")
    options = tuple(options or ())
    include_dirs = tuple(str(d) for d in include_dirs or ())
    name_expressions = tuple(name_expressions)
    memo_key = (
        source, nvcc, options, no_extern_c, arch, code, str(cache_dir), include_dirs,
        name_expressions, target,
    )  # fmt: skip
    found = _memo.get(memo_key) if arch is not None and not keep else None
    if found is not None:
        return found
    # Targets named in the options (-arch, -gencode...) choose the arch; several make a fatbin.
    named = [] if nvcc else targets_named(options, where="options")
    if arch is None and named:
        arch = f"sm_{named[0].arch.split('_', 1)[1]}"
    if len({t.arch for t in named}) > 1 and target == "cubin":
        target = "fatbin"
    arch = check_arch(arch or default_arch())
    memo_key = (*memo_key[:4], arch, *memo_key[5:])
    if not keep and (found := _memo.get(memo_key)) is not None:
        return found
    rewritten, textures = rewrite_texture_references(source)
    unit = translation_unit(rewritten, no_extern_c)
    compiler = _Compiler(nvcc, options, arch, code, include_dirs, name_expressions, target, keep)
    compiler.targets = named
    if cache_dir is False or keep:
        compiled = compiler.compile(unit)
    else:
        compiled = _cached_compile(compiler, unit, None if cache_dir in (None, True) else cache_dir)
    built = Built(compiled, unit, arch, textures)
    if cache_dir is not False and not keep:
        _memo[memo_key] = built
        if len(_memo) > MEMO_SIZE:
            _memo.popitem(last=False)
    return built


def _cached_compile(compiler: _Compiler, unit: str, cache_dir: Any) -> Compiled:
    """From the cache (its read-only layers, then the root), else compiled (once among the
    processes that ask at the same time) and stored."""
    store = rtc_store(cache_dir)
    key = compiler.key(unit, store.base())
    digest = hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()
    entry = store.lookup(digest, key)
    if entry is not None:
        logger.debug("kernel cache hit: %s", entry.path)
    else:

        def compile_it(_path: Path | None) -> Made:
            compiled = compiler.compile(unit)
            artifacts = {_binary_name(compiled.target): compiled.code, _SOURCE: unit.encode()}
            return Made(artifacts, {"lowered_names": dict(compiled.lowered_names)})

        entry = store.build(digest, key, compile_it, what=f"SourceModule {digest[:12]}")
    return _compiled_from(entry, compiler.target)


def rtc_store(cache_dir: str | os.PathLike[str] | None = None) -> EntryStore:
    """The SourceModule entries under ``cache_dir``, else under the project's cache root, and
    in the read-only layers of ``NUMBAST_CACHE_PATH``."""
    from numbast_import.cache.root import cache_layers, cache_root

    root = Path(cache_dir).expanduser().resolve() if cache_dir else cache_root()
    return EntryStore(RTC, root, cache_layers(root))


def _compiled_from(entry: Entry, target: str) -> Compiled:
    lowered = entry.manifest.get("lowered_names", {})
    return Compiled(entry.read(_binary_name(target)), target, dict(lowered), "")


def _binary_name(target: str) -> str:
    return f"kernel.{target}"


def default_arch() -> str:
    """``NUMBAST_IMPORT_ARCH``, else the current CUDA device's ``sm_<cc>``."""
    from_env = os.environ.get(ARCH_ENV, "").strip()
    if from_env:
        return from_env
    try:
        major, minor = current_compute_capability()
    except DeviceQueryError as exc:
        raise RuntimeError(
            f"no arch given and no CUDA device to take it from ({exc}); pass arch='sm_90' "
            f"(your GPU's arch), or set {ARCH_ENV}=sm_90"
        ) from exc
    return f"sm_{major}{minor}"


def clear_memo() -> None:
    """Forget in-process results (the disk cache stays)."""
    _memo.clear()


class _Compiler:
    """One compile request: its cache key and the compiler run."""

    def __init__(self, nvcc, options, arch, code, include_dirs, name_expressions, target, keep):
        self.nvcc_path = nvcc_backend.find_nvcc(nvcc) if nvcc else None
        if nvcc and self.nvcc_path is None:
            logger.info("nvcc %r not found; compiling with NVRTC", nvcc)
        if target == "fatbin" and self.nvcc_path is None and not nvrtc_backend.nvfatbin_available():
            # NVRTC makes no fatbins: nvfatbin puts its outputs together, else nvcc on PATH.
            self.nvcc_path = nvcc_backend.require_nvcc(nvcc or "nvcc", "target='fatbin'")
        if name_expressions and self.nvcc_path is not None:
            raise ValueError("name_expressions need NVRTC; leave nvcc unset")
        self.options = options
        self.arch = arch
        self.code = code
        self.include_dirs = include_dirs
        self.name_expressions = name_expressions
        self.target = target
        self.keep = keep
        self.targets: list[Target] = []  # named in the options (a fatbin holds each)

    def compiler_version(self, stamps: Path) -> str:
        if self.nvcc_path is not None:
            version = nvcc_backend.nvcc_version(self.nvcc_path) or ""
            return "nvcc " + " ".join(version.split())
        return nvrtc_backend.nvrtc_version_stamped(stamps)

    def key(self, unit: str, stamps: Path) -> dict[str, Any]:
        from numbast_import.version import __version__

        search = [*self.include_dirs, *include_dirs_in(self.options)]
        return {
            "format": RTC.format,
            "source_sha256": hashlib.sha256(unit.encode()).hexdigest(),
            "included_files": included_files(unit, search),
            "options": list(self.options),
            "include_dirs": list(self.include_dirs),
            "arch": self.arch,
            "code": self.code,
            "target": self.target,
            "name_expressions": list(self.name_expressions),
            "compiler": self.compiler_version(stamps),
            "nvrtc_stand_ins": stand_in_digest(),
            "package": __version__,
        }

    def compile(self, unit: str) -> Compiled:
        workdir = Path(tempfile.mkdtemp(prefix="numbast-rtc-"))
        try:
            if self.nvcc_path is not None:
                options = [*self.options, *(f"-I{d}" for d in self.include_dirs)]
                return nvcc_backend.run_nvcc(
                    unit, SOURCE_NAME, self.nvcc_path, options, self.arch, self.code,
                    self.target, workdir,
                )  # fmt: skip
            if self.target == "fatbin":
                compiled = nvrtc_backend.run_nvrtc_fatbin(
                    unit,
                    SOURCE_NAME,
                    self.nvrtc_options()[1:],  # each target brings its arch
                    self.targets or [Target("cubin", self.arch)],
                    self.name_expressions,
                )
            else:
                compiled = nvrtc_backend.run_nvrtc(
                    unit, SOURCE_NAME, self.nvrtc_options(), self.target, self.name_expressions
                )
            if self.keep:
                (workdir / SOURCE_NAME).write_text(unit)
                (workdir / f"kernel.{self.target}").write_bytes(compiled.code)
                (workdir / "options.txt").write_text("\n".join(self.nvrtc_options()) + "\n")
                (workdir / "log.txt").write_text(compiled.log)
            return compiled
        finally:
            if self.keep:
                logger.warning("numbast-import: compiler files kept in %s", workdir)
            else:
                import shutil

                shutil.rmtree(workdir, ignore_errors=True)

    def nvrtc_options(self) -> list[str]:
        """The arch option first, then the rest (nvcc's spellings translated: rtc/options)."""
        translated = translate_options(self.options, where="options")
        arch = self.arch
        if self.code is not None:
            logger.info("NVRTC ignores code=%r; it compiles for arch=%s", self.code, arch)
        extra = []
        if self.target == "ltoir":
            extra += ["-dlto", "--relocatable-device-code=true"]
        if self.target == "ptx" and arch.startswith("sm_"):
            arch = "compute_" + arch[3:]
        # The one include path (numbast.core.nvrtc): the caller's directories, the toolkit's
        # (so that #include <cuda_fp16.h> works as with nvcc), then the stand-in system headers.
        user_dirs = [*self.include_dirs, *translated.include_dirs]
        paths = include_options(user_dirs)
        return [f"--gpu-architecture={arch}", *extra, *paths, *translated.nvrtc]

"""From source text to a binary: the in-process memo, then the disk cache, then a compiler.

The memo is keyed on the request alone (microseconds for a repeated SourceModule; it assumes
included headers do not change while the process runs). The disk key adds the contents of the
user headers the source includes, the compiler's version and this package's version.
"""

from __future__ import annotations

import logging
import os
import tempfile
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from numbast_import.arch import ARCH_ENV, DeviceQueryError, current_compute_capability
from numbast_import.rtc import nvcc as nvcc_backend
from numbast_import.rtc import nvrtc as nvrtc_backend
from numbast_import.rtc.includes import included_files
from numbast_import.rtc.nvrtc import Compiled
from numbast_import.rtc.options import check_arch, include_dirs_in, nvrtc_options
from numbast_import.rtc.source import SOURCE_NAME, translation_unit
from numbast_import.rtc.store import FORMAT, digest_of, open_store
from numbast_import.rtc.textures_rewrite import TextureDeclaration, rewrite_texture_references

logger = logging.getLogger(__name__)

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
    arch = check_arch(arch or default_arch())
    memo_key = (*memo_key[:4], arch, *memo_key[5:])
    if not keep and (found := _memo.get(memo_key)) is not None:
        return found
    rewritten, textures = rewrite_texture_references(source)
    unit = translation_unit(rewritten, no_extern_c)
    compiler = _Compiler(nvcc, options, arch, code, include_dirs, name_expressions, target, keep)
    if cache_dir is False or keep:
        compiled = compiler.compile(unit)
    else:
        store = open_store(None if cache_dir in (None, True) else cache_dir)
        key = compiler.key(unit, store.base)
        digest = digest_of(key)
        compiled = store.load(digest, key)
        if compiled is None:
            compiled = compiler.compile(unit)
            store.save(digest, key, compiled, unit)
        else:
            logger.debug("kernel cache hit: %s", store.entry_dir(digest))
    built = Built(compiled, unit, arch, textures)
    if cache_dir is not False and not keep:
        _memo[memo_key] = built
        if len(_memo) > MEMO_SIZE:
            _memo.popitem(last=False)
    return built


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
        if target == "fatbin" and self.nvcc_path is None:
            # NVRTC makes no fatbins; nvcc on PATH does.
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

    def compiler_version(self, stamps: Path) -> str:
        if self.nvcc_path is not None:
            version = nvcc_backend.nvcc_version(self.nvcc_path) or ""
            return "nvcc " + " ".join(version.split())
        return nvrtc_backend.nvrtc_version_stamped(stamps)

    def key(self, unit: str, stamps: Path) -> dict[str, Any]:
        import hashlib

        from numbast_import import __version__

        search = [*self.include_dirs, *include_dirs_in(self.options)]
        return {
            "format": FORMAT,
            "source_sha256": hashlib.sha256(unit.encode()).hexdigest(),
            "included_files": included_files(unit, search),
            "options": list(self.options),
            "include_dirs": list(self.include_dirs),
            "arch": self.arch,
            "code": self.code,
            "target": self.target,
            "name_expressions": list(self.name_expressions),
            "compiler": self.compiler_version(stamps),
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
        user, arch_in_options = nvrtc_options(self.options)
        arch = arch_in_options or self.arch
        if self.code is not None:
            logger.info("NVRTC ignores code=%r; it compiles for arch=%s", self.code, arch)
        extra = []
        if self.target == "ltoir":
            extra += ["-dlto", "--relocatable-device-code=true"]
        if self.target == "ptx" and arch.startswith("sm_"):
            arch = "compute_" + arch[3:]
        return [
            f"--gpu-architecture={arch}",
            *extra,
            *(f"-I{d}" for d in _toolkit_include_dirs()),
            *(f"-I{d}" for d in self.include_dirs),
            *user,
        ]


def _toolkit_include_dirs() -> list[str]:
    """The CUDA headers, so that ``#include <cuda_fp16.h>`` works as it does with nvcc."""
    from ast_canopy.toolkit import ToolkitNotFoundError, cuda_include_dirs

    try:
        return cuda_include_dirs()
    except ToolkitNotFoundError:
        logger.info("no CUDA headers found; compiling without toolkit include directories")
        return []

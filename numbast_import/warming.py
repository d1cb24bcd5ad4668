"""Build cache entries ahead of time: ``numbast-cache warm NAME... --arch sm_80,sm_90``.

A build runs the generated module (its shim text is only known once it runs), which registers
types with Numba; so every build runs in a fresh interpreter that simply imports the module,
with the arch and the cache root given through the environment. That is exactly what a first
import does, and it needs no GPU when the arch is given. An entry that is already current in the
target root is not built again.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from numbast_import.arch import ARCH_ENV, ARCH_RE, resolve_arch
from numbast_import.cache.root import ENV_VAR, LAYERS_ENV, cache_root
from numbast_import.cache.store import CacheStore
from numbast_import.config import CONFIG_ENV, ProjectConfig, load_project_config
from numbast_import.errors import ArchUnknownError, HeaderImportError
from numbast_import.project_cache import Module, resolve


@dataclass(frozen=True)
class WarmResult:
    name: str
    arch: str | None
    status: str  # "built", "present" or "failed"
    entry: str | None = None
    message: str = ""

    def as_json(self) -> dict[str, str | None]:
        return {
            "name": self.name,
            "arch": self.arch,
            "status": self.status,
            "entry": self.entry,
            "message": self.message,
        }


def warm(
    names: Iterable[str],
    archs: Sequence[str] | None = None,
    into: str | os.PathLike[str] | None = None,
    config: str | os.PathLike[str] | None = None,
) -> list[WarmResult]:
    """Build the entries of ``names`` (``my_lib``, ``cuda_headers.my_lib``,
    ``numbast.headers.cufp16``) for each of ``archs`` (default: the arch an import would use
    now) in ``into`` (default: the writable cache root). ``config`` is the pyproject.toml
    (default: as for imports)."""
    for arch in archs or ():
        if not ARCH_RE.fullmatch(arch):
            raise ArchUnknownError(f"{arch!r} is not an arch; write it as sm_<major><minor>")
    project = load_project_config(config)
    results = []
    for name in names:
        try:
            module = resolve(name, project)
        except HeaderImportError as exc:
            results.append(WarmResult(name, None, "failed", message=str(exc)))
            continue
        root = Path(into).resolve() if into else cache_root(module.mapping.cache_dir)
        for arch in archs or (None,):
            results.append(_warm_one(module, arch, root, project))
    return results


def _warm_one(module: Module, arch: str | None, root: Path, project: ProjectConfig) -> WarmResult:
    try:
        arch = arch or resolve_arch(module.mapping.arch, module.fullname, module.mapping.source)
        components, digest = module.current_key(arch)
    except HeaderImportError as exc:
        return WarmResult(module.fullname, arch, "failed", message=str(exc))
    store = CacheStore(root)
    if store.lookup(digest, components) is not None:
        return WarmResult(module.fullname, arch, "present", str(store.entry_dir(digest)))
    env = {**os.environ, ARCH_ENV: arch, ENV_VAR: str(root), LAYERS_ENV: ""}
    if project.pyproject is not None:
        env[CONFIG_ENV] = project.pyproject
    done = subprocess.run(
        [sys.executable, "-c", _import_code(module)],
        cwd=module.mapping.base_dir,
        env=env,
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        return WarmResult(module.fullname, arch, "failed", message=_failure(done.stderr))
    if store.lookup(digest, components) is None:
        return WarmResult(
            module.fullname,
            arch,
            "failed",
            message=f"the import succeeded but stored nothing in {root}: {done.stderr.strip()}",
        )
    return WarmResult(module.fullname, arch, "built", str(store.entry_dir(digest)))


# The child's ImportError, whole (a parse error lists every diagnostic), on one stderr line.
_FAILURE_MARK = "numbast-cache warm failed: "
_IMPORT = f"""
import importlib, json, sys
try:
    importlib.import_module({{name!r}})
except ImportError as exc:
    print({_FAILURE_MARK!r} + json.dumps(str(exc)), file=sys.stderr)
    sys.exit(1)
"""


def _import_code(module: Module) -> str:
    code = _IMPORT.format(name=module.fullname)
    registered = module.mapping.registered
    if registered is None:
        return code
    # A register() mapping lives in the calling process only: repeat the call.
    arguments = dict(registered)
    header = os.path.join(module.mapping.base_dir, arguments.pop("header"))
    return (
        "import numbast_import\n"
        f"numbast_import.register({module.mapping.module!r}, {header!r}, **{arguments!r})\n" + code
    )


def _failure(stderr: str) -> str:
    """The child's ImportError message when it gave one, else all it wrote (a crash)."""
    for line in reversed(stderr.splitlines()):
        if line.startswith(_FAILURE_MARK):
            return json.loads(line[len(_FAILURE_MARK) :])
    return stderr.strip() or "the build process exited without a message"

"""Build cache entries ahead of time: ``numbast-cache warm NAME... --arch sm_80,sm_90``.

Each (module, arch) is built in a fresh interpreter that simply imports the module, with the
arch and the cache root given through the environment: exactly what a first import does (the
modules it uses are imported, and built, for the same arch into the same root), and it needs no
GPU. An entry that is already current in the target root is not built again. With ``--into
LAYER`` the parser's preludes (~8 MB per arch, of no use to a reader) are kept in a temporary
directory that the builds of one run share: a layer holds entries only, and nothing is written
to this machine's own cache root. ``jobs`` builds run at once (the per-entry build lock keeps
two of them from building the same entry).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
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
    jobs: int = 1,
) -> list[WarmResult]:
    """Build the entries of ``names`` (``my_lib``, ``cuda_headers.my_lib``,
    ``numbast.headers.cufp16``) for each of ``archs`` (default: the arch an import would use
    now) in ``into`` (default: the writable cache root), ``jobs`` at a time. ``config`` is the
    pyproject.toml (default: as for imports)."""
    for arch in archs or ():
        if not ARCH_RE.fullmatch(arch):
            raise ArchUnknownError(f"{arch!r} is not an arch; write it as sm_<major><minor>")
    if jobs < 1:
        raise ValueError(f"jobs = {jobs}: give 1 or more")
    project = load_project_config(config)
    results: list[WarmResult | None] = []
    builds = []  # (index in results, module, arch, root)
    for name in names:
        try:
            module = resolve(name, project)
        except HeaderImportError as exc:
            results.append(WarmResult(name, None, "failed", message=str(exc)))
            continue
        root = Path(into).resolve() if into else cache_root(module.mapping.cache_dir)
        for arch in archs or (None,):
            builds.append((len(results), module, arch, root))
            results.append(None)
    with (
        tempfile.TemporaryDirectory(prefix="numbast-warm-parser-") as preludes,
        ThreadPoolExecutor(max_workers=jobs) as pool,
    ):
        parser_root = Path(preludes) if into else None

        def build(planned: tuple) -> WarmResult:
            _index, module, arch, root = planned
            return _warm_one(module, arch, root, parser_root, project)

        for planned, result in zip(builds, pool.map(build, builds), strict=True):
            results[planned[0]] = result
    return [result for result in results if result is not None]


def _warm_one(
    module: Module, arch: str | None, root: Path, parser_root: Path | None, project: ProjectConfig
) -> WarmResult:
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
        [sys.executable, "-c", _import_code(module, parser_root)],
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
import importlib, json, pathlib, sys
import numbast_import.loader
if {{parser_root!r}} is not None:
    numbast_import.loader.keep_parser_preludes_in(pathlib.Path({{parser_root!r}}))
try:
    importlib.import_module({{name!r}})
except ImportError as exc:
    print({_FAILURE_MARK!r} + json.dumps(str(exc)), file=sys.stderr)
    sys.exit(1)
"""


def _import_code(module: Module, parser_root: Path | None) -> str:
    preludes = None if parser_root is None else str(parser_root)
    code = _IMPORT.format(name=module.fullname, parser_root=preludes)
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

"""[tool.numbast-import] in the user's pyproject.toml: lookup, the short and table forms, and
errors that name the file, the key and the fix; the finder's answer for unmapped names; the arch
and cache-root rules. All in-process and quick: nothing here parses a header."""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import os
import textwrap
import threading
from pathlib import Path

import pytest
from import_support import make_project

from numbast_import.arch import ArchUnknownError, resolve_arch
from numbast_import.cache.root import CacheSafetyError, cache_root, check_safe
from numbast_import.cache.store import CacheStore
from numbast_import.config import (
    ImportConfigError,
    find_pyproject,
    load_project_config,
)


def write_pyproject(project: Path, body: str) -> Path:
    path = project / "pyproject.toml"
    path.write_text(textwrap.dedent(body))
    return path


def test_the_pyproject_is_found_from_a_subdirectory(tmp_path, monkeypatch):
    project = make_project(tmp_path)
    monkeypatch.chdir(project / "include")
    assert find_pyproject() == project / "pyproject.toml"
    config = load_project_config()
    assert config.arch == "sm_90" and set(config.headers) == {"vec"}
    mapping = config.headers["vec"]
    assert mapping.header == str(project / "include" / "vec.cuh")
    assert "[tool.numbast-import.headers] vec" in mapping.source


def test_the_table_form_maps_onto_the_static_config(tmp_path):
    project = make_project(tmp_path)
    path = write_pyproject(
        project,
        """
        [tool.numbast-import]
        arch = "sm_90"
        include-dirs = ["include"]
        cache-dir = ".cache"

        [tool.numbast-import.headers.geometry]
        header = "include/vec.cuh"
        retain = ["include/scale.h"]
        defines = ["FAST=1"]
        exclude-functions = ["dot"]
        exclude-structs = ["Hidden"]
        types = { Vec2 = "Number" }
        data-models = { Vec2 = "StructModel" }
        function-prefix-removal = ["geom_"]
        use-separate-registry = true
        """,
    )
    project_config = load_project_config(path)
    assert project_config.cache_dir == str(project / ".cache")
    config = project_config.headers["geometry"].static_config("sm_90")
    include = project / "include"
    assert config.entry_point == str(include / "vec.cuh")
    assert config.file_list == (str(include / "vec.cuh"), str(include / "scale.h"))
    assert config.gpu_arch == ("sm_90",)
    assert config.predefined_macros == ("FAST=1",)
    assert config.exclude_functions == ("dot",) and config.exclude_structs == ("Hidden",)
    assert config.clang_include_paths == (str(include),)
    assert config.types == {"Vec2": "Number"} and config.data_models == {"Vec2": "StructModel"}
    assert config.function_prefix_removal == ("geom_",) and config.use_separate_registry


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ('[tool.numbast-import]\narchh = "sm_90"\n', "unknown key 'archh'"),
        (
            '[tool.numbast-import.headers.vec]\nheader = "include/vec.cuh"\nexclude = []\n',
            "unknown key 'exclude'",
        ),
        ('[tool.numbast-import]\narch = "90"\n', 'arch = "sm_90"'),
        ('[tool.numbast-import.headers]\n"my-lib" = "include/vec.cuh"\n', "not a Python module"),
        ('[tool.numbast-import.headers.vec]\nretain = ["x.h"]\n', "give the header"),
    ],
)
def test_bad_settings_name_the_file_the_key_and_the_fix(tmp_path, body, expected):
    path = write_pyproject(make_project(tmp_path), body)
    with pytest.raises(ImportConfigError) as caught:
        load_project_config(path)
    message = str(caught.value)
    assert str(path) in message and expected in message


def test_a_sha256_pin_must_match_the_header(tmp_path, monkeypatch):
    project = make_project(tmp_path)
    header = project / "include" / "vec.cuh"
    good = hashlib.sha256(header.read_bytes()).hexdigest()
    body = '[tool.numbast-import]\narch = "sm_90"\n[tool.numbast-import.headers]\n'
    write_pyproject(project, body + f'vec = {{ header = "include/vec.cuh", sha256 = "{good}" }}\n')
    load_project_config(project / "pyproject.toml").headers["vec"].check_pin()

    bad = "0" * 64
    write_pyproject(project, body + f'vec = {{ header = "include/vec.cuh", sha256 = "{bad}" }}\n')
    monkeypatch.chdir(project)
    monkeypatch.setenv("NUMBAST_CACHE_DIR", str(tmp_path / "cache"))
    with pytest.raises(ImportConfigError) as caught:
        importlib.import_module("cuda_headers.vec")
    message = str(caught.value)
    assert str(header) in message and good in message and "sha256 pin" in message


def test_a_missing_header_is_an_error_naming_the_mapping(tmp_path, monkeypatch):
    project = make_project(tmp_path)
    (project / "include" / "vec.cuh").unlink()
    monkeypatch.chdir(project)
    monkeypatch.setenv("NUMBAST_CACHE_DIR", str(tmp_path / "cache"))
    with pytest.raises(ImportConfigError, match=r"vec.cuh does not exist; fix the path in .*vec"):
        importlib.import_module("cuda_headers.vec")


def test_an_unmapped_module_lists_the_mapped_names(tmp_path, monkeypatch):
    project = make_project(tmp_path)
    monkeypatch.chdir(project)
    with pytest.raises(ModuleNotFoundError) as caught:
        importlib.util.find_spec("cuda_headers.nope")
    message = str(caught.value)
    assert "cuda_headers.nope" in message and "maps vec" in message
    assert str(project / "pyproject.toml") in message
    with pytest.raises(ModuleNotFoundError, match="cubf16, cufp16, cufp8"):
        importlib.util.find_spec("numbast.headers.nope")


def test_find_spec_does_no_work(tmp_path, monkeypatch):
    project = make_project(tmp_path)
    monkeypatch.chdir(project)
    monkeypatch.setenv("NUMBAST_CACHE_DIR", str(tmp_path / "cache"))
    spec = importlib.util.find_spec("cuda_headers.vec")
    assert spec is not None and spec.origin == str(project / "include" / "vec.cuh")
    assert not (tmp_path / "cache").exists()


def test_the_arch_pin_wins_and_no_gpu_asks_for_one(monkeypatch):
    monkeypatch.delenv("NUMBAST_IMPORT_ARCH", raising=False)
    assert resolve_arch("sm_80", "cuda_headers.x", "pyproject.toml") == "sm_80"
    from conftest import cuda_device_available

    if cuda_device_available():
        assert resolve_arch(None, "cuda_headers.x", "p").startswith("sm_")
        return
    with pytest.raises(ArchUnknownError, match='arch = "sm_90"'):
        resolve_arch(None, "cuda_headers.x", "pyproject.toml")


def test_the_arch_environment_variable_overrides_the_pin(monkeypatch):
    monkeypatch.setenv("NUMBAST_IMPORT_ARCH", "sm_100")
    assert resolve_arch("sm_80", "cuda_headers.x", "pyproject.toml") == "sm_100"
    monkeypatch.setenv("NUMBAST_IMPORT_ARCH", "90")
    with pytest.raises(ArchUnknownError, match="NUMBAST_IMPORT_ARCH='90' is not an arch"):
        resolve_arch("sm_80", "cuda_headers.x", "pyproject.toml")


def test_cache_root_order(tmp_path, monkeypatch):
    monkeypatch.setenv("NUMBAST_CACHE_DIR", str(tmp_path / "env"))
    assert cache_root(str(tmp_path / "configured")) == tmp_path / "env"
    monkeypatch.delenv("NUMBAST_CACHE_DIR")
    assert cache_root(str(tmp_path / "configured")) == tmp_path / "configured"
    assert cache_root(None).name == "numbast-import"
    with pytest.raises(CacheSafetyError, match="site-packages"):
        cache_root(str(tmp_path / "lib" / "site-packages" / "c"))


def test_unsafe_cache_directories_are_refused(tmp_path, monkeypatch):
    root = tmp_path / "cache"
    CacheStore(root)
    assert root.stat().st_mode & 0o777 == 0o700
    root.chmod(0o777)
    with pytest.raises(CacheSafetyError, match="writable by others.*chmod go-w"):
        CacheStore(root)
    root.chmod(0o700)
    monkeypatch.setattr(os, "getuid", lambda: os.stat(root).st_uid + 1)
    with pytest.raises(CacheSafetyError, match="belongs to uid"):
        check_safe(root)


def test_a_builder_waiting_for_the_lock_names_its_holder(tmp_path, monkeypatch):
    from filelock import FileLock

    from numbast_import.cache.store import CacheLockTimeout, _BuildLock

    lock_path = tmp_path / "abc.lock"
    with _BuildLock(lock_path):
        # Another thread with its own lock object contends as another process would.
        monkeypatch.setenv("NUMBAST_IMPORT_LOCK_TIMEOUT", "0.3")
        errors = []

        def wait() -> None:
            try:
                with _BuildLock(lock_path):
                    pass
            except CacheLockTimeout as exc:
                errors.append(str(exc))

        waiter = threading.Thread(target=wait)
        waiter.start()
        waiter.join()
    assert errors, "the second builder should have timed out"
    assert f"pid {os.getpid()}" in errors[0] and str(lock_path) in errors[0]
    assert "NUMBAST_IMPORT_LOCK_TIMEOUT" in errors[0]
    after = FileLock(str(lock_path))
    after.acquire(timeout=1)  # released when the holder left its with block
    after.release()
    assert not lock_path.with_suffix(".owner").exists()

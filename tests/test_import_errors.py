"""Every way ``import cuda_headers.x`` can fail is an ImportError subclass whose message names
the pyproject (or the register() call), the key and the fix, and what the user sees has no
traceback frame from inside numbast_import: the import line, then the message."""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
import textwrap
import traceback
from pathlib import Path

import pytest
from import_support import clean_env, in_process_project, run_python

from numbast_import import arch as arch_module
from numbast_import.errors import (
    ArchUnknownError,
    BindingsExecutionError,
    CacheLockTimeout,
    CacheSafetyError,
    HeaderImportError,
    HeaderNotMappedError,
    HeaderParseError,
    ImportConfigError,
)

PACKAGE_DIR = str(Path(importlib.import_module("numbast_import").__file__).parent)
HEAD = '[tool.numbast-import]\narch = "sm_90"\n[tool.numbast-import.headers]\n'


@pytest.fixture
def project(tmp_path, monkeypatch):
    return in_process_project(tmp_path, monkeypatch)


def map_headers(project: Path, lines: str) -> Path:
    path = project / "pyproject.toml"
    path.write_text(HEAD + textwrap.dedent(lines))
    return path


def failed_import(name: str) -> tuple[BaseException, str]:
    """The exception of ``import name`` written as user code, and its printed traceback."""
    try:
        exec(compile(f"import {name}", "<user code>", "exec"), {})
    except ImportError as exc:
        return exc, "".join(traceback.format_exception(exc))
    raise AssertionError(f"import {name} succeeded")


def assert_no_frames_of_ours(printed: str) -> None:
    frames = [line for line in printed.splitlines() if line.lstrip().startswith('File "')]
    ours = [line for line in frames if PACKAGE_DIR in line]
    assert not ours, printed
    assert any("<user code>" in line for line in frames), printed


def test_an_unmapped_name(project):
    error, printed = failed_import("cuda_headers.nope")
    assert isinstance(error, HeaderNotMappedError) and isinstance(error, ModuleNotFoundError)
    assert str(project / "pyproject.toml") in str(error) and 'nope = "include/nope.cuh"' in printed
    assert_no_frames_of_ours(printed)


def test_a_bad_mapping_and_its_good_neighbour(project):
    map_headers(
        project, 'vec = "include/vec.cuh"\nbad = { header = "include/vec.cuh", defines = 1 }\n'
    )
    error, printed = failed_import("cuda_headers.bad")
    assert isinstance(error, ImportConfigError)
    assert "[tool.numbast-import.headers] bad" in str(error) and 'defines = ["FAST=1"' in str(error)
    assert_no_frames_of_ours(printed)
    assert importlib.util.find_spec("cuda_headers.vec").origin.endswith("vec.cuh")


def test_a_bad_project_setting(project):
    (project / "pyproject.toml").write_text('[tool.numbast-import]\narch = "ninety"\n')
    error, printed = failed_import("cuda_headers.vec")
    assert isinstance(error, ImportConfigError) and 'arch = "sm_90"' in str(error)
    assert_no_frames_of_ours(printed)


def test_a_pyproject_that_is_not_toml(project):
    (project / "pyproject.toml").write_text("[tool.numbast-import\n")
    error, printed = failed_import("cuda_headers.vec")
    assert isinstance(error, ImportConfigError) and "not valid TOML" in str(error)
    assert_no_frames_of_ours(printed)


def test_a_broken_sha256_pin(project):
    map_headers(project, f'vec = {{ header = "include/vec.cuh", sha256 = "{"0" * 64}" }}\n')
    error, printed = failed_import("cuda_headers.vec")
    assert isinstance(error, ImportConfigError) and "sha256 pin" in str(error)
    assert_no_frames_of_ours(printed)


def test_no_arch(project, monkeypatch):
    (project / "pyproject.toml").write_text(
        '[tool.numbast-import.headers]\nvec = "include/vec.cuh"\n'
    )
    monkeypatch.setattr(
        arch_module, "current_gpu_arch", lambda memo_dir=None: (None, "no CUDA driver")
    )
    error, printed = failed_import("cuda_headers.vec")
    assert isinstance(error, ArchUnknownError) and 'arch = "sm_90"' in str(error)
    assert_no_frames_of_ours(printed)


def test_an_unsafe_cache_root(project, tmp_path):
    root = tmp_path / "cache"
    root.mkdir(mode=0o700)
    root.chmod(0o777)
    error, printed = failed_import("cuda_headers.vec")
    assert isinstance(error, CacheSafetyError) and "chmod go-w" in str(error)
    assert_no_frames_of_ours(printed)


def test_a_build_lock_held_too_long(project, tmp_path, monkeypatch):
    import fcntl
    import json

    from numbast_import.config import load_project_config
    from numbast_import.entry_key import entry_key

    mapping = load_project_config().headers["vec"]
    digest = entry_key(mapping, "cuda_headers.vec", "sm_90")[1]
    shard = tmp_path / "cache" / digest[:2]
    shard.mkdir(parents=True, mode=0o700)
    (tmp_path / "cache").chmod(0o700)
    monkeypatch.setenv("NUMBAST_IMPORT_LOCK_TIMEOUT", "0.2")
    # Held as another process holds it: its own open file, with its holder written in it.
    holder = os.open(shard / f"{digest}.lock", os.O_RDWR | os.O_CREAT, 0o600)
    fcntl.flock(holder, fcntl.LOCK_EX)
    os.write(holder, json.dumps({"pid": 1, "host": "elsewhere", "what": "a test"}).encode())
    try:
        error, printed = failed_import("cuda_headers.vec")
    finally:
        os.close(holder)
    assert isinstance(error, CacheLockTimeout) and "a test" in str(error)
    assert_no_frames_of_ours(printed)


# "0": parsed in a child process, as a big header is (numbast_import.build_process): the error
# the user sees is the same.
@pytest.mark.parametrize("parse_process_mb", ["", "0"], ids=["in-process", "child"])
def test_a_header_clang_cannot_parse(project, monkeypatch, parse_process_mb):
    monkeypatch.setenv("NUMBAST_IMPORT_PARSE_PROCESS_MB", parse_process_mb)
    (project / "include" / "broken.cuh").write_text("struct Broken { int x }\n")
    map_headers(project, 'broken = "include/broken.cuh"\n')
    error, printed = failed_import("cuda_headers.broken")
    assert isinstance(error, HeaderParseError)
    assert error.diagnostics and all("error" in d for d in error.diagnostics)
    assert any("broken.cuh:1" in d for d in error.diagnostics)
    message = str(error)
    assert "[tool.numbast-import.headers] broken" in message
    assert "bypass-parse-error = true" in message and "include-dirs" in message
    assert_no_frames_of_ours(printed)


def test_what_the_user_sees_in_a_terminal(project, tmp_path):
    map_headers(project, 'bad = { header = "include/vec.cuh", include-dirs = "include" }\n')
    script = project / "run.py"
    script.write_text("import cuda_headers.bad\n")
    result = subprocess.run(
        [sys.executable, str(script)],
        cwd=project,
        env=clean_env(tmp_path / "cache"),
        capture_output=True,
        text=True,
    )
    assert result.stderr.splitlines() == [
        "Traceback (most recent call last):",
        f'  File "{script}", line 1, in <module>',
        "    import cuda_headers.bad",
        "numbast_import.errors.ImportConfigError: cannot import cuda_headers.bad: "
        f"{project / 'pyproject.toml'} [tool.numbast-import.headers] bad: include-dirs = "
        """'include' is a string, not a list; write include-dirs = ["include"]""",
    ]


def test_generated_bindings_that_raise(project, tmp_path):
    map_headers(
        project, 'vec = { header = "include/vec.cuh", module-setup-callback = "no_such_name" }\n'
    )
    code = textwrap.dedent(
        """
        import traceback
        try:
            import cuda_headers.vec
        except ImportError as exc:
            print(type(exc).__name__, type(exc.__cause__).__name__)
            print("".join(traceback.format_exception(exc)))
        """
    )
    result = run_python(code, project, tmp_path / "cache")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("BindingsExecutionError NameError"), result.stdout
    assert "no_such_name" in result.stdout and "bindings.py" in result.stdout
    assert PACKAGE_DIR not in result.stdout, result.stdout
    assert issubclass(BindingsExecutionError, HeaderImportError)


def test_a_header_nvrtc_rejects(project, tmp_path):
    (project / "include" / "clang_only.cuh").write_text(
        '#ifndef __clang__\n#error "this header is for clang only"\n#endif\n'
        "__device__ inline float twice(float x) { return 2.0f * x; }\n"
    )
    map_headers(project, 'clang_only = "include/clang_only.cuh"\n')
    code = textwrap.dedent(
        """
        import traceback
        try:
            import cuda_headers.clang_only
        except ImportError as exc:
            print(type(exc).__name__)
            print("".join(traceback.format_exception(exc)))
        """
    )
    result = run_python(code, project, tmp_path / "cache")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("ShimCompileImportError"), result.stdout
    assert "this header is for clang only" in result.stdout and "clang_only" in result.stdout
    assert PACKAGE_DIR not in result.stdout, result.stdout


def test_bypass_parse_error_binds_what_clang_could_read(project, tmp_path):
    (project / "include" / "partly.cuh").write_text(
        '#ifdef __clang__\nstatic_assert(false, "clang only");\n#endif\n'
        "__device__ inline float twice(float x) { return 2.0f * x; }\n"
    )
    map_headers(project, 'partly = { header = "include/partly.cuh", bypass-parse-error = true }\n')
    result = run_python("import cuda_headers.partly as m; print(m.twice)", project, tmp_path / "c")
    assert result.returncode == 0, result.stderr


def test_every_error_is_an_import_error():
    from numbast_import import errors

    classes = [
        c for c in vars(errors).values() if isinstance(c, type) and c.__module__ == errors.__name__
    ]
    assert len(classes) >= 10
    assert all(issubclass(c, ImportError) for c in classes)
    assert sys.modules["numbast_import.errors"] is errors and os.sep in PACKAGE_DIR

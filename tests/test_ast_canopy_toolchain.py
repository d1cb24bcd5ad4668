"""How the parser presents a CUDA toolkit to clang: a stand-in --cuda-path root for header-only
layouts (the pip wheels), crt/ borrowed from a full toolkit when the wheel lacks it, and an
explicitly given toolkit used as it is."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from ast_canopy import toolchain
from ast_canopy.toolkit import ToolkitNotFoundError


def _fake_headers(root: Path, with_crt: bool) -> Path:
    include = root / "include"
    include.mkdir(parents=True)
    (include / "cuda_runtime.h").write_text("// fake\n")
    (include / "cuda_fp16.h").write_text("// fake\n")
    (include / "cccl" / "cuda" / "std").mkdir(parents=True)
    (include / "cccl" / "cuda" / "std" / "version").write_text("// fake\n")
    if with_crt:
        (include / "crt").mkdir()
        (include / "crt" / "host_defines.h").write_text("// fake\n")
    return include


@pytest.fixture(autouse=True)
def isolated(tmp_path, monkeypatch):
    monkeypatch.setenv("AST_CANOPY_CACHE_DIR", str(tmp_path / "cache"))
    for var in ("CUDA_HOME", "CUDA_PATH"):
        monkeypatch.delenv(var, raising=False)
    # Only the fakes below may be found: no real /usr/local/cuda.
    monkeypatch.setattr(toolchain, "_fallback_roots", lambda: [])


def test_header_only_toolkit_gets_a_stand_in_root(tmp_path):
    include = _fake_headers(tmp_path / "wheel", with_crt=True)
    tk = toolchain.clang_toolkit([str(include)])
    root = Path(tk.cuda_path)
    assert root.parent == tmp_path / "cache"
    assert (root / "bin").is_dir() and not any((root / "bin").iterdir())
    assert (root / "include").resolve() == include.resolve()
    # The toolkit's own CCCL, and the cuRAND stand-in since there is no cuRAND.
    assert tk.system_includes[0] == str(include.resolve() / "cccl")
    assert (Path(tk.system_includes[-1]) / "curand_mtgp32_kernel.h").is_file()
    # Same inputs, same layout: a later parse (another process) finds the same paths.
    assert toolchain.clang_toolkit([str(include)]).cuda_path == tk.cuda_path


def test_missing_crt_is_borrowed_from_a_full_toolkit(tmp_path, monkeypatch, caplog):
    include = _fake_headers(tmp_path / "wheel", with_crt=False)
    full = tmp_path / "full"
    _fake_headers(full, with_crt=True)
    monkeypatch.setattr(toolchain, "_fallback_roots", lambda: [str(full)])
    with caplog.at_level(logging.WARNING, logger="ast_canopy"):
        tk = toolchain.clang_toolkit([str(include)])
    stand_in = Path(tk.cuda_path) / "include"
    assert (stand_in / "crt").resolve() == (full / "include" / "crt").resolve()
    assert (stand_in / "cuda_fp16.h").resolve() == (include / "cuda_fp16.h").resolve()
    assert "pip install nvidia-cuda-crt" in caplog.text


def test_no_crt_anywhere_says_what_to_install(tmp_path):
    include = _fake_headers(tmp_path / "wheel", with_crt=False)
    with pytest.raises(ToolkitNotFoundError, match="nvidia-cuda-crt"):
        toolchain.clang_toolkit([str(include)])


def test_full_toolkit_root_is_used_as_it_is(tmp_path):
    root = tmp_path / "cuda-13.0"
    include = _fake_headers(root, with_crt=True)
    (root / "bin").mkdir()
    tk = toolchain.clang_toolkit([str(include)])
    assert Path(tk.cuda_path) == root.resolve()


@pytest.mark.skipif(
    not Path("/usr/local/cuda/include/cuda_fp8.h").is_file(), reason="no /usr/local/cuda"
)
def test_parse_against_an_explicit_system_toolkit():
    from ast_canopy import parse_declarations_from_source

    include = "/usr/local/cuda/include"
    root = Path("/usr/local/cuda").resolve()
    header = f"{include}/cuda_fp8.h"
    decls = parse_declarations_from_source(
        header, [header, f"{include}/cuda_fp8.hpp"], "sm_90", cudatoolkit_include_dirs=[include]
    )
    names = {s.name for s in decls.structs}
    assert {"__nv_fp8_e4m3", "__nv_fp8x2_e5m2", "__nv_fp8x4_e8m0"} <= names
    assert {e.name for e in decls.enums} == {"__nv_saturation_t", "__nv_fp8_interpretation_t"}
    # The toolkit given is the one clang used, as it is: its root, and every toolkit header
    # the parse read (cuda_runtime.h comes with the toolkit, so it comes from there too; left
    # to itself the parser would take a pip wheel's).
    assert Path(toolchain.clang_toolkit([include]).cuda_path) == root
    toolkit_headers = {"cuda_runtime.h", "cuda_fp16.h", "host_defines.h", "cuda_runtime_api.h"}
    read = [Path(p) for p in decls.included_files if Path(p).name in toolkit_headers]
    assert {p.name for p in read} == toolkit_headers
    assert all(p.is_relative_to(root) for p in read), read

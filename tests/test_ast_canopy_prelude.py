"""The precompiled prelude and the cache directory: same answers with and without it, a corrupt
or refused prelude is rebuilt or skipped, and an unsafe cache directory is not used."""

from __future__ import annotations

import logging
import os
from pathlib import Path

import pytest

DATA = Path(__file__).parent / "data" / "parser"
HEADER = str(DATA / "includes_main.cuh")
RETAIN = [HEADER, str(DATA / "includes_second.cuh")]


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    directory = tmp_path / "cache"
    monkeypatch.setenv("AST_CANOPY_CACHE_DIR", str(directory))
    monkeypatch.delenv("AST_CANOPY_PRELUDE", raising=False)
    return directory


def _parse():
    from ast_canopy import parse_declarations_from_source

    return parse_declarations_from_source(HEADER, RETAIN, "sm_90")


def test_prelude_is_built_once_and_changes_nothing(cache_dir, monkeypatch):
    with_prelude = _parse()
    (pch,) = (cache_dir / "prelude").glob("*.pch")
    built_at = pch.stat().st_mtime_ns
    again = _parse()
    assert pch.stat().st_mtime_ns == built_at  # reused, not rebuilt

    monkeypatch.setenv("AST_CANOPY_PRELUDE", "0")
    without = _parse()
    assert with_prelude == again
    assert (with_prelude.functions, with_prelude.structs) == (without.functions, without.structs)
    # The prelude's files are reported as read, exactly as a plain parse reports them.
    assert set(with_prelude.included_files) == set(without.included_files)
    assert len(without.included_files) > 100


def test_corrupt_prelude_is_discarded_and_rebuilt(cache_dir, caplog):
    _parse()
    (pch,) = (cache_dir / "prelude").glob("*.pch")
    pch.write_bytes(b"not a precompiled header")
    with caplog.at_level(logging.INFO, logger="ast_canopy"):
        decls = _parse()
    assert [f.name for f in decls.functions] == ["read_second", "make_second"]
    assert "discarding stale precompiled prelude" in caplog.text
    _parse()  # builds a fresh one
    (rebuilt,) = (cache_dir / "prelude").glob("*.pch")
    assert rebuilt.read_bytes()[:4] == b"CPCH"


def test_unsafe_cache_directory_is_not_used(tmp_path, monkeypatch, caplog):
    shared = tmp_path / "shared-cache"
    shared.mkdir()
    os.chmod(shared, 0o777)
    monkeypatch.setenv("AST_CANOPY_CACHE_DIR", str(shared))
    with caplog.at_level(logging.WARNING, logger="ast_canopy"):
        decls = _parse()
    assert [s.name for s in decls.structs] == ["Second"]
    assert "writable by others" in caplog.text
    assert list(shared.iterdir()) == []


def test_a_header_inside_the_prelude_is_parsed_without_it(cache_dir):
    """vector_types.h is part of clang's CUDA prelude; its declarations must still be found."""
    from ast_canopy import parse_declarations_from_source
    from ast_canopy.toolkit import cudart_include_dir

    header = str(Path(cudart_include_dir()) / "vector_types.h")
    _parse()  # make sure a prelude exists for these flags
    decls = parse_declarations_from_source(header, [header], "sm_90")
    float4 = next(s for s in decls.structs if s.name == "float4")
    assert (float4.sizeof_, float4.alignof_, [f.name for f in float4.fields]) == (
        16,
        16,
        ["x", "y", "z", "w"],
    )

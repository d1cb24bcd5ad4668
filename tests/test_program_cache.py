"""cuda.core programs in numbast-import's cache (numbast_import.programs): ProgramCache serves
``Program.compile(..., cache=)``; compile_program adds the headers a program includes to the
key and keeps NVRTC's symbol mapping; entries have the store's layers, checks and last use."""

from __future__ import annotations

import os
import time

import cuda.core
import pytest
from cuda.core import Program, ProgramOptions

from numbast_import.cache.root import CacheSafetyError
from numbast_import.programs import ProgramCache, compile_program

KERNEL = 'extern "C" __global__ void k(int *a) { *a = 1; }'
TEMPLATE = "template <class T> __global__ void scale(T *a) { a[0] *= 2; }"
OPTIONS = ProgramOptions(arch="sm_90")


class CountingCache(ProgramCache):
    stored = 0

    def __setitem__(self, key, value):
        CountingCache.stored += 1
        super().__setitem__(key, value)


def entries(root):
    return sorted((root / "programs").glob("??/*"))


def forbid_compiling(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("a cache hit compiled")

    monkeypatch.setattr(cuda.core, "Program", refuse)


def test_program_compile_stores_on_a_miss_and_reads_on_a_hit(tmp_path):
    cache = CountingCache(tmp_path)
    CountingCache.stored = 0
    first = Program(KERNEL, "c++", options=OPTIONS).compile("cubin", cache=cache)
    again = Program(KERNEL, "c++", options=OPTIONS).compile("cubin", cache=cache)
    assert CountingCache.stored == 1 and len(cache) == 1
    assert bytes(again.code) == bytes(first.code) and bytes(first.code)[:4] == b"\x7fELF"
    (entry,) = entries(tmp_path)
    assert (entry / "program.bin").read_bytes() == bytes(first.code)


def test_the_resource_interface(tmp_path):
    cache = ProgramCache(tmp_path)
    cache[b"one"] = b"\x01" * 8
    cache["two"] = memoryview(b"\x02" * 8)
    assert cache.get(b"two") == b"\x02" * 8 and cache[b"one"] == b"\x01" * 8
    assert cache.get(b"three") is None and len(cache) == 2
    del cache["one"]
    with pytest.raises(KeyError):
        cache[b"one"]
    with pytest.raises(KeyError):
        del cache[b"one"]
    cache.clear()
    assert len(cache) == 0 and entries(tmp_path) == []


def test_included_headers_are_part_of_the_key(tmp_path, monkeypatch):
    include = tmp_path / "include"
    include.mkdir()
    (include / "value.h").write_text("#define VALUE 1\n")
    code = '#include "value.h"\nextern "C" __global__ void k(int *a) { *a = VALUE; }\n'
    options = ProgramOptions(arch="sm_90", include_path=[str(include)])
    with pytest.raises(ValueError, match="extra_digest"):  # what cuda.core alone says
        Program(code, "c++", options=options).compile("cubin", cache=ProgramCache(tmp_path))
    cache = ProgramCache(tmp_path / "cache")
    first = compile_program(code, "cubin", options, cache=cache)
    (include / "value.h").write_text("#define VALUE 2\n")
    second = compile_program(code, "cubin", options, cache=cache)
    assert bytes(first.code) != bytes(second.code) and len(entries(tmp_path / "cache")) == 2
    forbid_compiling(monkeypatch)
    assert bytes(compile_program(code, "cubin", options, cache=cache).code) == bytes(second.code)


def test_name_expressions_survive_a_hit(tmp_path, monkeypatch):
    cache = ProgramCache(tmp_path)
    first = compile_program(
        TEMPLATE, "cubin", OPTIONS, name_expressions=["scale<int>"], cache=cache
    )
    forbid_compiling(monkeypatch)
    hit = compile_program(TEMPLATE, "cubin", OPTIONS, name_expressions=["scale<int>"], cache=cache)
    assert hit.symbol_mapping == first.symbol_mapping
    assert hit.symbol_mapping["scale<int>"] == b"_Z5scaleIiEvPT_"


def test_a_read_only_layer_serves_programs(tmp_path, monkeypatch):
    layer = tmp_path / "layer"
    compiled = compile_program(KERNEL, "cubin", OPTIONS, cache=ProgramCache(layer))
    monkeypatch.setenv("NUMBAST_CACHE_PATH", str(layer))
    forbid_compiling(monkeypatch)
    hit = compile_program(KERNEL, "cubin", OPTIONS, cache=ProgramCache(tmp_path / "root"))
    assert bytes(hit.code) == bytes(compiled.code) and not (tmp_path / "root").exists()


def test_a_program_others_can_write_is_refused(tmp_path):
    cache = ProgramCache(tmp_path)
    cache[b"key"] = b"\x7fELF..."
    (entry,) = entries(tmp_path)
    (entry / "program.bin").chmod(0o666)
    with pytest.raises(CacheSafetyError, match="writable by others"):
        cache[b"key"]


def test_a_program_hit_today_survives_prune_and_is_listed(tmp_path, monkeypatch, capsys):
    from numbast_import.cli import main

    cache = ProgramCache(tmp_path)
    cache[b"key"] = b"\x7fELF..."
    (entry,) = entries(tmp_path)
    long_ago = time.time() - 30 * 86400
    os.utime(entry, (long_ago, long_ago))
    assert cache[b"key"] == b"\x7fELF..."  # a hit today
    monkeypatch.setenv("NUMBAST_CACHE_DIR", str(tmp_path))
    monkeypatch.chdir(tmp_path)
    assert main(["prune", "--older-than", "7"]) == 0 and entry.is_dir()
    assert main(["list"]) == 0 and "program" in capsys.readouterr().out
    (entry / "program.bin").write_bytes(b"damaged")
    assert main(["verify"]) == 1
    assert "program.bin does not match" in capsys.readouterr().out

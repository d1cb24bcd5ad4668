"""The header's sha256, part of its entry's name, is remembered in the cache root under the file's
stamp (numbast_import.cache.file_hashes.header_sha256): a warm import reads no header, and an edited
header is hashed again however its times were set."""

from __future__ import annotations

import os
import time

import pytest

from numbast_import.cache import file_hashes
from numbast_import.cache.file_hashes import file_sha256, header_sha256


@pytest.fixture
def header(tmp_path, monkeypatch):
    monkeypatch.setattr(file_hashes, "STAMP_SETTLE_S", 0.0)  # every file counts as settled
    path = tmp_path / "lib.cuh"
    path.write_text("__device__ int f(int x);\n")
    return path


def _memos(memo_dir):
    return sorted(memo_dir.glob("header-*")) if memo_dir.is_dir() else []


def test_the_digest_is_remembered_and_a_remembered_one_is_used(header, tmp_path, monkeypatch):
    memo_dir = tmp_path / "keys"
    assert header_sha256(str(header), memo_dir) == file_sha256(header)
    assert len(_memos(memo_dir)) == 1
    hashed = []
    monkeypatch.setattr(file_hashes, "file_sha256", lambda path: hashed.append(path) or "x" * 64)
    assert header_sha256(str(header), memo_dir) == file_sha256(header)
    assert hashed == []  # read from the memo


def test_an_edit_that_keeps_the_size_and_restores_the_time_is_hashed_again(header, tmp_path):
    memo_dir = tmp_path / "keys"
    before = os.stat(header)
    header_sha256(str(header), memo_dir)
    time.sleep(0.05)  # past the file system clock's tick: the change time moves
    header.write_text("__device__ int g(int x);\n")  # the same size
    os.utime(header, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert os.stat(header).st_size == before.st_size
    assert header_sha256(str(header), memo_dir) == file_sha256(header)
    assert len(_memos(memo_dir)) == 1  # one memo per header, replaced


def test_a_memo_others_can_write_or_of_a_recent_file_is_not_trusted(header, tmp_path, monkeypatch):
    memo_dir = tmp_path / "keys"
    header_sha256(str(header), memo_dir)
    (memo,) = _memos(memo_dir)
    path, stamp, _digest = memo.read_text().split("\n")
    memo.write_text(f"{path}\n{stamp}\n{'0' * 64}")  # planted: the header looks unchanged
    memo.chmod(0o666)
    assert header_sha256(str(header), memo_dir) == file_sha256(header)
    # A header changed within the settle time is hashed and not remembered.
    monkeypatch.setattr(file_hashes, "STAMP_SETTLE_S", 3600.0)
    fresh = tmp_path / "fresh.cuh"
    fresh.write_text("struct S {};\n")
    assert header_sha256(str(fresh), memo_dir) == file_sha256(fresh)
    assert len(_memos(memo_dir)) == 1

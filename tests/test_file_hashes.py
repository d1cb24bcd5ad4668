"""The digests of a build's included files, remembered in the cache root for files that did
not change (numbast_import.cache.file_hashes): an edit's rebuild does not read the toolkit's
headers again (issue 22's edit loop), and trusts the memo as a warm import trusts stamps."""

from __future__ import annotations

import hashlib
import json
import os
import time

import pytest

from numbast_import.cache import file_hashes
from numbast_import.cache.file_hashes import MEMO, included_file_hashes


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@pytest.fixture
def files(tmp_path, monkeypatch):
    """Two settled files and one just written: the clock stops right after the last write, and
    the settle time is shorter than the pause before it (a file's change time, which the stamp
    and the settle rule both use, cannot be set back as its modification time can)."""
    made = {}
    for name, data in (("old.h", b"old"), ("other.h", b"other"), ("new.h", b"new")):
        if name == "new.h":
            time.sleep(0.1)
        path = tmp_path / name
        path.write_bytes(data)
        made[name] = str(path)
    written = os.stat(made["new.h"]).st_ctime_ns
    monkeypatch.setattr(file_hashes, "STAMP_SETTLE_S", 0.05)
    monkeypatch.setattr(file_hashes, "_now_ns", lambda: written + 1)
    return made


@pytest.fixture
def reads(monkeypatch):
    """The paths hashed by reading them."""
    read = []
    original = file_hashes.file_sha256

    def counted(path):
        read.append(os.path.basename(path))
        return original(path)

    monkeypatch.setattr(file_hashes, "file_sha256", counted)
    return read


def test_settled_files_are_read_once_and_a_changed_one_again(tmp_path, files, reads):
    keys = tmp_path / "keys"
    expected = {files["old.h"]: sha(b"old"), files["other.h"]: sha(b"other")}
    expected[files["new.h"]] = sha(b"new")
    assert included_file_hashes(files.values(), keys) == expected
    assert sorted(reads) == ["new.h", "old.h", "other.h"]
    reads.clear()
    assert included_file_hashes(files.values(), keys) == expected
    assert reads == ["new.h"]  # modified just now: its stamp is not trusted yet
    reads.clear()
    with open(files["old.h"], "wb") as stream:  # a new stamp (and contents)
        stream.write(b"changed")
    expected[files["old.h"]] = sha(b"changed")
    assert included_file_hashes(files.values(), keys) == expected
    assert sorted(reads) == ["new.h", "old.h"]
    assert (keys / MEMO).stat().st_mode & 0o077 == 0


def test_a_memo_others_could_have_written_is_not_read(tmp_path, files, reads):
    keys = tmp_path / "keys"
    included_file_hashes(files.values(), keys)
    memo = keys / MEMO
    memo.write_text(memo.read_text().replace(sha(b"old"), "0" * 64))  # a digest of lies
    memo.chmod(0o666)
    reads.clear()
    assert included_file_hashes(files.values(), keys)[files["old.h"]] == sha(b"old")
    assert sorted(reads) == ["new.h", "old.h", "other.h"]


def test_a_damaged_memo_is_a_memo_of_nothing(tmp_path, files, reads):
    keys = tmp_path / "keys"
    keys.mkdir(mode=0o700)
    stamp = file_hashes.file_stamp(os.stat(files["old.h"]))
    for damaged in (
        json.dumps({files["old.h"]: [*stamp, "not a digest"]}),
        json.dumps({files["old.h"]: [*stamp, "0" * 64]})[:-2],  # cut short
        json.dumps([files["old.h"], *stamp, "0" * 64]),
    ):
        (keys / MEMO).write_text(damaged)
        reads.clear()
        assert included_file_hashes([files["old.h"]], keys)[files["old.h"]] == sha(b"old")
        assert reads == ["old.h"]


def test_a_missing_file_raises_as_without_a_memo(tmp_path, files):
    with pytest.raises(OSError):
        included_file_hashes([files["old.h"], str(tmp_path / "gone.h")], tmp_path / "keys")


def test_the_memo_keeps_the_files_learned_last(tmp_path, files, monkeypatch):
    keys = tmp_path / "keys"
    monkeypatch.setattr(file_hashes, "MEMO_FILES", 2)
    monkeypatch.setattr(file_hashes, "_now_ns", lambda: time.time_ns() + 10**9)  # all settled
    included_file_hashes([files["old.h"]], keys)
    included_file_hashes([files["other.h"]], keys)
    third = tmp_path / "third.h"
    third.write_bytes(b"third")
    included_file_hashes([str(third)], keys)
    assert list(json.loads((keys / MEMO).read_text())) == [files["other.h"], str(third)]

"""The GPU's arch remembered in the cache root (numbast_import.arch_memo): a fresh process takes
it instead of waiting for cuInit, only for the machine as it was, only when no library of the
process has loaded the driver, only from a memo it can trust; the driver's answer, when it
comes, removes a memo that was wrong."""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

import pytest

from numbast_import import arch as arch_module
from numbast_import import arch_memo


class Driver:
    """Stands for the CUDA driver: answers (major, minor, device 0's?) once ``release`` is set."""

    def __init__(self, answer=(9, 0, True)):
        self.answer = answer
        self.release = threading.Event()
        self.asked = 0

    def __call__(self):
        self.asked += 1
        assert self.release.wait(10), "the test never released the driver"
        if isinstance(self.answer, Exception):
            raise self.answer
        return self.answer


@pytest.fixture
def fresh_process(monkeypatch, tmp_path):
    """The arch module as in a new process on a machine whose state is "state-1", no context
    current: the memo directory (a cache root's keys/) and how to start another process."""
    monkeypatch.delenv("NUMBAST_IMPORT_ARCH", raising=False)
    monkeypatch.setattr(arch_memo, "machine_state", lambda: "state-1")
    monkeypatch.setattr(arch_module, "_context_current", lambda: False)

    def new_process(driver):
        monkeypatch.setattr(arch_module, "_device_arch", None)
        monkeypatch.setattr(arch_module, "_memo_checked", False)
        monkeypatch.setattr(arch_module, "_memos_settled", set())
        monkeypatch.setattr(arch_module, "_device_capability", driver)

    new_process(Driver())
    return Process(tmp_path / "keys", new_process)


class Process(NamedTuple):
    memo_dir: Path
    new_process: Callable  # (driver) -> None: the arch module as in a new process


def _wait_for(condition, what):
    deadline = time.monotonic() + 10
    while not condition():
        assert time.monotonic() < deadline, what
        time.sleep(0.01)


def test_the_first_process_waits_and_remembers_the_next_one_does_not_wait(fresh_process):
    memo_dir = fresh_process.memo_dir
    first = Driver()
    fresh_process.new_process(first)
    first.release.set()
    assert arch_module.current_gpu_arch(memo_dir) == ("sm_90", "")
    assert (memo_dir / "arch-state-1").read_text() == "sm_90\n"
    # Another import of the same process, with the answer in hand: the memo is settled.
    with pytest.MonkeyPatch.context() as unread:
        unread.setattr(arch_memo, "remembered", lambda *_: pytest.fail("the memo was read again"))
        assert arch_module.current_gpu_arch(memo_dir) == ("sm_90", "")

    second = Driver()  # never answers before the import is done
    fresh_process.new_process(second)
    started = time.perf_counter()
    assert arch_module.current_gpu_arch(memo_dir) == ("sm_90", "")
    assert time.perf_counter() - started < 1.0
    _wait_for(lambda: second.asked == 1, "the driver is still asked, in the background")
    second.release.set()
    _wait_for(arch_module._device_arch.done, "the background answer")
    assert (memo_dir / "arch-state-1").read_text() == "sm_90\n"  # it agreed: kept


def test_a_wrong_memo_is_removed_when_the_driver_answers(fresh_process, caplog):
    memo_dir = fresh_process.memo_dir
    memo_dir.mkdir()
    (memo_dir / "arch-state-1").write_text("sm_80\n")
    driver = Driver((9, 0, True))
    fresh_process.new_process(driver)
    with caplog.at_level(logging.ERROR, logger="numbast_import.arch_memo"):
        assert arch_module.current_gpu_arch(memo_dir) == ("sm_80", "")
        driver.release.set()
        _wait_for(lambda: not (memo_dir / "arch-state-1").exists(), "the wrong memo removed")
    assert "device 0 is sm_90, not sm_80" in caplog.text and str(memo_dir) in caplog.text

    again = Driver((9, 0, True))  # the next process asks the driver, and remembers its answer
    fresh_process.new_process(again)
    again.release.set()
    assert arch_module.current_gpu_arch(memo_dir) == ("sm_90", "")
    assert (memo_dir / "arch-state-1").read_text() == "sm_90\n"


def test_a_memo_is_forgotten_when_no_device_answers(fresh_process):
    memo_dir = fresh_process.memo_dir
    memo_dir.mkdir()
    (memo_dir / "arch-state-1").write_text("sm_90\n")
    driver = Driver(arch_module.DeviceQueryError("cuInit: CUDA_ERROR_NO_DEVICE"))
    fresh_process.new_process(driver)
    assert arch_module.current_gpu_arch(memo_dir) == ("sm_90", "")
    driver.release.set()
    _wait_for(lambda: not (memo_dir / "arch-state-1").exists(), "the memo removed")


@pytest.mark.parametrize(
    "why",
    [
        "a context is current",
        "the driver cannot say",
        "another machine state",
        "no machine state",
        "damaged",
        "others can write",
    ],
)
def test_the_driver_is_asked_when_the_memo_does_not_apply(fresh_process, monkeypatch, why):
    memo_dir = fresh_process.memo_dir
    memo_dir.mkdir()
    memo = memo_dir / "arch-state-1"
    memo.write_text("sm_80\n")
    if why == "a context is current":  # made by a library, maybe on another device
        monkeypatch.setattr(arch_module, "_context_current", lambda: True)
    elif why == "the driver cannot say":
        monkeypatch.setattr(arch_module, "_context_current", lambda: None)
    elif why == "another machine state":  # rebooted, another driver, other devices visible
        monkeypatch.setattr(arch_memo, "machine_state", lambda: "state-2")
    elif why == "no machine state":  # not Linux, no NVIDIA driver
        monkeypatch.setattr(arch_memo, "machine_state", lambda: None)
    elif why == "damaged":
        memo.write_text("sm_80; import os\n")
    else:
        os.chmod(memo, 0o666)
    driver = Driver((9, 0, True))
    fresh_process.new_process(driver)
    answer = []
    asking = threading.Thread(target=lambda: answer.append(arch_module.current_gpu_arch(memo_dir)))
    asking.start()
    asking.join(0.3)
    assert asking.is_alive(), "it did not wait for the driver"
    driver.release.set()
    asking.join(10)
    assert answer == [("sm_90", "")]


def test_after_a_build_the_answer_is_remembered_and_a_failed_one_is_not_raised(fresh_process):
    memo_dir = fresh_process.memo_dir
    arch_module.remember_device_arch(memo_dir)  # not asked yet: nothing, and no question
    assert arch_module._device_arch is None
    answered = Driver((9, 0, True))
    fresh_process.new_process(answered)
    answered.release.set()
    arch_module.start_device_query()
    _wait_for(lambda: arch_module._device_arch.done(), "the answer")
    arch_module.remember_device_arch(memo_dir)
    assert (memo_dir / "arch-state-1").read_text() == "sm_90\n"

    broken = Driver(ValueError("driver answered nonsense"))
    fresh_process.new_process(broken)
    broken.release.set()
    arch_module.start_device_query()
    _wait_for(lambda: arch_module._device_arch.done(), "the failed answer")
    arch_module.remember_device_arch(memo_dir / "other")  # does not raise
    assert not (memo_dir / "other").exists()


def test_an_answer_for_a_current_context_is_not_remembered(fresh_process):
    memo_dir = fresh_process.memo_dir
    driver = Driver((8, 6, False))  # the device of a context made current meanwhile
    fresh_process.new_process(driver)
    driver.release.set()
    assert arch_module.current_gpu_arch(memo_dir) == ("sm_86", "")
    assert not (memo_dir / "arch-state-1").exists()


def test_the_machine_state_changes_with_the_visible_devices(monkeypatch):
    state = arch_memo.machine_state()
    if state is None:
        assert not os.path.isdir("/proc/driver/nvidia/gpus") or not os.listdir(
            "/proc/driver/nvidia/gpus"
        )
        pytest.skip("no NVIDIA driver here: nothing is remembered")
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "1")
    assert arch_memo.machine_state() not in (None, state)


def test_whether_a_context_is_current_is_asked_without_initializing_the_driver():
    from conftest import cuda_device_available

    current = arch_module._context_current()
    if cuda_device_available():  # pytest's process may have made one: either answer is known
        assert current in (True, False)
    else:
        assert current in (None, False)


# A child process on a machine standing for one with a GPU (state "cpu-test", no context
# current) whose driver answers sm_90 at once, or never ("never"): the import must then take
# the arch from the memo, and the kernel it links is for that arch.
CHILD = """
import threading
import numbast_import.arch as arch, numbast_import.arch_memo as memo
memo.machine_state = lambda: "cpu-test"
arch._context_current = lambda: False
if "@DRIVER@" == "never":
    arch._device_capability = lambda: threading.Event().wait() and (0, 0, True)
else:
    arch._device_capability = lambda: (9, 0, True)
import cuda_headers.vec as vec
from numba.cuda import types
from support import link_kernel_to_cubin

Vec2, scaled_dot = vec.Vec2, vec.scaled_dot


def kernel(out):
    a = Vec2(1.0, 2.0)
    out[0] = scaled_dot(a, a)


cubin = link_kernel_to_cubin(kernel, (types.float32[:],), arch="sm_90")
print("linked", len(cubin) > 0, "asked", arch._device_arch.done())
"""


def test_an_import_takes_the_remembered_arch_and_links(tmp_path):
    from import_support import make_project, run_python

    project, cache = make_project(tmp_path), tmp_path / "cache"  # made by the first import
    pyproject = project / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace('arch = "sm_90"\n', ""))  # no pin
    first = run_python(CHILD.replace("@DRIVER@", "answers"), project, cache)
    assert first.returncode == 0, first.stderr
    assert (cache / "keys" / "arch-cpu-test").read_text() == "sm_90\n"
    second = run_python(CHILD.replace("@DRIVER@", "never"), project, cache)
    assert second.returncode == 0, second.stderr
    assert "linked True asked False" in second.stdout  # the driver never answered

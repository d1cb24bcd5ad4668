"""nvcc-style options, translated once for NVRTC (numbast_import.rtc.options): targets picked by
-arch / -code / -gencode (several make a fatbin), NVRTC's own options passed through, host-only
nvcc options dropped with one warning each, anything else refused by name."""

from __future__ import annotations

import shutil
import subprocess
import warnings

import numpy as np
import pytest

from numbast_import import compiler
from numbast_import.rtc import options as rtc_options
from numbast_import.rtc.nvrtc import nvfatbin_available
from numbast_import.rtc.options import (
    DroppedOptionWarning,
    Target,
    UnsupportedOptionError,
    translate_options,
)

SCALE = 'extern "C" __global__ void scale(float *x, float by) { x[threadIdx.x] *= by; }\n'
needs_nvfatbin = pytest.mark.skipif(
    not nvfatbin_available(), reason="no nvfatbin library: pip install nvidia-nvfatbin"
)


@pytest.fixture(autouse=True)
def fresh_warnings(monkeypatch):
    """Each test sees the once-per-process warnings afresh."""
    monkeypatch.setattr(rtc_options, "_warned", set())


@pytest.mark.parametrize(
    "spelled",
    [["-arch=sm_80"], ["-arch", "sm_80"], ["--gpu-architecture=sm_80"],
     ["--gpu-architecture", "sm_80"]],
)  # fmt: skip
def test_every_spelling_of_arch_picks_the_target(spelled):
    translated = translate_options(spelled)
    assert translated.targets == [Target("cubin", "sm_80")] and translated.arch == "sm_80"
    assert translated.nvrtc == []


def test_gencode_and_code_name_several_targets():
    translated = translate_options(
        ["-gencode", "arch=compute_80,code=sm_80",
         "-gencode=arch=compute_90,code=[sm_90,compute_90]"]
    )  # fmt: skip
    assert translated.targets == [
        Target("cubin", "sm_80"), Target("cubin", "sm_90"), Target("ptx", "compute_90"),
    ]  # fmt: skip
    assert translated.arch is None  # several GPUs: no single arch
    with_code = translate_options(["-arch=compute_80", "-code=sm_80,sm_86"])
    assert with_code.targets == [Target("cubin", "sm_80"), Target("cubin", "sm_86")]
    assert translate_options(["-arch=compute_90"]).targets == [Target("ptx", "compute_90")]
    assert translate_options(["-arch=native"]).targets == []  # the current GPU, as no -arch


@pytest.mark.parametrize(
    ("given", "named"),
    [
        (["-arch=sm_80", "-arch=sm_90"], "-arch is given 2 times"),
        (["-arch=all"], "'-arch=all'"),
        (["-arch=gfx90a"], "'-arch=gfx90a'"),
        (["-gencode", "sm_90"], "'-gencode sm_90'"),
        (["--no-such-option"], "'--no-such-option'"),
        (["-Q"], "'-Q'"),
    ],
)
def test_what_cannot_be_translated_fails_naming_the_option(given, named):
    with pytest.raises(UnsupportedOptionError, match=named):
        translate_options(given, where="SourceModule options")


def test_nvrtcs_own_options_pass_through_in_nvrtcs_spelling():
    translated = translate_options(
        ["-use_fast_math", "-lineinfo", "-G", "-maxrregcount", "32", "-Xptxas", "-v",
         "-std=c++17", "-default-device", "-rdc", "true", "-ftz=true", "-DN=4", "-D", "M",
         "-UX", "-include", "cuda_fp16.h"]
    )  # fmt: skip
    assert translated.nvrtc == [
        "-use_fast_math", "-lineinfo", "-G", "--maxrregcount=32", "--ptxas-options=-v",
        "-std=c++17", "-default-device", "-rdc=true", "-ftz=true", "-DN=4", "-DM", "-UX",
        "--pre-include=cuda_fp16.h",
    ]  # fmt: skip
    assert translated.dropped == []


def test_include_dirs_link_requests_and_output_kinds_are_kept_apart():
    translated = translate_options(
        ["-I", "inc", "-Iinc2", "--include-path=inc3", "-lcudadevrt", "-L/opt/lib", "-cubin",
         "-lineinfo"]
    )  # fmt: skip
    assert translated.include_dirs == ["inc", "inc2", "inc3"]
    assert translated.link == ["-lcudadevrt", "-L/opt/lib"]
    assert translated.output == "cubin"
    assert translated.nvrtc == ["-lineinfo"]  # -lineinfo is not a library


def test_host_only_nvcc_options_are_dropped_with_one_warning_each():
    given = ["-O3", "-Xcompiler", "-fPIC", "-ccbin", "gcc", "--expt-relaxed-constexpr", "-m64"]
    with pytest.warns(DroppedOptionWarning) as caught:
        translated = translate_options(given, where="SourceModule options")
    assert translated.nvrtc == []
    assert translated.dropped == ["-O3", "-Xcompiler -fPIC", "-ccbin gcc",
                                  "--expt-relaxed-constexpr", "-m64"]  # fmt: skip
    messages = [str(w.message) for w in caught]
    assert len(messages) == 5 and all(m.startswith("SourceModule options: '") for m in messages)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the second time: no warning
        assert translate_options(given).dropped == translated.dropped


def test_an_arch_in_the_options_is_enough_without_a_gpu(monkeypatch):
    monkeypatch.delenv("NUMBAST_IMPORT_ARCH", raising=False)
    monkeypatch.setattr(
        "numbast_import.rtc.build.current_compute_capability",
        lambda: pytest.fail("the options name the arch: no device is asked"),
    )
    for spelled in (["-arch=sm_90"], ["-arch", "sm_90"], ["--gpu-architecture=sm_90"]):
        cubin = compiler.compile_plain(SCALE, options=spelled, cache_dir=False)
        assert cubin[:4] == b"\x7fELF"
    with pytest.warns(DroppedOptionWarning):
        cubin = compiler.compile(
            SCALE, options=["-arch=sm_90", "--expt-relaxed-constexpr", "-O3"], cache_dir=False
        )
    assert cubin[:4] == b"\x7fELF"


def test_an_unknown_option_fails_before_nvrtc_compiles():
    with pytest.raises(UnsupportedOptionError, match="'--frobnicate'"):
        compiler.compile(SCALE, options=["--frobnicate"], arch="sm_90", cache_dir=False)


@needs_nvfatbin
def test_several_targets_make_a_fatbin_holding_each(tmp_path):
    options = ["-gencode", "arch=compute_80,code=sm_80", "-gencode", "arch=compute_90,code=sm_90",
               "-gencode", "arch=compute_90,code=compute_90"]  # fmt: skip
    fatbin = compiler.compile(SCALE, options=options, cache_dir=False)
    assert fatbin[:4] == b"\x50\xed\x55\xba"  # fatbin magic
    from cuda.pathfinder import find_nvidia_binary_utility

    cuobjdump = find_nvidia_binary_utility("cuobjdump") or shutil.which("cuobjdump")
    if cuobjdump is None:
        pytest.skip("cuobjdump is not installed (pip install nvidia-cuda-cuobjdump)")
    path = tmp_path / "k.fatbin"
    path.write_bytes(fatbin)
    elves = subprocess.run([cuobjdump, "-lelf", str(path)], capture_output=True, text=True)
    ptx = subprocess.run([cuobjdump, "-lptx", str(path)], capture_output=True, text=True)
    assert "sm_80" in elves.stdout and "sm_90" in elves.stdout, elves
    assert "sm_90" in ptx.stdout, ptx


@needs_nvfatbin
@pytest.mark.gpu
def test_a_fatbin_for_several_gpus_runs_on_this_one():
    from numba import cuda

    from numbast_import import driver

    major, minor = cuda.get_current_device().compute_capability
    options = ["-gencode", "arch=compute_75,code=sm_75",
               "-gencode", f"arch=compute_{major}{minor},code=sm_{major}{minor}"]  # fmt: skip
    module = compiler.SourceModule(SCALE, options=options, cache_dir=False)
    values = np.arange(32, dtype=np.float32)
    x = driver.to_device(values)
    module.get_function("scale")(x, np.float32(3.0), block=(32, 1, 1), grid=(1, 1))
    np.testing.assert_allclose(driver.from_device_like(x, values), values * 3.0)

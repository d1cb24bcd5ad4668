"""Headers whose functions carry no execution space (plain C++ that nvcc compiles for the device
through -default-device or __host__ __device__ macros set elsewhere): NVRTC rejects them unless
given -default-device, which the import detects (or a mapping says: default-device = true), and
the parser then reads those functions as device functions too. A mapping's nvrtc-options are
checked when read and translated when built; dynamic bindings take the same options."""

from __future__ import annotations

import importlib
import logging
from pathlib import Path

import numpy as np
import pytest
from support import link_kernel_to_cubin

from ast_canopy import ExecutionSpace, parse_declarations_from_source
from numbast_import.errors import ImportConfigError, ShimCompileImportError
from numbast_import.rtc.options import DroppedOptionWarning

DATA = Path(__file__).parent / "data" / "nvrtc"
HEADER = DATA / "host_only.cuh"


@pytest.fixture
def isolated_imports(tmp_path, monkeypatch):
    """A fresh cache, sm_90, and mappings registered here forgotten afterwards."""
    import numbast_import

    monkeypatch.setenv("NUMBAST_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("NUMBAST_IMPORT_ARCH", "sm_90")
    monkeypatch.setenv("NUMBAST_IMPORT_QUIET", "1")
    names: list[str] = []

    def register(name: str, header: Path, **options):
        numbast_import.register(name, header, **options)
        names.append(name)
        return lambda: importlib.import_module(f"cuda_headers.{name}")

    yield register
    for name in names:
        numbast_import.unregister(name)


@pytest.fixture(scope="module")
def detected(tmp_path_factory):
    """cuda_headers.nvrtc_default_device: host_only.cuh with no default-device key."""
    import numbast_import

    patch = pytest.MonkeyPatch()
    patch.setenv("NUMBAST_CACHE_DIR", str(tmp_path_factory.mktemp("default_device_cache")))
    patch.setenv("NUMBAST_IMPORT_ARCH", "sm_90")
    patch.setenv("NUMBAST_IMPORT_QUIET", "1")
    numbast_import.register("nvrtc_default_device", HEADER)
    try:
        yield importlib.import_module("cuda_headers.nvrtc_default_device")
    finally:
        numbast_import.unregister("nvrtc_default_device")
        patch.undo()


def kernel_of(m):
    def kernel(out, values):
        total = m.add(m.Meters(values[0]), m.Meters(values[1]))
        out[0] = m.as_float(total)
        out[1] = m.checked_index(3, 8) + m.checked_index(9, 8) * 10

    return kernel


def test_the_parser_reads_unannotated_functions_as_device_functions_when_asked():
    header = str(HEADER)
    plain = {f.name: f.exec_space for f in parse_declarations_from_source(header, [header], 90)
             .functions}  # fmt: skip
    device = {
        f.name: f.exec_space
        for f in parse_declarations_from_source(header, [header], 90, default_device=True).functions
    }
    assert plain["add"] == ExecutionSpace.UNDEFINED and not plain["add"].is_device_callable
    assert device["add"] == ExecutionSpace.DEVICE and device["add"].is_device_callable


def test_a_header_needing_default_device_is_detected_and_bound(detected):
    from numba import types

    assert {"add", "as_float", "checked_index", "Meters"} <= set(dir(detected))
    library = detected._numbast_shim_library
    assert "-default-device" in library.nvrtc_options  # templates and live units use it too
    assert link_kernel_to_cubin(kernel_of(detected), (types.float32[::1], types.float32[::1]))


def test_the_headers_kernels_compile_with_its_nvrtc_options(detected):
    cubin = detected.scale_all._kernels._compile()
    assert cubin[:4] == b"\x7fELF" and b"scale_all" in cubin


@pytest.mark.gpu
def test_default_device_functions_compute_on_the_gpu(detected):
    from numba import cuda

    out = cuda.to_device(np.zeros(2, dtype=np.float32))
    cuda.jit(kernel_of(detected))[1, 1](out, cuda.to_device(np.array([1.5, 2.25], np.float32)))
    np.testing.assert_allclose(out.copy_to_host(), [3.75, 3.0 - 10.0])


def test_default_device_true_skips_the_first_attempt(isolated_imports, caplog):
    load = isolated_imports("nvrtc_dd_true", HEADER, default_device=True)
    with caplog.at_level(logging.INFO, logger="numbast_import.build"):
        module = load()
    assert "as_float" in dir(module)
    assert "skips this first attempt" not in caplog.text


def test_default_device_false_fails_saying_what_nvrtc_wants(isolated_imports):
    load = isolated_imports("nvrtc_dd_false", HEADER, default_device=False)
    with pytest.raises(ShimCompileImportError) as caught:
        load()
    message = str(caught.value)
    assert "Consider using -default-device" in message  # NVRTC's own log, quoted
    assert "remove default-device = false" in message and "nvrtc_dd_false" in message


@pytest.mark.parametrize(
    ("options", "named"),
    [
        (["-DFAST"], "give it with defines instead"),
        (["-I", "include"], "give it with include-dirs instead"),
        (["-arch=sm_80"], "the import system chooses"),
        ([7], "must be a non-empty string"),
    ],
)
def test_nvrtc_options_that_clang_must_see_or_the_import_chooses_are_refused(
    isolated_imports, options, named
):
    with pytest.raises(ImportConfigError, match=named):
        isolated_imports("nvrtc_bad_options", HEADER, nvrtc_options=options)


def test_an_nvrtc_option_nvrtc_lacks_fails_the_build_naming_it(isolated_imports):
    load = isolated_imports("nvrtc_unknown_option", HEADER, nvrtc_options=["--frobnicate"])
    with pytest.raises(ImportConfigError, match="nvrtc-options: '--frobnicate'"):
        load()


def test_nvrtc_options_reach_the_shims_translated(isolated_imports):
    load = isolated_imports(
        "nvrtc_fast_math", HEADER, nvrtc_options=["-use_fast_math", "-O3"], default_device=True
    )
    with pytest.warns(DroppedOptionWarning, match="-O3"):
        module = load()
    assert module._numbast_shim_library.nvrtc_options == ("-default-device", "-use_fast_math")


def test_dynamic_bindings_compile_default_device_shims_themselves():
    """numba-cuda cannot pass -default-device when it compiles a shim writer's source: a writer
    given NVRTC options compiles its shims to LTO-IR itself."""
    from numba import types

    from numbast import MemoryShimWriter, bind_cxx_function
    from numbast.runtime.shim_library import _LiveShimUnit

    header = str(HEADER)
    decls = parse_declarations_from_source(header, [header], "sm_90", default_device=True)
    writer = MemoryShimWriter(
        f'#include "{header}"', nvrtc_options=["-default-device"], arch="sm_90"
    )
    functions = {f.name: f for f in decls.functions}
    checked_index = bind_cxx_function(writer, functions["checked_index"])
    assert isinstance(writer.links()[0], _LiveShimUnit)

    def kernel(out, values):
        out[0] = checked_index(3, 8)

    assert link_kernel_to_cubin(kernel, (types.float32[::1], types.float32[::1]))

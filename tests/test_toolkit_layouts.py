"""Toolkit layouts unlike this machine's. The GPU machine has a CUDA 13 runtime wheel whose
``nvidia/cu13/include`` holds neither ``crt/`` nor CCCL, and a system toolkit that holds both
(``/usr/local/cuda-13.0/targets/x86_64-linux/include``). Made here from this machine's headers:
the parser borrows crt/ from the system toolkit, also when it reads the headers clang's CUDA
wrapper hides (sm_32_intrinsics.h), and NVRTC finds CCCL's headers as ``<cccl/cuda/std/...>``
(CUDA 13 spelling, CUTLASS's CUDA_STD_HEADER) where CCCL is the system toolkit's."""

from __future__ import annotations

import importlib
import os
import shutil
from pathlib import Path

import numpy as np
import pytest
from support import link_kernel_to_cubin

from ast_canopy import hidden_headers, toolchain, toolkit, toolkit_lookup
from numbast.core import nvrtc

TESTS = Path(__file__).parent


def _clear_toolkit_memos() -> None:
    for memo in (
        toolkit.header_dir,
        toolkit.cudart_include_dir,
        toolkit.cccl_include_dir,
        toolkit.curand_include_dir,
        toolkit.cuda_toolkit_root,
        toolkit.cuda_version,
        toolchain._clang_toolkit,
        nvrtc.toolkit_include_dirs,
    ):
        memo.cache_clear()
    toolkit_lookup.forget()


def _split_layout(root: Path) -> tuple[Path, Path, Path]:
    """(wheel include, system toolkit root, its CCCL) made from this machine's headers. The
    wheel's files are copies (a parse reads a header from its real directory, which must lack
    crt/); its folders, crt/ and CCCL are links."""
    cudart = Path(toolkit.cudart_include_dir())
    cccl = toolkit.cccl_include_dir()
    crt = cudart / "crt" if (cudart / "crt").is_dir() else toolchain._fallback_crt_dir()
    if cccl is None or crt is None:
        pytest.skip("needs the toolkit's CCCL and crt/ headers to build the layout from")
    wheel = root / "site-packages" / "nvidia" / "cu13" / "include"
    wheel.mkdir(parents=True)
    for entry in Path(cudart).iterdir():
        if entry.name in ("crt", "cccl"):
            continue
        if entry.is_dir():
            (wheel / entry.name).symlink_to(entry, target_is_directory=True)
        else:
            shutil.copyfile(entry, wheel / entry.name)
    system = root / "cuda-13.0"
    (system / "bin").mkdir(parents=True)
    target = system / "targets" / "x86_64-linux" / "include"
    target.mkdir(parents=True)
    (target / "crt").symlink_to(crt, target_is_directory=True)
    (target / "cccl").symlink_to(cccl, target_is_directory=True)
    (system / "include").symlink_to(Path("targets") / "x86_64-linux" / "include")
    return wheel, system, target / "cccl"


@pytest.fixture(scope="module")
def split_toolkit(tmp_path_factory):
    """The layout, found as cuda.pathfinder would find it there; the system toolkit lends crt/
    as /usr/local/cuda does there. Yields (wheel include, system root, its CCCL)."""
    import cuda.pathfinder
    from numba.cuda import config

    root = tmp_path_factory.mktemp("layout")
    wheel, system, cccl = _split_layout(root)
    found = {"cudart": str(wheel), "cccl": str(cccl)}
    patch = pytest.MonkeyPatch()
    patch.setattr(cuda.pathfinder, "find_nvidia_header_directory", found.get)
    # pathfinder's answers are simulated: none remembered on disk, none read from there.
    patch.setattr(toolkit_lookup, "_memo_path", lambda: None)
    patch.setattr(toolchain, "_fallback_roots", lambda: [str(system)])
    for variable in ("CUDA_HOME", "CUDA_PATH"):
        patch.delenv(variable, raising=False)
    patch.setenv("NUMBAST_CACHE_DIR", str(root / "cache"))
    patch.setenv("AST_CANOPY_CACHE_DIR", str(root / "cache" / "parser"))
    patch.setenv("AST_CANOPY_PRELUDE", "0")  # a prelude of its own would cost a second
    patch.setenv("NUMBAST_IMPORT_ARCH", "sm_90")
    patch.setenv("NUMBAST_IMPORT_QUIET", "1")
    search_paths = getattr(config, "CUDA_NVRTC_EXTRA_SEARCH_PATHS", "")
    _clear_toolkit_memos()
    try:
        yield wheel, system, cccl
    finally:
        patch.undo()
        config.CUDA_NVRTC_EXTRA_SEARCH_PATHS = search_paths
        _clear_toolkit_memos()


def _import(name: str, header: Path, **options):
    import numbast_import

    numbast_import.register(name, header, **options)
    try:
        return importlib.import_module(f"cuda_headers.{name}")
    finally:
        numbast_import.unregister(name)


# -- crt/ borrowed, and the headers clang's wrapper hides ----------------------------------


def test_the_layout_is_found_as_on_the_gpu_machine(split_toolkit):
    wheel, system, _cccl = split_toolkit
    assert toolkit.cudart_include_dir() == str(wheel) and not (wheel / "crt").exists()
    stand_in = Path(toolchain.clang_toolkit().cuda_path) / "include"
    assert (stand_in / "crt").resolve() == (system / "include" / "crt").resolve()


def test_hidden_headers_are_found_in_a_toolkit_directory_of_links(tmp_path):
    """A toolkit directory may hold links to the headers (the parser's own stand-in layout is
    one): each file is matched by its real path, as ``files_to_retain`` is."""
    real = Path(os.path.realpath(toolkit.cudart_include_dir()))
    linked = tmp_path / "include"
    linked.mkdir()
    for name in ("sm_32_intrinsics.h", "sm_32_intrinsics.hpp"):
        (linked / name).symlink_to(real / name)
    retained = frozenset({str(real / "sm_32_intrinsics.h")})
    assert hidden_headers.hidden_headers(retained, str(linked)) == [
        (str(real / "sm_32_intrinsics.h"), [str(real / "sm_32_intrinsics.h")])
    ]


@pytest.fixture(scope="module")
def intrinsics_module(split_toolkit):
    wheel, _system, _cccl = split_toolkit
    header = TESTS / "data" / "binding" / "uses_intrinsics.cuh"
    return _import(
        "layout_intrinsics", header, retain=[str(header), str(wheel / "sm_32_intrinsics.h")]
    )


def intrinsics_kernel(m):
    from numbast import element_pointer

    ldg, twice_loaded = m.__ldg, m.twice_loaded

    def kernel(out):
        out[0] = ldg(element_pointer(out, 1))  # __ldg(const float *)
        out[2] = twice_loaded(element_pointer(out, 1))  # the header's own use of __ldg

    return kernel


def test_hidden_intrinsics_import_and_link_with_the_borrowed_crt(intrinsics_module):
    """sm_32_intrinsics.h is parsed a second time without clang's wrapper, from the wheel's
    directory, which has no crt/ (it failed: "'crt/host_defines.h' file not found")."""
    from numba import types

    assert {"__ldg", "__ldcg", "twice_loaded"} <= set(dir(intrinsics_module))
    cubin = link_kernel_to_cubin(intrinsics_kernel(intrinsics_module), (types.float32[::1],))
    assert cubin[:4] == b"\x7fELF"


@pytest.mark.gpu
def test_hidden_intrinsics_numbers_with_the_borrowed_crt(intrinsics_module):
    from numba import cuda

    out = cuda.to_device(np.array([0, 1.25, 0], dtype=np.float32))
    cuda.jit(intrinsics_kernel(intrinsics_module))[1, 1](out)
    np.testing.assert_array_equal(out.copy_to_host(), np.array([1.25, 1.25, 2.5], np.float32))


# -- CCCL as cccl/, where CCCL is the system toolkit's -------------------------------------


def test_cccl_holder_is_the_directory_that_holds_cccl():
    assert nvrtc.cccl_holder_dir("/usr/local/cuda/include/cccl/") == "/usr/local/cuda/include"
    assert nvrtc.cccl_holder_dir("/site-packages/nvidia/cuda_cccl/include") is None
    assert nvrtc.cccl_holder_dir(None) is None


def test_nvrtc_searches_the_directory_holding_cccl_after_the_toolkit(split_toolkit):
    wheel, _system, cccl = split_toolkit
    dirs = nvrtc.include_dirs(["/my/include"])
    assert dirs == ["/my/include", str(wheel), str(cccl), str(cccl.parent), nvrtc.stand_in_dir()]
    assert str(cccl.parent) in nvrtc.numba_cuda_search_dirs()


@pytest.fixture(scope="module")
def cccl_module(split_toolkit):
    if nvrtc.nvrtc_version() < (13, 0):
        pytest.skip("NVRTC before 13 reads <cuda/std/...>: nothing of this layout to test")
    return _import("layout_cccl", TESTS / "data" / "layouts" / "cccl_spelled.cuh")


def cccl_kernel(m):
    rotate_left = m.rotate_left

    def kernel(out, x):
        for i in range(x.size):
            out[i] = rotate_left(x[i], 8)

    return kernel


def test_headers_naming_cccl_import_and_link(cccl_module):
    from numba import types

    signature = (types.uint32[::1], types.uint32[::1])
    assert link_kernel_to_cubin(cccl_kernel(cccl_module), signature)[:4] == b"\x7fELF"


@pytest.mark.gpu
def test_headers_naming_cccl_numbers(cccl_module):
    from numba import cuda

    x = np.array([0x12345678, 0x80000001, 7], dtype=np.uint32)
    out = cuda.to_device(np.zeros_like(x))
    cuda.jit(cccl_kernel(cccl_module))[1, 1](out, cuda.to_device(x))
    expected = [(int(v) << 8 | int(v) >> 24) & 0xFFFFFFFF for v in x]
    np.testing.assert_array_equal(out.copy_to_host(), np.array(expected, dtype=np.uint32))

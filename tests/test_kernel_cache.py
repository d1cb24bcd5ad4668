"""The kernel cache's rules, in one process and without a GPU (tests/kernel_cache_support.py
stands in for the device): a cached kernel is used only when what it linked is unchanged; link
files and link= code are checked by content; what cannot be checked is compiled as numba-cuda
compiles it, with one warning; unknown numba-cuda versions are left alone.

A new dispatcher over the same Python function stands for a new process here (numba-cuda keys
its cache files by the function's source file and bytecode); tests that need a process of their
own run one.
"""

from __future__ import annotations

import ast
import os
import pickle
import subprocess
import sys
import textwrap
import warnings
from pathlib import Path

import pytest
from kernel_cache_support import (
    CC,
    SCENARIOS,
    device_patches,
    edit,
    linked_scenario,
    load_or_compile,
    toolchain_forbidden,
)
from numba import cuda
from numba.cuda import codegen, dispatcher, serialize, types
from numba.cuda.cudadrv.linkable_code import LTOIR, CUSource
from support import compile_cuda_source_to_ltoir

from numbast import MemoryShimWriter
from numbast.runtime import kernel_cache, link_records
from numbast.runtime.shim_library import ShimLibrary

TESTS = Path(__file__).resolve().parent
ARGS = (types.float64[:],)
NRT = codegen.NRT_LIBRARY
EXT_SOURCE = (SCENARIOS / "ext.cu").read_text()  # includes ext_scale.h: x * EXT_SCALE
OFFSET_SOURCE = (
    'extern "C" __device__ int ext_offset(double *ret, double x) { *ret = x + 1.0; return 0; }\n'
)

ext_scale = cuda.declare_device("ext_scale", "float64(float64)")
# Code that numba-cuda adds to a kernel while lowering a call, as other extensions do: nothing in
# another process says which object that was.
ext_offset = cuda.declare_device("ext_offset", "float64(float64)", link=[CUSource(OFFSET_SOURCE)])


def scale_first(arr):
    arr[0] = ext_scale(arr[0])


def offset_first(arr):
    arr[0] = ext_offset(arr[0])


@pytest.fixture
def workdir(tmp_path, monkeypatch):
    """numba-cuda's cache in ``tmp_path`` (also the working directory), an sm_90 stand-in
    device, and the kernel cache installed."""
    from numba.cuda.core import config

    for target, attribute, value in device_patches():
        monkeypatch.setattr(target, attribute, value)
    monkeypatch.setattr(config, "CACHE_DIR", str(tmp_path / "numba-cache"))
    monkeypatch.chdir(tmp_path)
    assert kernel_cache.install()
    return tmp_path


def cached(function, link=()):
    """A fresh cache=True dispatcher of ``function``, as a new process would make it."""
    return cuda.jit(cache=True, link=list(link))(function)


def cubin_of(kernel) -> bytes:
    return bytes(kernel.library.get_cubin().code)


def ltoir_of(source: str) -> bytes:
    return compile_cuda_source_to_ltoir(source, "ext.cu", "sm_90")


def test_a_cu_link_file_is_reused_until_a_header_it_includes_changes(workdir):
    linked_scenario(workdir)
    link = [str(workdir / "ext.cu")]

    first, loaded = load_or_compile(cached(scale_first, link), ARGS)
    assert not loaded
    again, loaded = load_or_compile(cached(scale_first, link), ARGS)
    assert loaded and cubin_of(again) == cubin_of(first)
    assert again.library._linking_files == {str(workdir / "ext.cu")}

    edit(workdir / "ext_scale.h", "2.0", "3.0")
    third, loaded = load_or_compile(cached(scale_first, link), ARGS)
    assert not loaded and cubin_of(third) != cubin_of(first)
    assert load_or_compile(cached(scale_first, link), ARGS)[1]  # the entry was overwritten


def test_in_memory_link_code_is_matched_by_content_and_link_must_hold_nothing_else(workdir):
    two = ltoir_of(EXT_SOURCE.replace('#include "ext_scale.h"', "#define EXT_SCALE 2.0"))
    three = ltoir_of(EXT_SOURCE.replace('#include "ext_scale.h"', "#define EXT_SCALE 3.0"))
    assert not load_or_compile(cached(scale_first, [LTOIR(two, name="ext")]), ARGS)[1]

    same = LTOIR(bytes(two), name="ext")  # equal content, another object (another process)
    kernel, loaded = load_or_compile(cached(scale_first, [same]), ARGS)
    assert loaded
    assert kernel.library._linking_files == {same}  # the live object, for linking again

    assert not load_or_compile(cached(scale_first, [LTOIR(three, name="ext")]), ARGS)[1]
    assert load_or_compile(cached(scale_first, [LTOIR(three, name="ext")]), ARGS)[1]

    unused = LTOIR(ltoir_of(OFFSET_SOURCE), name="unused")
    more = [LTOIR(three, name="ext"), unused]
    assert not load_or_compile(cached(scale_first, more), ARGS)[1]


def test_code_an_extension_links_while_lowering_is_compiled_every_time_with_one_warning(workdir):
    with pytest.warns(kernel_cache.KernelCacheWarning, match="extension numbast cannot follow"):
        kernel, loaded = load_or_compile(cached(offset_first), ARGS)
    assert not loaded and kernel.library.get_cubin()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert not load_or_compile(cached(offset_first), ARGS)[1]
    assert not [w for w in caught if issubclass(w.category, kernel_cache.KernelCacheWarning)]


def test_a_computed_include_is_not_cached(workdir):
    linked_scenario(workdir)
    source = EXT_SOURCE.replace('#include "ext_scale.h"', '#define H "ext_scale.h"\n#include H')
    (workdir / "computed.cu").write_text(source)

    def computed_scale(arr):
        arr[0] = ext_scale(arr[0])

    link = [str(workdir / "computed.cu")]
    with pytest.warns(kernel_cache.KernelCacheWarning, match="computed #include"):
        assert not load_or_compile(cached(computed_scale, link), ARGS)[1]
    assert not load_or_compile(cached(computed_scale, link), ARGS)[1]


def test_another_device_or_numba_cuda_version_misses(workdir, monkeypatch):
    linked_scenario(workdir)
    link = [str(workdir / "ext.cu")]
    assert not load_or_compile(cached(scale_first, link), ARGS)[1]
    assert load_or_compile(cached(scale_first, link), ARGS)[1]

    context = cached(scale_first, link).targetctx
    newer = kernel_cache._linked_kernel_cache(dispatcher.CUDACache, NRT, "0.30.99")
    with toolchain_forbidden():
        assert newer(scale_first, link).load_overload(ARGS, context) is None
        another_device = ((13, 0), (10, 0))
        monkeypatch.setattr(codegen.JITCUDACodegen, "magic_tuple", lambda self: another_device)
        assert cached(scale_first, link)._cache.load_overload(ARGS, context) is None


def test_a_kernel_with_bindings_round_trips_through_numba_serialization(tmp_path, monkeypatch):
    for target, attribute, value in device_patches():
        monkeypatch.setattr(target, attribute, value)
    header = tmp_path / "twice.cuh"
    header.write_text("#pragma once\n__device__ inline double twice(double x) { return 2 * x; }\n")
    kernel, library = _bound_kernel(header)
    with pytest.raises(RuntimeError, match="Cannot pickle CUDACodeLibrary with linking files"):
        serialize.dumps(kernel.library)  # numba-cuda alone

    links = link_records.describe_links(kernel.library, (), NRT)
    (record,), _setup, _teardown = links
    assert record[:2] == ("bindings", link_records.library_identity(library, None))
    pickled = serialize.dumps(link_records.without_link_files(kernel.library, NRT))
    assert kernel.library._linking_files == {library.link_object()}  # the original is untouched

    restored = serialize.loads(pickled)
    assert not restored._linking_files
    assert link_records.restore_links(restored, links, (), NRT) is None
    assert restored._linking_files == {library.link_object()}
    with toolchain_forbidden():
        assert bytes(restored.get_cubin(cc=CC).code) == cubin_of(kernel)

    header.write_text(header.read_text().replace("2 * x", "3 * x"))
    problem = link_records.restore_links(serialize.loads(pickled), links, (), NRT)
    assert problem is not None and "changed" in problem
    assert not isinstance(problem, link_records.Lasting)

    # Another process, where the bindings are not imported; then one whose writer has not
    # declared the shim (one made while compiling, as a template instance's): the record can
    # never be checked there.
    monkeypatch.setitem(link_records._LIBRARIES, record[1], [])
    problem = link_records.restore_links(serialize.loads(pickled), links, (), NRT)
    assert problem == f"the bindings {record[1]} are not imported"
    writer = MemoryShimWriter(f'#include "{header}"')  # noqa: F841 (tracked while alive)
    problem = link_records.restore_links(serialize.loads(pickled), links, (), NRT)
    assert isinstance(problem, link_records.Lasting), problem


def _bound_kernel(header: Path):
    from kernel_cache_support import compile_kernel

    from ast_canopy import parse_declarations_from_source
    from numbast import MemoryShimWriter, bind_cxx_function

    decls = parse_declarations_from_source(str(header), [str(header)], "sm_90")
    writer = MemoryShimWriter(f'#include "{header}"')
    twice = bind_cxx_function(writer, decls.functions[0])

    def doubled(arr):
        arr[0] = twice(arr[0])

    return compile_kernel(cuda.jit(doubled), ARGS), writer


def test_a_library_s_token_covers_its_link_object_and_every_shim_it_does_not_hold():
    library = ShimLibrary("#define NOTHING", [("held", "int held();")], name="token_test")
    library.declare_shim("int declared();", "declared")
    live = library.cache_token(["held", "declared"])
    assert live is not None and library.cache_token(["unknown"]) is None

    library.use_link_object(LTOIR(b"compiled shims", name="token_test.ltoir"))
    compiled = library.cache_token(["held"])
    assert compiled not in (None, live)
    assert library.cache_token(["held", "declared"]) not in (None, compiled)
    library.use_link_object(LTOIR(b"compiled shims, changed", name="token_test.ltoir"))
    assert library.cache_token(["held"]) != compiled


def test_standalone_modules_use_the_installed_kernel_cache_which_imports_only_numba():
    """A standalone module's runtime copy carries no kernel cache (its size); its shim library
    uses the installed numbast's (tests/test_kernel_cache_processes.py runs a cached kernel of a
    standalone module), which, like the whole runtime, imports only numba-cuda and the standard
    library."""
    from numbast.runtime import link_digests
    from numbast.static.runtime_copy import runtime_sources

    carried = dict(runtime_sources())
    for name in ("kernel_cache", "link_digests", "link_records"):
        assert f"runtime.{name}" not in carried
    assert "runtime.shim_library" in carried
    for module in (kernel_cache, link_digests, link_records):
        tree = ast.parse(Path(module.__file__).read_text())
        imported = {
            (node.module or "") if isinstance(node, ast.ImportFrom) else alias.name
            for node in ast.walk(tree)
            if isinstance(node, (ast.Import, ast.ImportFrom))
            for alias in node.names
            if not (isinstance(node, ast.ImportFrom) and node.level)
        }
        roots = {module.split(".")[0] for module in imported}
        assert roots <= set(sys.stdlib_module_names) | {"numba", "numba_cuda", "__future__"}


def _run_script(tmp_path: Path, environment: dict[str, str], source: str):
    """``source`` in a fresh process with Numba's cache under ``tmp_path``, the kernel cache's
    switch as ``environment`` sets it (``FAKE_VERSION`` stands for numba-cuda's version)."""
    script = tmp_path / "script.py"
    script.write_text(source)
    inherited = {k: v for k, v in os.environ.items() if k != kernel_cache.DISABLE_ENV}
    environment = {**inherited, "NUMBA_CACHE_DIR": str(tmp_path), **environment}
    done = subprocess.run(
        [sys.executable, str(script)], env=environment, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    return done


@pytest.mark.parametrize(
    ("environment", "expected"),
    [
        ({"FAKE_VERSION": "0.99.0"}, "CUDACache 1 False"),
        ({"NUMBAST_KERNEL_CACHE": "0"}, "CUDACache 0 False"),
        ({}, "LinkedKernelCache 0 True"),
    ],
)
def test_numba_cuda_is_left_alone_on_an_unknown_version_or_when_turned_off(
    tmp_path, environment, expected
):
    done = _run_script(
        tmp_path,
        environment,
        textwrap.dedent(
            """
            import os, warnings
            import numba_cuda
            numba_cuda.__version__ = os.environ.get("FAKE_VERSION", numba_cuda.__version__)
            from numba import cuda
            from numbast.runtime import kernel_cache

            def kernel(x):
                x[0] = 1

            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                installed = kernel_cache.install()
                first, second = cuda.jit(cache=True)(kernel), cuda.jit(cache=True)(kernel)
            count = sum(issubclass(w.category, kernel_cache.KernelCacheWarning) for w in caught)
            print(type(second._cache).__name__, count, installed)
            """
        ),
    )
    assert done.stdout.split("\n")[-2] == expected


@pytest.mark.parametrize(
    ("environment", "expected"),
    [
        ({"FAKE_VERSION": "0.1.0"}, "CUDACache 1 False"),
        ({"NUMBAST_KERNEL_CACHE": "0"}, "CUDACache 0 False"),
        ({}, "LinkedKernelCache 0 True"),
    ],
)
def test_bindings_leave_the_kernel_cache_unimported_until_a_kernel_asks_for_cache_true(
    tmp_path, environment, expected
):
    """Making a ShimLibrary (what every bindings import does) does not import the kernel cache;
    the first cache=True kernel does, installs it, and it then knows the libraries made before
    (a cached kernel calling them is found in the next process). On an unknown numba-cuda or
    when turned off, numba-cuda's own cache, with the one warning, as without bindings."""
    done = _run_script(
        tmp_path,
        environment,
        textwrap.dedent(
            """
            import os, sys, warnings
            import numba_cuda
            numba_cuda.__version__ = os.environ.get("FAKE_VERSION", numba_cuda.__version__)
            from numba import cuda
            from numbast.runtime.shim_library import ShimLibrary

            made = [ShimLibrary('#include "a.h"', name="mod_a"), ShimLibrary('#include "b.h"')]
            print("imported early:", "numbast.runtime.kernel_cache" in sys.modules)

            def kernel(x):
                x[0] = 1

            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                first, second = cuda.jit(cache=True)(kernel), cuda.jit(cache=True)(kernel)
            from numbast.runtime import kernel_cache, link_records

            late = ShimLibrary('#include "c.h"', name="mod_c")
            known = {i for i, refs in link_records._LIBRARIES.items() if any(r() for r in refs)}
            print("tracked:", sorted(i.split(" ")[0] for i in known))
            count = sum(issubclass(w.category, kernel_cache.KernelCacheWarning) for w in caught)
            print(type(second._cache).__name__, count, kernel_cache.install())
            """
        ),
    )
    early, tracked, result = done.stdout.splitlines()[-3:]
    assert early == "imported early: False"
    assert tracked == "tracked: ['mod_a', 'mod_c', 'preamble']"
    assert result == expected


# -- damaged and unsafe cache files (issue 23, point 8) ---------------------------------------


def _cache_files(workdir: Path, suffix: str) -> list[Path]:
    return sorted((workdir / "numba-cache").rglob(f"*{suffix}"))


@pytest.mark.parametrize(
    ("suffix", "damage"),
    [(".nbi", lambda data: data[:7]), (".nbc", lambda data: b"garbage" * 10)],
    ids=["truncated index", "garbage data"],
)
def test_a_damaged_cache_file_is_a_miss_with_one_warning_and_is_healed(workdir, suffix, damage):
    linked_scenario(workdir)
    link = [str(workdir / "ext.cu")]
    load_or_compile(cached(scale_first, link), ARGS)
    (damaged,) = _cache_files(workdir, suffix)
    damaged.write_bytes(damage(damaged.read_bytes()))
    with pytest.warns(kernel_cache.KernelCacheWarning, match="damaged kernel cache file"):
        again, loaded = load_or_compile(cached(scale_first, link), ARGS)
    assert not loaded and again.library.get_cubin()  # compiled, and saved whole
    healed, loaded = load_or_compile(cached(scale_first, link), ARGS)
    assert loaded and cubin_of(healed) == cubin_of(again)


class _Planted:
    """A pickle that, when loaded, leaves a mark: what another user could plant."""

    def __init__(self, mark: Path) -> None:
        self.mark = mark

    def __reduce__(self):
        return (Path.touch, (self.mark,))


def test_a_planted_pickle_in_another_users_cache_directory_is_never_loaded(workdir):
    linked_scenario(workdir)
    link = [str(workdir / "ext.cu")]
    load_or_compile(cached(scale_first, link), ARGS)
    (index,) = _cache_files(workdir, ".nbi")
    mark = workdir / "planted-code-ran"
    index.write_bytes(pickle.dumps(_Planted(mark)))
    other_user = os.stat(index).st_uid + 4242
    os.chown(index, other_user, -1)
    os.chown(index.parent, other_user, -1)
    index.parent.chmod(0o777)
    try:
        with pytest.warns(kernel_cache.KernelCacheWarning, match="belongs to uid"):
            kernel, loaded = load_or_compile(cached(scale_first, link), ARGS)
    finally:
        index.parent.chmod(0o755)
    assert not loaded and kernel.library.get_cubin()
    assert not mark.exists(), "the planted pickle ran"
    assert index.read_bytes() == pickle.dumps(_Planted(mark))  # nothing written there


def test_a_cache_file_others_can_write_is_never_loaded(workdir):
    linked_scenario(workdir)
    link = [str(workdir / "ext.cu")]
    load_or_compile(cached(scale_first, link), ARGS)
    (data,) = _cache_files(workdir, ".nbc")
    data.chmod(0o666)
    with pytest.warns(kernel_cache.KernelCacheWarning, match="writable by others"):
        assert not load_or_compile(cached(scale_first, link), ARGS)[1]

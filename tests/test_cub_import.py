"""CUB through the import system (issue 20): ``import cuda_headers.cub_blocks``, a wrapper of
includes with the CCCL headers retained, then BlockReduce (Sum, Reduce with cuda::maximum; on
the GPU also with an enumerator as its algorithm argument, BLOCK_REDUCE_RAKING and
BLOCK_REDUCE_RAKING_COMMUTATIVE_ONLY: tests/test_enum_template_arguments.py links the pattern),
BlockScan (InclusiveSum, ExclusiveSum), WarpReduce (Sum), BlockLoad / BlockStore (direct and
warp-transpose) and BlockRadixSort (int32 and float32 keys), each with its TempStorage in shared
memory, the free LoadDirectBlocked / StoreDirectStriped (an iterator, an array reference) and
detail::load_transform_direct_striped (a function object called with one argument,
``cuda::std::identity``, made in the kernel).
One import serves every test (the first builds the module and the instances, once); one kernel
using every primitive links to an sm_90 cubin; the GPU tests check each against NumPy."""

from __future__ import annotations

import os

import numpy as np
import pytest
from cub_support import (
    ITEMS,
    THREADS,
    WARPS,
    direct_functions_expected,
    direct_functions_kernel,
    load_store_kernel,
    reduce_expected,
    reduce_kernel,
    register_cub,
    scan_expected,
    scan_kernel,
    sort_expected,
    sort_kernel,
    transform_expected,
    transform_kernel,
    warp_expected,
    warp_kernel,
)
from numba import cuda
from numba.cuda import types
from support import link_kernel_to_cubin

BLOCKS = 3


@pytest.fixture(scope="module")
def cub(tmp_path_factory):
    import importlib

    import numbast_import

    directory = tmp_path_factory.mktemp("cub")
    saved = {k: os.environ.get(k) for k in ("NUMBAST_CACHE_DIR", "NUMBAST_IMPORT_ARCH")}
    os.environ["NUMBAST_CACHE_DIR"] = str(directory / "cache")
    if not cuda.is_available():
        os.environ["NUMBAST_IMPORT_ARCH"] = "sm_90"  # no GPU to ask
    name = register_cub(directory)
    try:
        yield importlib.import_module(name)
    finally:
        numbast_import.unregister("cub_blocks")
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def every_primitive_kernel(cub):
    """One kernel calling every primitive the GPU tests check (one shim compile and one link
    for the CPU test; numba-cuda cannot compile device functions without a GPU to ask)."""
    from numbast import element_pointer

    Reduce, Scan = cub.BlockReduce[types.int32, THREADS], cub.BlockScan[types.int32, THREADS]
    Warp, Maximum = cub.WarpReduce[types.float32], cub.maximum[types.int32]
    loads = [cub.BlockLoad[types.int32, THREADS, ITEMS, a] for a in (cub.BLOCK_LOAD_DIRECT,
             cub.BLOCK_LOAD_WARP_TRANSPOSE)]  # fmt: skip
    stores = [cub.BlockStore[types.int32, THREADS, ITEMS, a] for a in (cub.BLOCK_STORE_DIRECT,
              cub.BLOCK_STORE_WARP_TRANSPOSE)]  # fmt: skip
    LoadDirect, LoadTranspose = loads
    StoreDirect, StoreTranspose = stores
    SortInts = cub.BlockRadixSort[types.int32, THREADS, ITEMS]
    SortFloats = cub.BlockRadixSort[types.float32, THREADS, ITEMS]
    load_blocked = cub.LoadDirectBlocked[types.int32, ITEMS]
    store_striped = cub.StoreDirectStriped[THREADS, types.int32, ITEMS]
    load_transformed = cub.load_transform_direct_striped[THREADS, types.int32, ITEMS]
    Identity = cub.identity

    def kernel(ints, floats, out):
        i = cuda.threadIdx.x
        reduce_storage = cuda.shared.array(1, Reduce.TempStorage)
        out[0] = Reduce(reduce_storage).Sum(ints[i])
        out[1] = Reduce(reduce_storage).Reduce(ints[i], Maximum())
        scan_storage = cuda.shared.array(1, Scan.TempStorage)
        out[2] = Scan(scan_storage).InclusiveSum(ints[i]) + Scan(scan_storage).ExclusiveSum(i)
        warp_storage = cuda.shared.array(WARPS, Warp.TempStorage)
        floats[i] = Warp(warp_storage[i // 32 :]).Sum(floats[i])
        items = cuda.local.array(ITEMS, types.int32)
        direct_load = cuda.shared.array(1, LoadDirect.TempStorage)
        LoadDirect(direct_load).Load(element_pointer(ints, 0), items)
        direct_store = cuda.shared.array(1, StoreDirect.TempStorage)
        StoreDirect(direct_store).Store(element_pointer(ints, 0), items)
        transpose_load = cuda.shared.array(1, LoadTranspose.TempStorage)
        LoadTranspose(transpose_load).Load(element_pointer(ints, 0), items)
        transpose_store = cuda.shared.array(1, StoreTranspose.TempStorage)
        StoreTranspose(transpose_store).Store(element_pointer(ints, 0), items)
        int_sort = cuda.shared.array(1, SortInts.TempStorage)
        SortInts(int_sort).Sort(items)
        keys = cuda.local.array(ITEMS, types.float32)
        float_sort = cuda.shared.array(1, SortFloats.TempStorage)
        SortFloats(float_sort).Sort(keys)
        out[3] = items[0] + np.int32(keys[0])
        load_blocked(i, ints, items)  # free function templates: an array as the iterator
        store_striped(i, element_pointer(ints, 0), items)
        load_transformed(i, element_pointer(ints, 0), items, Identity())  # a unary function object

    return kernel


def test_every_cub_primitive_links_to_an_sm90_cubin(cub):
    assert {"BlockReduce", "BlockScan", "BlockLoad", "BlockStore", "BlockRadixSort"} <= set(
        dir(cub)
    )
    reduce = cub.BlockReduce[types.int32, THREADS]
    assert reduce.TempStorage.sizeof_ > 0 and "TempStorage" in dir(reduce)
    signature = (types.int32[:], types.float32[:], types.int32[:])
    cubin = link_kernel_to_cubin(every_primitive_kernel(cub), signature)
    assert cubin[:4] == b"\x7fELF"


def test_coverage_finds_the_unary_function_object_and_says_what_policies_need(cub):
    """Coverage's instance of load_transform_direct_striped is one the kernel above makes: a
    pointer for the iterator and the module's unary function object, cuda::std::identity.
    BlockLoadType and BlockStoreType take a tuning policy (``Policy::BLOCK_THREADS``) that no
    class of the module is: not bound, and the reason says what the arguments lack."""
    import json
    from pathlib import Path

    from numbast.static.argument_needs import NEEDS_PREFIX

    coverage = json.loads(Path(cub.__file__).with_name("manifest.json").read_text())["coverage"]
    instances = coverage["kinds"]["function template"]["instances"]
    instance = instances["cub::detail::load_transform_direct_striped"]
    # CCCL 3.0 (CUDA 13.0) names the struct __identity and makes identity its alias.
    assert instance.endswith(("int *, ::cuda::std::identity>", "int *, ::cuda::std::__identity>"))
    policies = {i["what"]: i for i in coverage["kinds"]["class template"]["not_bound"]}
    assert set(policies) == {"cub::BlockLoadType", "cub::BlockStoreType"}
    for left_out in policies.values():
        assert left_out["outcome"] == "skipped"
        assert left_out["reason"].startswith(NEEDS_PREFIX) and "BLOCK_THREADS" in left_out["reason"]


# -- numbers -----------------------------------------------------------------------------------


def _random_ints(count: int, seed: int) -> np.ndarray:
    return np.random.default_rng(seed).integers(-1000, 1000, count, dtype=np.int32)


@pytest.mark.gpu
@pytest.mark.parametrize(
    "algorithm", [None, "BLOCK_REDUCE_RAKING", "BLOCK_REDUCE_RAKING_COMMUTATIVE_ONLY"]
)
def test_block_reduce_sum_and_maximum(cub, algorithm):
    values = _random_ints(BLOCKS * THREADS, 1)
    out = cuda.device_array(2 * BLOCKS, dtype=np.int32)
    cuda.jit(reduce_kernel(cub, algorithm))[BLOCKS, THREADS](cuda.to_device(values), out)
    np.testing.assert_array_equal(out.copy_to_host(), reduce_expected(values))


@pytest.mark.gpu
def test_block_scan_inclusive_and_exclusive_sums(cub):
    values = _random_ints(BLOCKS * THREADS, 2)
    inclusive = cuda.device_array(values.size, dtype=np.int32)
    exclusive = cuda.device_array(values.size, dtype=np.int32)
    cuda.jit(scan_kernel(cub))[BLOCKS, THREADS](cuda.to_device(values), inclusive, exclusive)
    expected_inclusive, expected_exclusive = scan_expected(values)
    np.testing.assert_array_equal(inclusive.copy_to_host(), expected_inclusive)
    np.testing.assert_array_equal(exclusive.copy_to_host(), expected_exclusive)


@pytest.mark.gpu
def test_warp_reduce_sum(cub):
    values = np.random.default_rng(3).random(BLOCKS * THREADS, dtype=np.float32)
    out = cuda.device_array(BLOCKS * WARPS, dtype=np.float32)
    cuda.jit(warp_kernel(cub))[BLOCKS, THREADS](cuda.to_device(values), out)
    np.testing.assert_allclose(out.copy_to_host(), warp_expected(values), rtol=1e-5)


@pytest.mark.gpu
@pytest.mark.parametrize("algorithm", ["DIRECT", "WARP_TRANSPOSE"])
def test_block_load_and_store(cub, algorithm):
    values = _random_ints(BLOCKS * THREADS * ITEMS, 4)
    out = cuda.device_array(values.size, dtype=np.int32)
    cuda.jit(load_store_kernel(cub, algorithm))[BLOCKS, THREADS](cuda.to_device(values), out)
    np.testing.assert_array_equal(out.copy_to_host(), values + 1)


@pytest.mark.gpu
def test_load_direct_blocked_and_store_direct_striped(cub):
    values = _random_ints(BLOCKS * THREADS * ITEMS, 6)
    out = cuda.device_array(values.size, dtype=np.int32)
    cuda.jit(direct_functions_kernel(cub))[BLOCKS, THREADS](cuda.to_device(values), out)
    np.testing.assert_array_equal(out.copy_to_host(), direct_functions_expected(values))


@pytest.mark.gpu
def test_load_transform_direct_striped_with_identity(cub):
    values = _random_ints(BLOCKS * THREADS * ITEMS, 7)
    out = cuda.device_array(values.size, dtype=np.int32)
    cuda.jit(transform_kernel(cub))[BLOCKS, THREADS](cuda.to_device(values), out)
    np.testing.assert_array_equal(out.copy_to_host(), transform_expected(values))


@pytest.mark.gpu
@pytest.mark.parametrize("key_type", [types.int32, types.float32])
def test_block_radix_sort(cub, key_type):
    rng = np.random.default_rng(5)
    count = BLOCKS * THREADS * ITEMS
    if key_type == types.int32:
        keys = rng.integers(-(2**31), 2**31 - 1, count, dtype=np.int32)
    else:
        keys = (rng.standard_normal(count) * 1000).astype(np.float32)
    out = cuda.device_array(count, dtype=keys.dtype)
    cuda.jit(sort_kernel(cub, key_type))[BLOCKS, THREADS](cuda.to_device(keys), out)
    np.testing.assert_array_equal(out.copy_to_host(), sort_expected(keys))

"""Structs whose only name is C++ spelling are reached the documented way: an instance or
specialization of a class template the module does not bind as ``M.box[types.float32]`` (as a
bound class template is indexed), a nested record as ``M.Outer.Inner``; no module attribute is
named ``"ns::box<float>"``. Dynamic binding and a generated module alike."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest
from numba import cuda
from numba.cuda import types
from support import link_kernel_to_cubin

HEADER = Path(__file__).parent / "data" / "binding" / "spelled_names.cuh"


@pytest.fixture(scope="module")
def dynamic():
    from numbast import bind_header

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return bind_header(HEADER)


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    from static_support import import_path, render

    from numbast.static.config import config_from_mapping

    config = config_from_mapping(
        {"Entry Point": str(HEADER), "File List": [str(HEADER)], "GPU Arch": ["sm_90"]},
        base_dir=str(HEADER.parent),
        source="<test>",
    )
    return import_path(render(config, tmp_path_factory.mktemp("spelled")))


def kernel_of(lib):
    Box = lib.box[types.float32]  # noqa: N806 (a C++ type)
    Tagged = lib.tagged[types.int32, 2]  # noqa: N806

    def kernel(out):
        out[0] = Box(np.float32(1.5)).twice()
        out[1] = lib.sum_of(Tagged())  # value-initialized: zeros

    return kernel


@pytest.mark.parametrize("which", ["dynamic", "generated"])
def test_spelled_structs_are_indexed_and_nested_records_are_attributes(request, which):
    lib = request.getfixturevalue(which)
    names = set(dir(lib))
    assert not any("<" in name or "::" in name for name in names), names
    box = lib.box[types.float32]
    assert box is lib.box[np.float32] and box._numba_type_.cxx_qual_name == "ns::box<float>"
    assert lib.box.instances == {"ns::box<float>": box}
    assert lib.tagged[types.int32, 2] is lib.tagged[np.int32, 2]
    assert lib.Outer.Inner._numba_type_.cxx_qual_name == "Outer::Inner"
    with pytest.raises(TypeError, match=r"ns::box\[.*\] is not bound.*has ns::box<float>"):
        lib.box[types.float64]
    if which == "generated":
        assert {"box", "tagged", "Outer"} <= set(lib.__all__)
        assert not any("<" in name or "::" in name for name in lib.__all__)
    cubin = link_kernel_to_cubin(kernel_of(lib), (types.float32[:],), arch="sm_90")
    assert cubin[:4] == b"\x7fELF"


@pytest.mark.gpu
def test_spelled_structs_compute_on_the_gpu(dynamic):
    out = np.zeros(2, np.float32)
    cuda.jit(kernel_of(dynamic))[1, 1](out)
    np.testing.assert_array_equal(out, [3.0, 0.0])

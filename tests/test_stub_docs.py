"""help() and inspect.getsource of a bound function show its C++ declarations and where they
come from, for dynamic bindings and generated modules alike; calling it on the host says where
it can be called."""

from __future__ import annotations

import inspect
import pydoc
import warnings
from pathlib import Path

import pytest
from static_support import generate

DATA = Path(__file__).parent / "data" / "static"
DECLARATIONS = (
    "int scale(int x, int factor)  // functions.cuh:17",
    "float scale(float x, float factor)  // functions.cuh:18",
)


@pytest.fixture(scope="module")
def dynamic_scale():
    from numbast import bind_header

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return bind_header(DATA / "functions.cuh").scale


@pytest.fixture
def static_scale(tmp_path):
    return generate("functions.cuh", tmp_path).scale


@pytest.mark.parametrize("which", ["dynamic_scale", "static_scale"])
def test_source_and_help_show_the_cxx_declarations(request, which):
    scale = request.getfixturevalue(which)
    source = inspect.getsource(scale)
    assert source.startswith("def scale(*args):")
    for declaration in DECLARATIONS:
        assert declaration in source
        assert declaration in pydoc.render_doc(scale)


@pytest.mark.parametrize("which", ["dynamic_scale", "static_scale"])
def test_calling_on_the_host_says_where_to_call_it(request, which):
    with pytest.raises(TypeError, match="scale is a CUDA device function .* @cuda.jit kernel"):
        request.getfixturevalue(which)(1, 2)

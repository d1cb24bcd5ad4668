"""An import that binds nothing (issue 20 point 5): an umbrella header mapped without a
``retain`` list gives an empty module; every import of it warns and names the files that
declare something (looking through includes that are only preprocessor lines), which bind
once retained."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest
from numba.cuda import types
from support import link_kernel_to_cubin
from wrapper_imports import imported_header

from numbast_import.cache.manifest import binds_nothing
from numbast_import.retain_hints import NothingBoundWarning, retain_candidates

UMBRELLA = Path(__file__).parent / "data" / "libraries" / "umbrella"
PARTS = [UMBRELLA / "parts" / "scale.cuh", UMBRELLA / "parts" / "offset.cuh"]


def test_an_umbrella_without_retain_warns_and_names_what_to_retain(tmp_path):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with imported_header("umbrella_alone", UMBRELLA / "all.cuh", tmp_path) as module:
            public = [name for name in vars(module) if not name.startswith("_")]
    (warning,) = [w for w in caught if issubclass(w.category, NothingBoundWarning)]
    message = str(warning.message)
    assert message.startswith("cuda_headers.umbrella_alone binds nothing: all.cuh declares")
    assert "numbast_import.register('umbrella_alone', ...)" in message  # where to fix it
    listed = [line.strip() for line in message.splitlines()[1:]]
    assert listed == [str(path) for path in PARTS]  # config.cuh: macros only, looked through
    assert not [name for name in public if name.startswith("umbrella_")]


def test_retaining_the_named_files_binds_them(tmp_path):
    with warnings.catch_warnings():
        warnings.simplefilter("error", NothingBoundWarning)
        with imported_header(
            "umbrella_retained", UMBRELLA / "all.cuh", tmp_path, retain=PARTS
        ) as module:
            scale, offset = module.umbrella_scale, module.umbrella_offset

            def kernel(out):
                out[0] = offset(scale(np.float32(1.5)))

            link_kernel_to_cubin(kernel, (types.float32[:],))


@pytest.mark.parametrize(
    "coverage, empty",
    [
        ({"kinds": {"function": {"found": 2, "bound": 0}}}, True),
        ({"kinds": {}}, True),
        ({"kinds": {"function": {"found": 2, "bound": 0}, "enum": {"bound": 1}}}, False),
        (None, False),  # an entry without coverage: nothing is known
    ],
)
def test_binds_nothing_reads_the_coverage(coverage, empty):
    assert binds_nothing(coverage) is empty


def test_candidates_are_the_files_clang_read(tmp_path):
    header = tmp_path / "wrapper.cuh"
    header.write_text('#include "missing.cuh"\n#include <parts/scale.cuh>\n')
    # Only files clang read count: an include it did not read (an inactive branch) is skipped.
    assert retain_candidates([str(header)], [str(PARTS[0])]) == [str(PARTS[0])]

"""The built-in header modules (``numbast.headers.<name>``): CUDA toolkit headers with the
options that bind them well.

Each entry is the table form of a ``[tool.numbast-import.headers]`` mapping, with paths
relative to the toolkit's include directory (cuRAND's for ``curand``), plus ``uses``: the
built-in modules whose types the header's declarations take, following its ``#include``s
(``cuda_fp8.h`` includes ``cuda_fp16.h``, so fp8's constructor from ``__half`` takes cufp16's
``__half``). Those are imported first (``numbast_import.uses``).

Scalar float formats are bound as Numba numbers in a register (``Number`` / ``PrimitiveModel``)
so they pass by value like ``float``; the paired ``.hpp`` holds most of the definitions and is
retained alongside its ``.h``. For cuda_fp16.h and cuda_bf16.h, ``skip-prefix`` leaves out the
``__internal_*`` helpers of the ``.hpp``: NVRTC (12.3 and newer) does not include the ``.hpp`` (its
built-ins library holds the definitions), so they are not declared where the shims are compiled,
and they are no API.
"""

from __future__ import annotations

from typing import Any

from numbast_import.errors import ToolkitMissingError


def _numbers(*names: str) -> dict[str, dict[str, str]]:
    return {
        "types": {name: "Number" for name in names},
        "data-models": {name: "PrimitiveModel" for name in names},
    }


BUILTIN_HEADERS: dict[str, dict[str, Any]] = {
    "cufp16": {
        "header": "cuda_fp16.h",
        "retain": ["cuda_fp16.hpp"],
        **_numbers("__half"),
        "skip-prefix": "__internal",
    },
    "cubf16": {
        "header": "cuda_bf16.h",
        "retain": ["cuda_bf16.hpp"],
        **_numbers("__nv_bfloat16"),
        "skip-prefix": "__internal",
        "uses": ["cufp16"],
    },
    "cufp8": {
        "header": "cuda_fp8.h",
        # device_types.h declares cudaRoundMode, which the e8m0 / ue5m3 conversions take.
        "retain": ["cuda_fp8.hpp", "device_types.h"],
        **_numbers("__nv_fp8_e4m3", "__nv_fp8_e5m2"),
        "uses": ["cufp16", "cubf16"],
    },
    "cufp6": {
        "header": "cuda_fp6.h",
        "retain": ["cuda_fp6.hpp"],
        **_numbers("__nv_fp6_e2m3", "__nv_fp6_e3m2"),
        "uses": ["cufp16", "cubf16", "cufp8"],
    },
    "cufp4": {
        "header": "cuda_fp4.h",
        "retain": ["cuda_fp4.hpp"],
        **_numbers("__nv_fp4_e2m1"),
        "uses": ["cufp16", "cubf16", "cufp8", "cufp6"],
    },
    "cucomplex": {
        "header": "cuComplex.h",
        # Conversions between cuFloatComplex / cuDoubleComplex (float2 / double2) and Numba's
        # complex64 / complex128: casts, and to_complex / from_complex.
        "additional-imports": [
            "from numbast.runtime.complex_values import from_complex, to_complex",
        ],
    },
    "curand": {
        "header": "curand_kernel.h",
        # Every header of the device API: the generators' states, their init, skipahead and
        # draw functions, and the distributions.
        "retain": [
            "curand.h",
            "curand_discrete.h",
            "curand_discrete2.h",
            "curand_globals.h",
            "curand_lognormal.h",
            "curand_mrg32k3a.h",
            "curand_mtgp32.h",
            "curand_mtgp32_kernel.h",
            "curand_normal.h",
            "curand_philox4x32_x.h",
            "curand_poisson.h",
            "curand_precalc.h",
            "curand_uniform.h",
        ],
    },
}

CURAND_EXTRA = 'pip install "numbast-import[curand]"'


def builtin_mapping(name: str):
    """The :class:`numbast_import.config.HeaderMapping` of built-in module ``name``."""
    from numbast_import.config import header_mapping

    table = dict(BUILTIN_HEADERS[name])
    uses = tuple(f"numbast.headers.{used}" for used in table.pop("uses", ()))
    mapping = header_mapping(name, table, _include_dir(name), "built-in numbast.headers")
    return mapping._replace(uses=uses)


def _include_dir(name: str) -> str:
    from ast_canopy.toolkit import cudart_include_dir, curand_include_dir

    if name != "curand":
        return cudart_include_dir()
    found = curand_include_dir()
    if found is None:
        raise ToolkitMissingError(
            "cannot import numbast.headers.curand: the cuRAND headers (curand_kernel.h) are "
            f"not installed; install them with {CURAND_EXTRA} (the curand extra, which brings "
            "cuda-toolkit[curand]) or set CUDA_HOME to a toolkit that has them"
        )
    return found

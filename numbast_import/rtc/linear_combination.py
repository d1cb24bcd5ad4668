"""PyCUDA's ``elementwise.get_linear_combination_kernel``: ``z[i] = a_0*x_0[i] + ...`` where
each factor ``a_k`` is a kernel argument or a one-element GPUArray read through a texture
reference (rewritten to a texture object, see ``textures_rewrite``)."""

from __future__ import annotations

from typing import Any

import numpy as np

from numbast_import.rtc.dtypes import Argument, ScalarArg, VectorArg, dtype_to_ctype
from numbast_import.rtc.elementwise_modules import get_elwise_module
from numbast_import.rtc.memoize import context_dependent_memoize


def linear_combination_parts(
    summand_descriptors: tuple[tuple[bool, Any, Any], ...], dtype_z: Any
) -> tuple[list[Argument], dict[str, str]]:
    """(arguments, get_elwise_module keywords) of the linear combination kernel."""
    arguments: list[Argument] = []
    preamble, loop_prep, summands = [], [], []
    for k, (is_gpu_scalar, scalar_dtype, vector_dtype) in enumerate(summand_descriptors):
        if is_gpu_scalar:
            texel = dtype_to_ctype(scalar_dtype, with_fp_tex_hack=True)
            preamble.append(f"texture<{texel}, 1, cudaReadModeElementType> tex_a{k};")
            fetch = _texel_value(scalar_dtype, f"tex1Dfetch(tex_a{k}, 0)")
            loop_prep.append(f"const {dtype_to_ctype(scalar_dtype)} a{k} = {fetch}")
        else:
            arguments.append(ScalarArg(scalar_dtype, f"a{k}"))
        arguments.append(VectorArg(vector_dtype, f"x{k}"))
        summands.append(f"a{k}*x{k}[i]")
    arguments += [VectorArg(dtype_z, "z"), ScalarArg(np.uintp, "n")]
    return arguments, {
        "operation": "z[i] = " + " + ".join(summands),
        "name": "linear_combination",
        "preamble": "\n".join(preamble),
        "loop_prep": ";\n  ".join(loop_prep),
    }


@context_dependent_memoize
def get_linear_combination_kernel(
    summand_descriptors: tuple[tuple[bool, Any, Any], ...], dtype_z: Any
) -> tuple[Any, list[Any]]:
    """(prepared Function, texture references) computing ``z[i] = sum(a_k * x_k[i])``.

    Each summand is ``(is_gpu_scalar, scalar_dtype, vector_dtype)``: a GPU scalar is read from
    a texture reference (bind the 1-element GPUArray with ``bind_to_texref_ext``, with
    ``allow_double_hack=True`` for float64), else ``a_k`` is an argument before ``x_k``. The
    Function takes ``[a_k,] x_k ..., z, n``.
    """
    arguments, parts = linear_combination_parts(summand_descriptors, dtype_z)
    module = get_elwise_module(arguments, **parts)
    function = module.get_function(parts["name"])
    texrefs = [
        module.get_texref(f"tex_a{k}")
        for k, (is_gpu_scalar, _s, _v) in enumerate(summand_descriptors)
        if is_gpu_scalar
    ]
    function.prepare("".join(argument.struct_char for argument in arguments), texrefs=texrefs)
    return function, texrefs


def _texel_value(dtype: Any, fetch: str) -> str:
    """C code turning a texel holding a ``dtype`` value (dtype_to_ctype's texture types)
    into the value."""
    dtype = np.dtype(dtype)
    if dtype == np.float64:
        return f"[&]{{ int2 v = {fetch}; return __hiloint2double(v.y, v.x); }}()"
    if dtype == np.complex64:
        return f"[&]{{ float2 v = {fetch}; return cuda::std::complex<float>(v.x, v.y); }}()"
    if dtype == np.complex128:
        return (
            f"[&]{{ int4 v = {fetch}; return cuda::std::complex<double>("
            "__hiloint2double(v.y, v.x), __hiloint2double(v.w, v.z)); }()"
        )
    return fetch

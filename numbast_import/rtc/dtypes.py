"""numpy dtypes and the C types kernels spell them with, both ways, and kernel argument
descriptions (PyCUDA's ``dtype_to_ctype``, ``VectorArg``, ``ScalarArg``, ``parse_c_arg``,
``gpuarray.vec``).

64-bit integers are ``long long`` (the same width on every platform); complex numbers are
libcu++'s ``cuda::std::complex<T>`` (NVRTC has it; kernels using it include
``<cuda/std/complex>``, which ``needs_headers`` lists); float16 is ``__half``.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np

_DTYPE_TO_NAME: dict[np.dtype, str] = {}
_NAME_TO_DTYPE: dict[str, np.dtype] = {}


def register_dtype(dtype: Any, c_names: str | list[str], alias_ok: bool = False) -> None:
    """Let ``dtype`` be spelled ``c_names`` in C (the first name is the one written)."""
    dtype = np.dtype(dtype)
    names = [c_names] if isinstance(c_names, str) else list(c_names)
    for name in names:
        known = _NAME_TO_DTYPE.get(name)
        if known is not None and known != dtype:
            raise ValueError(f"C type {name!r} is already {known}, not {dtype}")
        _NAME_TO_DTYPE[name] = dtype
    if dtype in _DTYPE_TO_NAME and not alias_ok:
        return  # the first registration keeps the spelling
    _DTYPE_TO_NAME.setdefault(dtype, names[0])


def get_or_register_dtype(c_names: str | list[str], dtype: Any = None) -> np.dtype:
    """The dtype spelled ``c_names``; registers ``dtype`` under those names when given."""
    if dtype is not None:
        register_dtype(dtype, c_names)
        return np.dtype(dtype)
    name = c_names if isinstance(c_names, str) else c_names[0]
    try:
        return _NAME_TO_DTYPE[name]
    except KeyError:
        raise TypeError(f"unknown C type {name!r}; register it with register_dtype") from None


_TEXTURE_ELEMENT = {
    # What a texture holds for these dtypes: doubles and complex numbers are read as
    # int2 / float2 / int4 (the hardware has no 64-bit texel format).
    np.dtype(np.float32): "float",
    np.dtype(np.float64): "int2",
    np.dtype(np.complex64): "float2",
    np.dtype(np.complex128): "int4",
}


def dtype_to_ctype(dtype: Any, with_fp_tex_hack: bool = False) -> str:
    """The C spelling of ``dtype``: ``float``, ``unsigned int``, ``float3``, ...
    ``with_fp_tex_hack``: the texture element type that holds it."""
    if dtype is None:
        raise ValueError("dtype may not be None")
    dtype = np.dtype(dtype)
    if with_fp_tex_hack and dtype in _TEXTURE_ELEMENT:
        return _TEXTURE_ELEMENT[dtype]
    try:
        return _DTYPE_TO_NAME[dtype]
    except KeyError:
        raise ValueError(f"no C type is registered for dtype {dtype}") from None


def needs_headers(dtypes: Any) -> list[str]:
    """``#include`` lines that kernels using ``dtypes`` need."""
    kinds = {np.dtype(d).kind + str(np.dtype(d).itemsize) for d in dtypes}
    lines = []
    if "f2" in kinds:
        lines.append("#include <cuda_fp16.h>")
    if kinds & {"c8", "c16"}:
        lines.append("#include <cuda/std/complex>")
    return lines


def _fill_registry() -> None:
    for dtype, names in [
        (np.bool_, ["bool"]),
        (np.int8, ["signed char", "char", "int8_t"]),
        (np.uint8, ["unsigned char", "uchar", "uint8_t"]),
        (np.int16, ["short", "short int", "int16_t"]),
        (np.uint16, ["unsigned short", "ushort", "unsigned short int", "uint16_t"]),
        (np.int32, ["int", "int32_t", "signed int", "signed"]),
        (np.uint32, ["unsigned int", "uint", "unsigned", "uint32_t"]),
        (np.int64, ["long long", "long", "long int", "long long int", "int64_t", "ptrdiff_t"]),
        (
            np.uint64,
            [
                "unsigned long long",
                "unsigned long",
                "ulong",
                "unsigned long int",
                "unsigned long long int",
                "uint64_t",
                "size_t",
            ],
        ),
        (np.float16, ["__half", "half"]),
        (np.float32, ["float"]),
        (np.float64, ["double"]),
        (np.complex64, ["cuda::std::complex<float>", "pycuda::complex<float>"]),
        (np.complex128, ["cuda::std::complex<double>", "pycuda::complex<double>"]),
    ]:
        register_dtype(dtype, names)


_fill_registry()


class vec:  # noqa: N801 - PyCUDA's name
    """CUDA's vector types as numpy dtypes (``vec.float3``) and their makers
    (``vec.make_float3(1, 2, 3)``, a 0-d array that kernels take by value)."""


_VECTOR_FIELDS = "xyzw"


def _make_vector_maker(name: str, dtype: np.dtype, count: int):
    def make(*values: Any) -> np.ndarray:
        if len(values) != count:
            raise TypeError(f"make_{name} takes {count} values, not {len(values)}")
        return np.array(tuple(values), dtype=dtype)

    make.__name__ = f"make_{name}"
    return make


def _create_vector_types() -> None:
    bases = [
        ("char", np.int8, (1, 2, 3, 4)),
        ("uchar", np.uint8, (1, 2, 3, 4)),
        ("short", np.int16, (1, 2, 3, 4)),
        ("ushort", np.uint16, (1, 2, 3, 4)),
        ("int", np.int32, (1, 2, 3, 4)),
        ("uint", np.uint32, (1, 2, 3, 4)),
        ("long", np.int64, (1, 2, 3, 4)),
        ("ulong", np.uint64, (1, 2, 3, 4)),
        ("longlong", np.int64, (1, 2)),
        ("ulonglong", np.uint64, (1, 2)),
        ("float", np.float32, (1, 2, 3, 4)),
        ("double", np.float64, (1, 2)),
    ]
    for base, element, counts in bases:
        for count in counts:
            name = f"{base}{count}"
            dtype = np.dtype([(_VECTOR_FIELDS[i], element) for i in range(count)])
            register_dtype(dtype, name)  # long2 and longlong2 share a dtype: "long2" is written
            setattr(vec, name, dtype)
            setattr(vec, f"make_{name}", staticmethod(_make_vector_maker(name, dtype, count)))


_create_vector_types()


class Argument:
    """A kernel parameter: its dtype and name."""

    def __init__(self, dtype: Any, name: str) -> None:
        self.dtype = np.dtype(dtype)
        self.name = name

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r}, {self.dtype})"


class VectorArg(Argument):
    """A pointer parameter (``float *x``): passed a GPUArray or device pointer."""

    struct_char = "P"

    def declarator(self) -> str:
        return f"{dtype_to_ctype(self.dtype)} *{self.name}"


class ScalarArg(Argument):
    """A by-value parameter (``float a``)."""

    def declarator(self) -> str:
        return f"{dtype_to_ctype(self.dtype)} {self.name}"

    @property
    def struct_char(self) -> str:
        char = self.dtype.char
        return f"{self.dtype.itemsize}s" if char in "VGFDE" else char


_C_ARG = re.compile(
    r"^\s*(?:const\s+)?(?P<type>[\w:<> ]+?)\s*(?P<pointer>\*?)\s*(?:const\s+)?"
    r"(?:__restrict__\s+)?(?P<name>[A-Za-z_]\w*)\s*$"
)


def parse_c_arg(c_arg: str) -> Argument:
    """``"float *x"`` -> VectorArg(float32, "x"); ``"int n"`` -> ScalarArg(int32, "n")."""
    match = _C_ARG.match(c_arg)
    if match is None:
        raise ValueError(f"cannot read the C parameter {c_arg!r} (write it as 'float *x')")
    type_name = " ".join(match.group("type").replace("const", " ").split())
    dtype = get_or_register_dtype(type_name)
    kind = VectorArg if match.group("pointer") else ScalarArg
    return kind(dtype, match.group("name"))


def parse_c_args(arguments: str | list[Any]) -> list[Argument]:
    """A list of Arguments from ``"float *x, float a"`` or a list of strings / Arguments."""
    items = arguments.split(",") if isinstance(arguments, str) else list(arguments)
    return [item if isinstance(item, Argument) else parse_c_arg(item) for item in items]


def get_arg_type(c_arg: str) -> str:
    """The struct character of a C parameter (``"float *x"`` -> ``"P"``)."""
    return parse_c_arg(c_arg).struct_char

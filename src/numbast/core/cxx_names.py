"""C++ type spellings that have a Numba counterpart by name, and spelling clean-ups.

Plain data and string functions (no Numba): planning maps declarations with them, and the
runtime spells Numba types back in C++ when it instantiates templates.
"""

from __future__ import annotations

# Canonical C++ builtin spellings (as clang prints them for an LP64 target) -> the name of the
# Numba type in ``numba.cuda.types``.
BUILTIN_NUMBA_NAMES: dict[str, str] = {
    "bool": "boolean",
    "char": "int8",
    "signed char": "int8",
    "unsigned char": "uint8",
    "short": "int16",
    "unsigned short": "uint16",
    "int": "int32",
    "unsigned int": "uint32",
    "long": "int64",
    "unsigned long": "uint64",
    "long long": "int64",
    "unsigned long long": "uint64",
    "float": "float32",
    "double": "float64",
    "void": "void",
    "__half": "float16",
    "__nv_bfloat16": "bfloat16",
    # CUDA's dim3 (three unsigned ints, what cooperative groups' group_index() returns): the
    # type of numba-cuda's cuda.threadIdx, three 32-bit ints with .x, .y, .z.
    "dim3": "dim3",
}

# CUDA vector type prefixes -> the element type name numba-cuda uses for its vector types.
VECTOR_ELEMENTS: dict[str, str] = {
    "char": "int8",
    "uchar": "uint8",
    "short": "int16",
    "ushort": "uint16",
    "int": "int32",
    "uint": "uint32",
    "long": "int64",
    "ulong": "uint64",
    "longlong": "int64",
    "ulonglong": "uint64",
    "float": "float32",
    "double": "float64",
}


# 4-element vectors of 8-byte elements that CUDA 13 also spells with an explicit alignment
# (``double4_16a``, ``double4_32a``; plain ``double4`` is deprecated there): the same Numba
# vector type, passed with the C++ alignment.
OVER_ALIGNED_VECTORS = ("double", "long", "ulong", "longlong", "ulonglong")


def vector_type_names() -> dict[str, str]:
    """CUDA vector type -> the key of ``numba.cuda.vector_types.vector_types`` for it
    (``float2`` -> ``float32x2``, ``double4_32a`` -> ``float64x4``). Plain spellings come first:
    they are what a Numba vector type is spelled as in C++."""
    names = {
        f"{cxx_prefix}{count}": f"{element}x{count}"
        for cxx_prefix, element in VECTOR_ELEMENTS.items()
        for count in (1, 2, 3, 4)
    }
    for cxx_prefix in OVER_ALIGNED_VECTORS:
        for alignment in (16, 32):
            names[f"{cxx_prefix}4_{alignment}a"] = f"{VECTOR_ELEMENTS[cxx_prefix]}x4"
    return names


def toolkit_vector_function(qual_name: str) -> str | None:
    """The CUDA vector type that the toolkit's ``vector_functions.h`` function ``qual_name``
    makes from its elements (``make_float3`` -> ``float3``, ``make_double4_32a``), or None."""
    name = qual_name.removeprefix("::")
    if not name.startswith("make_"):
        return None
    vector = name.removeprefix("make_")
    return vector if vector in vector_type_names() else None


def normalize_cxx_name(cxx_name: str) -> str:
    """A type name without elaborated-type keywords or a leading ``::``."""
    name = cxx_name.strip()
    for prefix in ("struct ", "class ", "union ", "enum "):
        if name.startswith(prefix):
            name = name[len(prefix) :]
    return name.removeprefix("::")


def strip_cv(name: str) -> str:
    words = name.split()
    return " ".join(w for w in words if w not in ("const", "volatile"))


# Numba type name -> the C++ spelling a template argument of that type is written with. Several
# C++ names map to one Numba type (char / signed char, long / long long): this is the choice.
NUMBA_TO_CXX: dict[str, str] = {
    "boolean": "bool",
    "int8": "signed char",
    "uint8": "unsigned char",
    "int16": "short",
    "uint16": "unsigned short",
    "int32": "int",
    "uint32": "unsigned int",
    "int64": "long long",
    "uint64": "unsigned long long",
    "float32": "float",
    "float64": "double",
    "float16": "__half",
    "bfloat16": "__nv_bfloat16",
}


def spelled_accessor(python_name: str) -> tuple[str, str, str] | None:
    """How a struct bound under its C++ spelling is reached from Python (``runtime.spelled_names``):
    ``("instance", "box", "ns::box")`` for ``ns::box<float>`` (indexed as ``M.box[...]``),
    ``("nested", "Inner", "ns::Outer")`` for ``ns::Outer::Inner`` (``M.Outer.Inner``); None for a
    Python identifier, or a spelling that is neither."""
    if python_name.isidentifier():
        return None
    start = python_name.find("<")
    if start < 0:
        owner, _, name = python_name.rpartition("::")
        return ("nested", name, owner.removeprefix("::")) if owner and name.isidentifier() else None
    depth = 0
    for position, char in enumerate(python_name[start:], start):
        depth += {"<": 1, ">": -1}.get(char, 0)
        if depth == 0 and position != len(python_name) - 1:
            return None  # not one template's instance (Outer<int>::Inner)
    template = python_name[:start].strip().removeprefix("::")
    name = template.rpartition("::")[2]
    return ("instance", name, template) if name.isidentifier() and depth == 0 else None


# Bound C++ 16-bit float structs -> the numba-cuda type of the same format (``float16``...),
# which they convert to and from (``numbast.runtime.native_twins``).
NATIVE_TWIN_TYPES: dict[str, str] = {"__half": "float16", "__nv_bfloat16": "bfloat16"}

"""The toolkit's vector functions in the overload set of a bound function of the same name.

C++ resolves ``make_float3(x, y, z)`` among every ``make_float3`` in scope: the toolkit's
(``vector_functions.h``: one element per component) and a header's own overloads for other
arguments (``helper_math.h``'s ``make_float3(float2, float)``). A module binds only its
header's declarations, so its ``make_float3`` would hide the toolkit's; this adds the toolkit's
overload to it. It makes numba-cuda's vector type from its elements directly: no shim.
"""

from __future__ import annotations

from collections.abc import Hashable

from numba.cuda.typing.templates import signature

from ..core.cxx_names import toolkit_vector_function, vector_type_names
from .overloads import DEFAULT_REGISTRIES, Registries, add_overload


def add_toolkit_vector_function(
    key: Hashable, qual_name: str, registries: Registries = DEFAULT_REGISTRIES
) -> None:
    """When ``qual_name`` is a vector function of the toolkit (``make_float3``), give ``key``
    (its stub) the toolkit's overload (``float3 make_float3(float, float, float)``)."""
    vector = toolkit_vector_function(qual_name)
    if vector is None:
        return
    from numba.cuda.vector_types import vector_types

    vector_type = vector_types[vector_type_names()[vector]]
    elements = (vector_type.base_type,) * vector_type.num_elements
    add_overload(key, signature(vector_type, *elements), _make_vector, qual_name, registries)


def _make_vector(context, builder, sig, args):
    from numba.cuda import cgutils

    vector = cgutils.create_struct_proxy(sig.return_type)(context, builder)
    for name, value in zip(sig.return_type.attr_names, args, strict=True):
        setattr(vector, name, value)
    return vector._getvalue()


__all__ = ["add_toolkit_vector_function"]

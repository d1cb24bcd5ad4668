"""``element_pointer(array, index)``: a C pointer into an array, for pointer parameters.

Bound C++ functions take ``T*`` parameters (and ``inout_ptr`` / ``out_ptr`` intents) as Numba
``CPointer(T)`` values. Inside a kernel, ``element_pointer(arr, i)`` gives the address of
``arr[i]`` (``element_pointer(arr)`` the address of the first element) without cffi.
"""

from __future__ import annotations

from numba.cuda import cgutils, types
from numba.cuda.extending import intrinsic


@intrinsic
def element_pointer(typingctx, array, index=None):
    if not isinstance(array, types.Array) or array.ndim != 1:
        return None
    has_index = index is not None and not isinstance(index, types.Omitted)
    if has_index and not isinstance(index, types.Integer):
        return None
    pointer_type = types.CPointer(array.dtype)
    sig = pointer_type(array, index) if has_index else pointer_type(array)

    def codegen(context, builder, signature, args):
        ary = context.make_array(array)(context, builder, args[0])
        if not has_index:
            return ary.data
        position = context.cast(builder, args[1], signature.args[1], types.intp)
        return cgutils.get_item_pointer(context, builder, array, ary, [position], wraparound=True)

    return sig, codegen

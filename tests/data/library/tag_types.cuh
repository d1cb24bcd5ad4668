// Empty tag classes declared in a file that is not retained, named by what is: by a function's
// parameter, and by the method of an instance the header names (Slot<Empty>::get(), as CUB's
// Uninitialized<NullType>::Alias()). The tag is bound with them; a class with fields is not.
#pragma once
#include "tag_types_detail.cuh"

namespace tg {
__device__ inline int tag_count(Empty) { return 7; }
__device__ inline Slot<Empty> make_slot() { return Slot<Empty>{}; }
__device__ inline int heavy_value(Heavy h) { return h.x; }
}  // namespace tg
